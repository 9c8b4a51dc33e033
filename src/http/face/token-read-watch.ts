// The image face's side of the token-read port (src/image-ports/token-read-observer.ts): watches
// the response of a discovery ISO opened by a short opaque token (`/bytoken/<token>/…`) and, once
// it finished (all bytes handed to the socket), reports a HEAD, or a 200 or 206 GET with the byte
// ranges its body carried: the segments of the range layer's plan, which the returned hook is
// handed (src/http/representation/response-plan.ts; the Range header is not parsed again).
// Costs one listener per request; the hash (hashUrlToken) is computed only then.
// Does NOT: report 304/412/416 answers or aborted responses (nothing was read), dedupe, wait for
// the observer, or hash anything but opaque tokens (a JWT names its InfraEnv itself and is not a
// boot job's).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TokenReadObserver } from '../../image-ports/token-read-observer.js';
import { hashUrlToken } from '../../image-ports/url-token-resolver.js';
import type { Extent } from '../../iso/manifest.js';
import type { ResponsePlan, Segment } from '../representation/response-plan.js';
import { clientAddress } from './boot-event-report.js';

/**
 * Reports `req` to `observer` once its response finished. Returns the hook that the range layer
 * hands its plan to (ServeHooks.onPlan): a GET is reported with the plan's body segments.
 */
export function watchTokenRead(
  observer: TokenReadObserver,
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
  size: number,
  bootExtents: readonly Extent[] | undefined,
  now: () => Date = () => new Date(),
): ((plan: ResponsePlan) => void) | undefined {
  const method = req.method === 'HEAD' ? 'HEAD' : req.method === 'GET' ? 'GET' : undefined;
  if (method === undefined) return undefined;
  let planned: readonly Segment[] | undefined;
  res.once('finish', () => {
    let ranges: [number, number][];
    if (method === 'HEAD') {
      if (res.statusCode !== 200) return;
      ranges = [];
    } else if ((res.statusCode === 200 || res.statusCode === 206) && planned !== undefined) {
      ranges = planned.map((s): [number, number] => [s.start, s.end + 1]);
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
  return (plan) => {
    planned = plan.segments;
  };
}
