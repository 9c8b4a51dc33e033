// Liveness and readiness:
//   GET /live    200 as long as the process serves HTTP
//   GET /health  the wings' parts of the document (src/assembly/: each wing that has something to
//                report hands a HealthPart), 503 when a part says the process is not ready:
//                the image store's every image with its state and reason and the configuration
//                problems found at start (503 until one base image is ready); `warnings`: what
//                exposes the service or hands out URLs BMCs cannot reach (src/startup/reachability.ts);
//                with the assisted API also `database` (engine, state, notices such as how to
//                move a PGlite-era DATA_DIR); with native TLS also `tls` (the serving
//                certificate's subject, issuer, notAfter and fingerprint, the last reload; never the key).
//                503 `draining` once a graceful drain started
//                (SIGTERM), whatever the parts say, so load balancers stop sending work.
//                On the image side also `artifact_slots` (src/http/face/request-cap.ts): in flight,
//                limits, `saturated`, refusals and cuts. Saturation does not make it 503: under a
//                flood every replica saturates at once, and failing readiness on all of them would
//                take the whole image side out of the balancer; the 503 of the refused request
//                (with Retry-After) is the back-pressure, `saturated` the signal to alert on.
// Does NOT: know which wings run or what a part reads (the parts do).
import { Router } from 'express';
import { URL_SHAPE, expressPath } from '../../../url-grammar.js';

/** What one part reads at a /health request: its fields, and the status it gives when not ready. */
export interface HealthReading {
  fields: Record<string, unknown>;
  /** Set when this part holds readiness back: /health is 503 with this status. */
  unready?: string;
}

/** One wing's (or the listeners') part of /health, read at each request. */
export type HealthPart = () => HealthReading;

/**
 * The fields the document has always had, in the order it shows them, whichever part adds them;
 * a field not named here (a new wing's) follows them in the order of the parts.
 */
const FIELD_ORDER = ['status', 'images', 'problems', 'artifact_slots', 'warnings', 'database', 'tls'];

export function healthRoutes(parts: readonly HealthPart[] = [], draining?: () => boolean): Router {
  const router = Router();
  router.get(expressPath(URL_SHAPE.liveness), (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get(['/health', '/ready'], (_req, res) => {
    if (draining?.()) {
      res.status(503).set('Cache-Control', 'no-store').json({ status: 'draining' });
      return;
    }
    const readings = parts.map((read) => read());
    const unready = readings.find((r) => r.unready !== undefined)?.unready;
    const document: Record<string, unknown> = { status: unready ?? 'ok' };
    for (const reading of readings) Object.assign(document, reading.fields);
    res
      .status(unready === undefined ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json(inFieldOrder(document));
  });
  return router;
}

function inFieldOrder(document: Record<string, unknown>): Record<string, unknown> {
  const rank = (key: string) => (FIELD_ORDER.includes(key) ? FIELD_ORDER.indexOf(key) : FIELD_ORDER.length);
  return Object.fromEntries(Object.entries(document).sort(([a], [b]) => rank(a) - rank(b)));
}
