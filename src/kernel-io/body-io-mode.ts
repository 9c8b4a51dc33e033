// HTTP_BODY_IO: how the serving path reads and sends artifact bodies, and what a mode comes to on
// this machine (the addon may be missing).
//
//   auto      with the kernel I/O addon: bytes already in the page cache go to a plain-HTTP socket
//             as views of a read-only mapping of the base file (the kernel copies them from the
//             page cache: one copy, not two), each read's last page read and checked; over TLS,
//             and for short reads, cached pages are read on the event loop (preadv2 RWF_NOWAIT; no
//             hand-off to libuv's pool and back); other reads go to the pool. Without the addon:
//             as portable.
//   sendfile  as auto, and file bytes go to plain-HTTP sockets by sendfile(2) (one copy fewer in
//             this process; docs/operator/performance.md says what it trades).
//   portable  every read on libuv's pool, without the addon (the path before the addon existed).
//
// Does: name the modes and the default, and resolve a mode against the addon's availability.
// Does NOT: read the environment (src/config.ts does) or serve anything.
import { type KernelIo, loadKernelIo } from './native-binding.js';

export const BODY_IO_MODES = ['auto', 'sendfile', 'portable'] as const;
export type BodyIoMode = (typeof BODY_IO_MODES)[number];
/**
 * `auto`, from the quiet-machine figures of `npm run bench:issue-35` (bench/README.md, issue 35):
 * against `portable` it serves the range storm at 0.92–0.97× nginx's rate instead of 0.85–0.87×,
 * at 0.89–0.92× nginx's whole-machine CPU per request instead of 1.05×, with a lower p99.
 * `sendfile` was behind both there (0.66×). On a machine kept busy by other work `portable`'s pool
 * threads win more of the CPU; operators choose it with HTTP_BODY_IO.
 */
export const DEFAULT_BODY_IO: BodyIoMode = 'auto';

export interface ResolvedBodyIo {
  /** What the serving path gets: the addon and whether to sendfile; undefined = portable. */
  kernelIo: { io: KernelIo; sendfile: boolean } | undefined;
  /** One line for the start-up log. */
  summary: string;
}

export function resolveBodyIo(mode: BodyIoMode): ResolvedBodyIo {
  if (mode === 'portable') return { kernelIo: undefined, summary: 'portable (HTTP_BODY_IO=portable)' };
  const loaded = loadKernelIo();
  if (!('io' in loaded)) return { kernelIo: undefined, summary: `portable: ${loaded.missing}` };
  const sendfile = mode === 'sendfile';
  return {
    kernelIo: { io: loaded.io, sendfile },
    summary: sendfile ? 'cached reads on the event loop, sendfile to plain sockets' : 'cached reads on the event loop',
  };
}
