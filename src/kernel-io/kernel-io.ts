// What the kernel I/O addon (native/kernel-io.c) offers, as types: the functions the serving path
// calls and the writability watch. Types only, so that the modules that take the addon as a
// parameter (src/http/representation/, src/splice/) load nothing; ./native-binding.ts loads it.
/** The addon's functions; every number result is bytes (≥ 0) or a negative errno. */
export interface KernelIo {
  /** sendfile(2) from `inFd` at `position` to the non-blocking socket `outFd`: bytes sent (0 at end of file) or -errno. */
  sendFile(outFd: number, inFd: number, position: number, length: number): number;
  /** send(2) of `length` bytes of `buffer` from `offset` (MSG_NOSIGNAL, non-blocking): bytes sent or -errno. */
  send(fd: number, buffer: Uint8Array, offset: number, length: number): number;
  /** 1 when every page of the file range is in the page cache, 0 when not, -errno when the kernel cannot say. */
  residency(fd: number, position: number, length: number): number;
  /** preadv2(RWF_NOWAIT): bytes read from the page cache alone, or -errno (-EAGAIN: some pages are not cached). */
  readNoWait(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  /**
   * A read-only shared mapping of the file's first `length` bytes (unmapped once nothing refers to
   * it), or -errno. Its bytes may only be handed to the kernel (a socket write), never read here:
   * a page the file lost since (truncation) is a SIGBUS in user space and EFAULT in a write.
   */
  mapFile(fd: number, length: number): ArrayBuffer | number;
  /**
   * residency() of a range of a mapFile() mapping, from the mapping itself (mincore(2): pages this
   * process already wrote from are answered from its page tables, ~1.5 µs per MiB instead of
   * cachestat's ~5.5 µs on the bench machine); throws RangeError outside the mapping.
   */
  mappedResidency(mapping: ArrayBuffer, position: number, length: number): number;
  /**
   * Lets go of a mapFile() mapping's file now (an unlinked file's blocks are freed), keeping its
   * addresses reserved until the ArrayBuffer is collected: a stale view's write fails with EFAULT,
   * and never reaches another mapping. 0 or -errno.
   */
  releaseMapping(mapping: ArrayBuffer): number;
  /** A close-on-exec duplicate of `fd`, or -errno. */
  dup(fd: number): number;
  close(fd: number): number;
  /** TCP_CORK on (hold partial segments) or off (send them): 0 or -errno. */
  setCork(fd: number, on: 0 | 1): number;
  /** A libuv poll of `fd` for writability; `callback` runs once per start(). */
  WritableWatch: new (fd: number, callback: (status: number) => void) => WritableWatch;
  readonly EAGAIN: number;
}

export interface WritableWatch {
  start(): void;
  stop(): void;
  /** Stops it for good; the descriptor stays the caller's to close, after this. */
  close(): void;
}
