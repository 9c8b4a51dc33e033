// bootsmith's extension API for BMCs, mounted at EXTENSION_API_PREFIX (/api/bootsmith/v1, apart
// from upstream's /api/assisted-install): one handler per endpoint, all admin-only
// (AUTH_TYPE=local: the admin token; AUTH_TYPE=none: anyone, as the rest of the API) — who may
// set a BMC's address, and so where the service connects with its credentials, is who holds it.
//
//   POST   /bmcs                       create (201): sealed credentials, a refresh job queued at once
//   GET    /bmcs[?infra_env_id=ID]     list, each with state, last job and inventory
//   GET    /bmcs/{bmc}                 show ({bmc}: the id or the name)
//   PATCH  /bmcs/{bmc}                 update (200); credentials replaced, never returned
//   DELETE /bmcs/{bmc}[?force=true]    remove (204); 409 while a job is queued or running
//   POST   /bmcs/{bmc}/jobs            queue a job (201): {action, boot_mode?, eject?, infra_env_id?}; 409 when one runs
//   GET    /bmcs/{bmc}/jobs            the BMC's jobs, newest first
//   GET    /bmcs/{bmc}/jobs/{job}      one job with its steps
//   POST   /bmcs/{bmc}/jobs/{job}/actions/cancel
//                                      cancel (upstream's `actions/cancel` shape): 202 with the job while
//                                      it ends at its next step boundary, 200 with it once it has ended
//                                      (a queued one at once; cancelling again, or an ended job: no change)
//   POST   /token-reads                reads of a `/bytoken/` ISO URL served by an image side fronting
//                                      this core (src/image-ports/remote/remote-token-reads.ts), the
//                                      token in Image-Token: signed with IMAGE_REPLICA_KEY_FILE when this
//                                      core has one (src/image-ports/remote/replica-proof.ts: the URL
//                                      token alone would let whoever saw the URL mark a job booted), else
//                                      admin-only as the rest; 204 whether or not it is a job's (nothing
//                                      is revealed)
//
// Errors are the core's answers (upstream's body shapes, statuses from src/error-status.ts): 400
// naming the field, 401/403, 404 naming the BMC, 409 naming the BMC and the job, 503 while the
// credentials key is unusable. Does NOT: talk to BMCs (jobs do) or echo a password or a CA.
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, Router } from 'express';
import { queryBoolean, queryUuid } from '../../platform/api/request.js';
import { methodGuard } from '../../platform/api/method-guard.js';
import { parseBmcBody, parseJobBody } from '../bmc-input.js';
import type { BmcService } from '../bmc-service.js';
import { BadRequestError, UnauthorizedError, UnavailableError } from '../../errors.js';
import { hashUrlToken } from '../../image-ports/url-token-resolver.js';
import {
  isReplicaProof,
  REPLICA_KEY_SETTING,
  REPLICA_PROOF_HEADER,
  type ReplicaKey,
} from '../../image-ports/remote/replica-proof.js';
import type { TokenReadReport } from '../../image-ports/token-read-observer.js';
import type { ReadRange } from '../store/records.js';

/** Reads in one POST /token-reads, ranges per read, boot extents: what the image side sends, bounded. */
const MAX_REMOTE_READS = 256;
const MAX_REMOTE_RANGES = 64;
const MAX_REMOTE_EXTENTS = 8;
const TOKEN_RE = /^[A-Za-z0-9_-]{1,64}$/;

function rangesOf(v: unknown, max: number, field: string): ReadRange[] {
  if (!Array.isArray(v) || v.length > max) throw new BadRequestError(`${field}: a list of at most ${max} ranges`);
  return v.map((r) => {
    if (!Array.isArray(r) || r.length !== 2 || !r.every((n) => Number.isSafeInteger(n) && (n as number) >= 0))
      throw new BadRequestError(`${field}: each range is [start, end], whole numbers`);
    const [start, end] = r as [number, number];
    if (end < start) throw new BadRequestError(`${field}: a range ends before it starts`);
    return [start, end];
  });
}

