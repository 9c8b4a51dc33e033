// /v2/infra-envs: register (201), list (?cluster_id), get (200), update (201), deregister (204),
// downloads/image-url (presigned-url) and regenerate-signing-key (204).
//
// Create/list need an admin credential under AUTH_TYPE=local; the rest are scoped to the
// InfraEnv in the path. Bodies are bound against upstream's models first (unknown fields ignored,
// schema violations 422: validation/body-models.ts); semantic validation and storage are in
// infraenv/params.ts and infraenv/service.ts. This core has no clusters, so a `cluster_id` names no
// known cluster and is answered as upstream's RegisterInfraEnvInternal answers one: 404
// `Cluster ID <id> does not exist`.
import type { Router } from 'express';
import { NotFoundError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import { parseInfraEnvParams } from '../infraenv/params.js';
import { INFRA_ENV_CREATE, INFRA_ENV_UPDATE } from '../validation/body-models.js';
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
import { authorize, bound } from '../http/request.js';
import { queryUuid, uuidParam, wrap } from '../../platform/api/request.js';
import { NEVER_EXPIRES, renderInfraEnv } from '../render.js';

export function registerInfraEnvRoutes(router: Router, ctx: CoreContext): void {
  router.post(
    '/v2/infra-envs',
    wrap(async (req, res) => {
      await authorize(ctx, req, {});
      const body = bound(ctx, req, INFRA_ENV_CREATE);
      // upstream looks the cluster up before any other check of the parameters
      if (typeof body.cluster_id === 'string')
        throw new NotFoundError(`Cluster ID ${body.cluster_id.toLowerCase()} does not exist`);
      const rec = await createInfraEnv(ctx, parseInfraEnvParams(body, 'create'));
      ctx.logger.info({ infraEnvId: rec.id }, 'infra-env registered');
      res.status(201).json(renderInfraEnv(rec, await publishedDownloadUrl(ctx, rec)));
    }),
  );

  router.get(
    '/v2/infra-envs',
    wrap(async (req, res) => {
      await authorize(ctx, req, {});
      const clusterId = queryUuid(req, 'cluster_id');
      const list = await ctx.repo.listInfraEnvs(clusterId ? { clusterId } : {});
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
      const rec = await updateInfraEnv(ctx, id, parseInfraEnvParams(bound(ctx, req, INFRA_ENV_UPDATE), 'update'));
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
