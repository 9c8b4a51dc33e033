// Liveness and readiness:
//   GET /live    200 as long as the process serves HTTP
//   GET /health  200 when at least one base image is ready (503 otherwise), with every
//                image's state and reason, the configuration problems found at start, and
//                `warnings`: what exposes the service or hands out URLs BMCs cannot reach
//                (src/startup/reachability.ts);
//                with the assisted API also `database` (engine, state, notices such as how to
//                move a PGlite-era DATA_DIR); with native TLS also `tls` (the serving
//                certificate's subject, issuer, notAfter and fingerprint, the last reload; never the key).
//                503 `draining` once a graceful drain started
//                (SIGTERM), whatever the images' state, so load balancers stop sending work.
//                On the image side also `artifact_slots` (src/http/face/request-cap.ts): in flight,
//                limits, `saturated`, refusals and cuts. Saturation does not make it 503: under a
//                flood every replica saturates at once, and failing readiness on all of them would
//                take the whole image side out of the balancer; the 503 of the refused request
//                (with Retry-After) is the back-pressure, `saturated` the signal to alert on.
import { Router } from 'express';
import { URL_SHAPE, expressPath } from '../../../url-grammar.js';
import type { ImageStore } from '../../../images/catalog/image-store.js';
import type { ArtifactSlotsStatus } from '../request-cap.js';
import type { CertificateStatus } from '../../transport/tls/certificate-reloader.js';

export type DatabaseHealth = () => { engine: string; state: string; notices: string[] };
export type TlsHealth = () => CertificateStatus;

export function healthRoutes(
  imageStore: ImageStore | undefined,
  database?: DatabaseHealth,
  draining?: () => boolean,
  tls?: TlsHealth,
  artifactSlots?: () => ArtifactSlotsStatus,
  warnings: readonly string[] = [],
): Router {
  const router = Router();
  router.get(expressPath(URL_SHAPE.liveness), (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get(['/health', '/ready'], (_req, res) => {
    if (draining?.()) {
      res.status(503).set('Cache-Control', 'no-store').json({ status: 'draining' });
      return;
    }
    if (!imageStore) {
      res.json({
        status: 'ok',
        images: [],
        warnings,
        ...(database ? { database: database() } : {}),
        ...(tls ? { tls: tls() } : {}),
      });
      return;
    }
    const health = imageStore.health();
    res
      .status(health.ready ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json({
        status: health.ready ? 'ok' : 'no base image is ready',
        images: health.images,
        problems: health.problems,
        ...(artifactSlots ? { artifact_slots: artifactSlots() } : {}),
        warnings,
        ...(database ? { database: database() } : {}),
        ...(tls ? { tls: tls() } : {}),
      });
  });
  return router;
}