/** The reads a fronting image side sent, checked field by field (400 naming the field). */
export function parseRemoteReads(token: string | undefined, body: unknown): TokenReadReport[] {
  if (!token || !TOKEN_RE.test(token)) throw new BadRequestError('Image-Token: a short image URL token is required');
  const reads = (body as { reads?: unknown } | null)?.reads;
  if (!Array.isArray(reads) || reads.length > MAX_REMOTE_READS)
    throw new BadRequestError(`reads: a list of at most ${MAX_REMOTE_READS} reads`);
  const tokenHash = hashUrlToken(token);
  return reads.map((r: Record<string, unknown>, i) => {
    const at = typeof r?.at === 'string' ? new Date(r.at) : new Date(NaN);
    if (r?.method !== 'GET' && r?.method !== 'HEAD') throw new BadRequestError(`reads[${i}].method: GET or HEAD`);
    if (!Number.isSafeInteger(r.size) || (r.size as number) < 0)
      throw new BadRequestError(`reads[${i}].size: a byte count`);
    if (typeof r.address !== 'string' || r.address.length > 64)
      throw new BadRequestError(`reads[${i}].address: an address`);
    if (Number.isNaN(at.getTime())) throw new BadRequestError(`reads[${i}].at: an ISO 8601 time`);
    return {
      tokenHash,
      token,
      method: r.method,
      ranges: rangesOf(r.ranges, MAX_REMOTE_RANGES, `reads[${i}].ranges`),
      size: r.size as number,
      bootExtents: rangesOf(r.boot_extents, MAX_REMOTE_EXTENTS, `reads[${i}].boot_extents`),
      address: r.address,
      at,
    };
  });
}

/** Request bodies: a BMC with a CA bundle (MAX_CA_PEM_BYTES, 256 KiB) and its other fields. */
export const BMC_API_BODY_LIMIT_BYTES = 512 * 1024;

export interface BmcRouteParts {
  service: BmcService;
  /** This replica's read tracker (jobs/read-tracker.ts). */
  reads: { report(report: TokenReadReport): void };
  authorizeAdmin(req: Request): Promise<void>;
  /** IMAGE_REPLICA_KEY_FILE's key (or why it is unusable); undefined when not set. */
  replicaKey: ReplicaKey | undefined;
  errorHandler: ErrorRequestHandler;
}

/** How long a client is told to wait while the replica key is unusable (a mounted Secret being filled). */
const REPLICA_KEY_RETRY_SECONDS = 60;

/**
 * Who may report reads of a job URL: an image replica that signed the report with this core's
 * key; without a key, whoever the extension API lets in (the admin, or anyone with AUTH_TYPE=none).
 */
async function authorizeReadReport(parts: BmcRouteParts, req: Request, body: Buffer): Promise<void> {
  const configured = parts.replicaKey;
  if (configured === undefined) return parts.authorizeAdmin(req);
  if ('problem' in configured) throw new UnavailableError(configured.problem, REPLICA_KEY_RETRY_SECONDS);
  if (!isReplicaProof(configured.key, req.get('image-token') ?? '', body, req.get(REPLICA_PROOF_HEADER)))
    throw new UnauthorizedError(
      `${REPLICA_PROOF_HEADER}: reports of a job URL's reads are taken from image replicas that sign them with this core's ${REPLICA_KEY_SETTING}`,
    );
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
  // The body as sent, for the signature of a read report (the parsed one may re-serialize otherwise).
  const sent = new WeakMap<object, Buffer>();
  router.use(
    express.json({
      limit: BMC_API_BODY_LIMIT_BYTES,
      type: ['application/json', 'application/*+json'],
      verify: (req, _res, buf) => void sent.set(req, buf),
    }),
  );

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
  router.post(
    '/bmcs/:bmc/jobs/:job/actions/cancel',
    handle(parts, async (req, res) => {
      const { job, ending } = await service.cancel(param(req, 'bmc'), param(req, 'job'));
      res
        .status(ending ? 202 : 200)
        .set('Cache-Control', 'no-store')
        .json(job);
    }),
  );
  router.post('/token-reads', (req, res, next) => {
    authorizeReadReport(parts, req, sent.get(req) ?? Buffer.alloc(0))
      .then(() => {
        for (const report of parseRemoteReads(req.get('image-token'), req.body)) parts.reads.report(report);
        res.status(204).end();
      })
      .catch(next);
  });
  router.use(methodGuard(router));
  router.use(parts.errorHandler);
  return router;
}
