// The one interface every base-image origin implements: where an ISO's bytes come from and how
// they get into the cache (the role containers/image gives its ImageSource). The load pipeline
// (src/images/loader/obtain-iso.ts) asks an origin two things only — may the ISO be used where it
// lies, and else to write it into the `.part` it names — and verifies, deduplicates by sha256,
// records and installs whatever was written without knowing which origin wrote it
// (src/images/loader/install-iso.ts). A new origin is a module beside the others implementing
// ImageOrigin and one row of src/images/origins/origin-of.ts; a new object store that answers
// ranged reads is a RemoteSource (src/images/fetch/remote-source.ts) for remote-object-origin.ts.
//
// Does: declare the origin, what a write is given (OriginWrite: where to write, progress, the abort
// signal, the image's slot in the disk budget), what it gives back (WrittenIso: bytes written,
// their sha256 when known, what to clean up), and which failures lose the `.part` (losesPart).
// Does NOT: implement an origin (the *-origin.ts modules beside it) or pick one for an OS_IMAGES
// entry (origin-of.ts).
// Next: src/images/origins/origin-of.ts.
import type { CacheFiles } from '../cache/cache-layout.js';
import type { RegistryResolution } from '../cache/cache-record.js';
import type { RemoteSource } from '../fetch/remote-source.js';
import { diskFullCode } from '../load-failure/disk-full.js';
import { type RetryPolicy, retryClassOf } from '../load-failure/retry-policy.js';

/** The image's slot in the disk budget, as an origin sees it: ask before writing. */
export interface BudgetRoom {
  /** This image will occupy `bytes` in the cache in all; throws when the disk budget refuses. */
  reserve(bytes: number): void;
  /** Throws (slow retry) when writing `bytes` more would leave less than IMAGE_DISK_RESERVE_BYTES free. */
  assertRoom(bytes: number): void;
}

/** What the pipeline hands an origin for one write. */
export interface OriginWrite {
  /**
   * Where to write: the ISO goes into `files.isoPart`, which may hold the bytes of an earlier
   * attempt to resume; an origin keeps its own intermediate files among these (`files.zip`).
   */
  files: CacheFiles;
  /** e.g. `4.17 x86_64`, for messages. */
  label: string;
  /** The entry's cpu_architecture (a registry origin picks its manifest by it). */
  cpuArchitecture: string;
  signal: AbortSignal;
  /** Immediate retries of transient faults within this write (a download's attempts). */
  policy: RetryPolicy;
  room: BudgetRoom;
  /** Enters a stage of the write; `total`/`already` describe its bytes when known. */
  stage(state: 'downloading' | 'extracting', total?: number, already?: number): void;
  /** `bytes` more of the current stage are done. */
  advance(bytes: number): void;
  /** A recoverable event worth a log line (a retry, a restart from the first byte); never secrets. */
  notice(message: string, context?: Record<string, unknown>): void;
  /** What an earlier pull of this source resolved to (a registry tag is resolved once). */
  earlierResolution: RegistryResolution | undefined;
}

/** What a write left in `files.isoPart`, fsynced; not yet verified. */
export interface WrittenIso {
  size: number;
  /** The sha256 of the bytes written when the origin hashed them on the way; else the verification hashes them. */
  sha256: string | undefined;
  /** What a registry origin resolved to, recorded with the file. */
  registry?: RegistryResolution;
  /** This source's files that served their purpose once the ISO is installed (a downloaded zip). */
  leftovers: readonly string[];
}

/**
 * Which failed writes lose the `.part` (the pipeline removes it and its sidecars):
 *   any-failure      it cannot be resumed (a block device is copied from the first byte)
 *   content-failure  a `never` error (wrong bytes do not get better) or a full disk; a transient
 *                    failure keeps it to resume
 *   full-disk        only a full disk (the downloader removes its `.part` itself then)
 */
export type PartDiscard = 'any-failure' | 'content-failure' | 'full-disk';

/**
 * Whether a write that failed with `err` loses its `.part` under `policy`; `aborted`: the store is
 * closing (the `.part` stays for a resume unless it can never be resumed).
 */
export function losesPart(policy: PartDiscard, err: unknown, aborted: boolean): boolean {
  if (policy === 'any-failure') return true;
  if (aborted) return false;
  return diskFullCode(err) !== undefined || (policy === 'content-failure' && retryClassOf(err) === 'never');
}

export interface ImageOrigin {
  /** The path, or the URL without credentials or query, for logs and messages. */
  readonly description: string;
  readonly discardPartOn: PartDiscard;
  /**
   * The object the ISO is downloaded from, readable by range before the download ends
   * (IMAGE_SERVE_WHILE_DOWNLOADING); only an origin that downloads the ISO as one object has one.
   */
  readonly rangeSource?: RemoteSource;
  /**
   * The file to use where it lies, nothing written to the cache (a local regular file); undefined
   * when the ISO is to be written. Asked only when no cached copy of this source is recorded.
   */
  inPlace?(label: string): Promise<{ path: string; size: number } | undefined>;
  /** Writes the ISO into `target.files.isoPart`; throws an error carrying its retry class. */
  write(target: OriginWrite): Promise<WrittenIso>;
  /** Releases what the origin holds open (an S3 client); the store is closing. */
  close(): void;
}
