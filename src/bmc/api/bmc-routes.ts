// bootsmith's extension API for BMCs, mounted at EXTENSION_API_PREFIX (/api/bootsmith/v1, apart
// from upstream's /api/assisted-install): one handler per endpoint, all admin-only
// (AUTH_TYPE=local: the admin token; AUTH_TYPE=none: anyone, as the rest of the API).
//
//   POST   /bmcs                       create (201): sealed credentials, a refresh job queued at once
//   GET    /bmcs[?infra_env_id=ID]     list, each with state, last job and inventory
//   GET    /bmcs/{bmc}                 show ({bmc}: the id or the name)
//   PATCH  /bmcs/{bmc}                 update (200); credentials replaced, never returned
//   DELETE /bmcs/{bmc}[?force=true]    remove (204); 409 while a job is queued or running
//   POST   /bmcs/{bmc}/jobs            queue a job (201): {action, boot_mode?, eject?, infra_env_id?}; 409 when one runs
//   GET    /bmcs/{bmc}/jobs            the BMC's jobs, newest first
//   GET    /bmcs/{bmc}/jobs/{job}      one job with its steps
//
// Errors are the core's answers (upstream's body shapes, statuses from src/error-status.ts): 400
// naming the field, 401/403, 404 naming the BMC, 409 naming the BMC and the job, 503 while the
// credentials key is unusable. Does NOT: talk to BMCs (jobs do) or echo a password or a CA.
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, Router } from 'express';
import { queryBoolean, queryUuid } from '../../core/http/request.js';
import { methodGuard } from '../../core/http/method-guard.js';
import { parseBmcBody, parseJobBody } from '../bmc-input.js';
import type { BmcService } from '../bmc-service.js';

/** Request bodies: a BMC with a CA bundle (MAX_CA_PEM_BYTES, 256 KiB) and its other fields. */
export const BMC_API_BODY_LIMIT_BYTES = 512 * 1024;

export interface BmcRouteParts {
  service: BmcService;
  authorizeAdmin(req: Request): Promise<void>;
  errorHandler: ErrorRequestHandler;
}

function handle(parts: BmcRouteParts, fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req, res, next) => {
    parts
      .authorizeAdmin(req)
      .then(() => fn(req, res))
      .catch(next);
  };
}

function param(req: Request, name: string): string {
  return String((req.params as Record<string, string>)[name] ?? '');
}

export function bmcRoutes(parts: BmcRouteParts): Router {
  const { service } = parts;
  const router = Router();
  router.use(express.json({ limit: BMC_API_BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'] }));

  router.post(
    '/bmcs',
    handle(parts, async (req, res) => {
      res
        .status(201)
        .set('Cache-Control', 'no-store')
        .json(await service.create(parseBmcBody(req.body, 'create')));
    }),
  );
  router.get(
    '/bmcs',
    handle(parts, async (req, res) => {
      const infraEnvId = queryUuid(req, 'infra_env_id');
      res.set('Cache-Control', 'no-store').json(await service.list(infraEnvId ? { infraEnvId } : {}));
    }),
  );
  router.get(
    '/bmcs/:bmc',
    handle(parts, async (req, res) => {
      res.set('Cache-Control', 'no-store').json(await service.show(param(req, 'bmc')));
    }),
  );
  router.patch(
    '/bmcs/:bmc',
    handle(parts, async (req, res) => {
      res
        .set('Cache-Control', 'no-store')
        .json(await service.update(param(req, 'bmc'), parseBmcBody(req.body, 'update')));
    }),
  );
  router.delete(
    '/bmcs/:bmc',
    handle(parts, async (req, res) => {
      await service.remove(param(req, 'bmc'), queryBoolean(req, 'force') === true);
      res.status(204).end();
    }),
  );
  router.post(
    '/bmcs/:bmc/jobs',
    handle(parts, async (req, res) => {
      res
        .status(201)
        .set('Cache-Control', 'no-store')
        .json(await service.queue(param(req, 'bmc'), parseJobBody(req.body)));
    }),
  );
  router.get(
    '/bmcs/:bmc/jobs',
    handle(parts, async (req, res) => {
      res.set('Cache-Control', 'no-store').json(await service.jobs(param(req, 'bmc')));
    }),
  );
  router.get(
    '/bmcs/:bmc/jobs/:job',
    handle(parts, async (req, res) => {
      res.set('Cache-Control', 'no-store').json(await service.job(param(req, 'bmc'), param(req, 'job')));
    }),
  );
  router.use(methodGuard(router));
  router.use(parts.errorHandler);
  return router;
}
