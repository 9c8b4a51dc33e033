// The image face's side of the token-read port (src/image-ports/token-read-observer.ts): watches
// the response of a discovery ISO opened by a short opaque token (`/bytoken/<token>/…`) and, once
// it finished (all bytes handed to the socket), reports a HEAD, a 206 with the ranges of the
// request's Range header (parsed by the range layer's own parser), or a 200 GET as the whole file.
// Costs one listener per request; the hash (hashUrlToken) is computed only then.
// Does NOT: report 304/412/416 answers or aborted responses (nothing was read), dedupe, wait for
// the observer, or hash anything but opaque tokens (a JWT names its InfraEnv itself and is not a
// boot job's).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TokenReadObserver } from '../../image-ports/token-read-observer.js';
import { hashUrlToken } from '../../image-ports/url-token-resolver.js';
import type { Extent } from '../../iso/manifest.js';
import { parseRange } from '../representation/range.js';
import { clientAddress } from './boot-event-report.js';

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
    observer.tokenRead({
      tokenHash: hashUrlToken(token),
      token,
      method,
      ranges,
      size,
      bootExtents: (bootExtents ?? []).map((e): [number, number] => [e.offset, e.offset + e.length]),
      address: clientAddress(req),
      at: now(),
    });
  });
}
