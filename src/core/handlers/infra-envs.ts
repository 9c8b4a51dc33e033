// /v2/infra-envs: register (201), list (?cluster_id), get (200), update (201), deregister (204),
// downloads/image-url (presigned-url) and regenerate-signing-key (204).
//
// Create/list need an admin credential under AUTH_TYPE=local; the rest are scoped to the
// InfraEnv in the path. Validation and storage are in infraenv/params.ts and infraenv/service.ts.
import type { Router } from 'express';
import { BadRequestError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import { isUuid } from '../../uuid.js';
import { parseInfraEnvParams } from '../infraenv/params.js';
import {
  createInfraEnv,
  deleteInfraEnv,
  getInfraEnvOr404,
  presignedDownloadUrl,
  publishedDownloadUrl,
  publishedDownloadUrls,
  regenerateSigningKey,
  updateInfraEnv,
} from '../infraenv/service.js';
import { authorize, queryString, uuidParam, wrap } from '../http/request.js';
import { NEVER_EXPIRES, renderInfraEnv } from '../render.js';

export function registerInfraEnvRoutes(router: Router, ctx: CoreContext): void {
  router.post(
    '/v2/infra-envs',
    wrap(async (req, res) => {
      await authorize(ctx, req, {});
      const rec = await createInfraEnv(ctx, parseInfraEnvParams(req.body, 'create'));
      ctx.logger.info({ infraEnvId: rec.id }, 'infra-env registered');
      res.status(201).json(renderInfraEnv(rec, await publishedDownloadUrl(ctx, rec)));
    }),
  );

  router.get(
    '/v2/infra-envs',
    wrap(async (req, res) => {
      await authorize(ctx, req, {});
      const clusterId = queryString(req, 'cluster_id');
      if (clusterId !== undefined && !isUuid(clusterId)) throw new BadRequestError('cluster_id must be a UUID');
      const list = await ctx.repo.listInfraEnvs(clusterId ? { clusterId: clusterId.toLowerCase() } : {});
      const urls = await publishedDownloadUrls(ctx, list);
      res.json(list.map((r, i) => renderInfraEnv(r, urls[i]!)));
    }),
  );

  router.get(
    '/v2/infra-envs/:infra_env_id',
    wrap(async (req, res) => {
      const id = uuidParam(req, 'infra_env_id');
      await authorize(ctx, req, { infraEnvId: id, allowImageToken: true });
      const rec = await getInfraEnvOr404(ctx.repo, id);
      res.json(renderInfraEnv(rec, await publishedDownloadUrl(ctx, rec)));
    }),
  );

  router.patch(
    '/v2/infra-envs/:infra_env_id',
    wrap(async (req, res) => {
      const id = uuidParam(req, 'infra_env_id');
      await authorize(ctx, req, { infraEnvId: id });
      const rec = await updateInfraEnv(ctx, id, parseInfraEnvParams(req.body, 'update'));
      res.status(201).json(renderInfraEnv(rec, await publishedDownloadUrl(ctx, rec)));
    }),
  );

  router.delete(
    '/v2/infra-envs/:infra_env_id',
    wrap(async (req, res) => {
      const id = uuidParam(req, 'infra_env_id');
      await authorize(ctx, req, { infraEnvId: id });
      await deleteInfraEnv(ctx, id);
      ctx.logger.info({ infraEnvId: id }, 'infra-env deregistered');
      res.status(204).end();
    }),
  );

  router.get(
    '/v2/infra-envs/:infra_env_id/downloads/image-url',
    wrap(async (req, res) => {
      const id = uuidParam(req, 'infra_env_id');
      await authorize(ctx, req, { infraEnvId: id });
      const rec = await getInfraEnvOr404(ctx.repo, id);
      const { url, expiresAt } = await presignedDownloadUrl(ctx, rec);
      res.json({ url, expires_at: expiresAt ? expiresAt.toISOString() : NEVER_EXPIRES });
    }),
  );

  router.post(
    '/v2/infra-envs/:infra_env_id/regenerate-signing-key',
    wrap(async (req, res) => {
      const id = uuidParam(req, 'infra_env_id');
      await authorize(ctx, req, { infraEnvId: id });
      await regenerateSigningKey(ctx, id);
      res.status(204).end();
    }),
  );
}
