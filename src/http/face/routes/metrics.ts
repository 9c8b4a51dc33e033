// GET /metrics: the Prometheus text exposition of this process's registry.
import { Router } from 'express';
import type { Metrics } from '../../../metrics.js';

export function metricsRoutes(metrics: Metrics): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
}
