// The seam through which the image side reports every answered request of a discovery ISO opened
// by a short opaque image token (`/bytoken/<token>/…`): which token (its sha256, never the token),
// which byte ranges were served, and where the ISO's boot files lie. A BMC boot job mints a token
// of its own, so these reports are that BMC reading the ISO (src/bmc/jobs/read-tracker.ts).
//
// Does: watch the response and, once it finished (all bytes handed to the socket), report a HEAD,
// a 206 with the ranges of the request's Range header (parsed by the range layer's own parser), or
// a 200 GET as the whole file. Costs one listener per request; the hash is computed only then.
// Does NOT: report 304/412/416 answers or aborted responses (nothing was read), dedupe, wait for
// the observer, or hash anything but opaque tokens (a JWT names its InfraEnv itself and is not a
// boot job's). The hash is the one every side names URL tokens by (src/image-ports/url-token-resolver.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hashUrlToken } from '../../image-ports/url-token-resolver.js';
import type { Extent } from '../../iso/manifest.js';
import { parseRange } from '../representation/range.js';

/** One answered request of an ISO opened by a short token. Ranges are half-open [start, end). */
export interface TokenReadReport {
  tokenHash: string;
  /**
   * The token itself, for an observer that must prove it to the core it fronts (remote mode:
   * src/image-ports/remote/remote-token-reads.ts sends it in a header, as it resolves tokens). Never
   * logged or stored; an in-process observer uses only the hash.
   */
  token: string;
  method: 'GET' | 'HEAD';
  ranges: readonly [number, number][];
  size: number;
  bootExtents: readonly [number, number][];
  address: string;
  at: Date;
}

export interface TokenReadObserver {
  /** Called once per answered request; must not throw or block. */
  tokenRead(report: TokenReadReport): void;
}

/** Reports `req` to `observer` once its response finished. */
export function watchTokenRead(
  observer: TokenReadObserver,
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
  size: number,
  bootExtents: readonly Extent[] | undefined,
  now: () => Date = () => new Date(),
): void {
  const method = req.method === 'HEAD' ? 'HEAD' : req.method === 'GET' ? 'GET' : undefined;
  if (method === undefined) return;
  res.once('finish', () => {
    let ranges: [number, number][];
    if (method === 'HEAD') {
      if (res.statusCode !== 200) return;
      ranges = [];
    } else if (res.statusCode === 200) {
      ranges = size > 0 ? [[0, size]] : [];
    } else if (res.statusCode === 206) {
      const parsed = parseRange(req.headers.range, size);
      if (parsed.kind !== 'ranges') return;
      ranges = parsed.ranges.map((r): [number, number] => [r.start, r.end + 1]);
    } else {
      return;
    }
    const address = req.socket.remoteAddress ?? 'unknown';
    observer.tokenRead({
      tokenHash: hashUrlToken(token),
      token,
      method,
      ranges,
      size,
      bootExtents: (bootExtents ?? []).map((e): [number, number] => [e.offset, e.offset + e.length]),
      address: address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address,
      at: now(),
    });
  });
}
