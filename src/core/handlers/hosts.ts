// /v2/infra-envs/{id}/hosts: register (201 host_registration_response), list, get, update (201),
// deregister (204), {host_id}/ignition and {host_id}/progress.
//
// Registration and progress are agent calls (X-Secret-Key under AUTH_TYPE=local).
// Host ignition follows upstream: hosts not bound to a cluster get 404 (this core
// has no clusters, so every host is unbound).
import type { Router } from 'express';
import { BadRequestError, NotFoundError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import { deleteHost, registerHost, updateHost, updateProgress } from '../host/service.js';
import { isUuid } from '../../uuid.js';
import { getInfraEnvOr404 } from '../infraenv/service.js';
import { authorize, uuidParam, wrap } from '../http/request.js';
import { renderHost } from '../render.js';
import { assertCleanText } from '../validation/text.js';

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadRequestError('request body must be a JSON object');
  return body as Record<string, unknown>;
}

export function registerHostRoutes(router: Router, ctx: CoreContext): void {
  router.post(
    '/v2/infra-envs/:infra_env_id/hosts',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      await authorize(ctx, req, { infraEnvId });
      const body = bodyObject(req.body);
      if (typeof body.host_id !== 'string' || !isUuid(body.host_id))
        throw new BadRequestError('host_id is required and must be a UUID');
      const agentVersion =
        typeof body.discovery_agent_version === 'string'
          ? body.discovery_agent_version
          : (req.get('discovery_agent_version') ?? req.get('discovery-agent-version') ?? '');
      assertCleanText('discovery_agent_version', agentVersion, 'line');
      const hostId = body.host_id.toLowerCase();
      const h = await registerHost(ctx, infraEnvId, hostId, agentVersion);
      const request = { infra_env_id: infraEnvId, host_id: hostId, agent_version: ctx.settings.agentImage };
      res.status(201).json({
        ...renderHost(h),
        next_step_runner_command: { command: '', args: [JSON.stringify(request)], retry_seconds: 60 },
      });
    }),
  );

  router.get(
    '/v2/infra-envs/:infra_env_id/hosts',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      await authorize(ctx, req, { infraEnvId });
      await getInfraEnvOr404(ctx.repo, infraEnvId);
      res.json((await ctx.repo.listHosts(infraEnvId)).map(renderHost));
    }),
  );

  router.get(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      const h = await ctx.repo.getHost(infraEnvId, hostId);
      if (!h) throw new NotFoundError(`host ${hostId} not found in infra-env ${infraEnvId}`);
      res.json(renderHost(h));
    }),
  );

  router.patch(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      const h = await updateHost(ctx, infraEnvId, hostId, bodyObject(req.body));
      res.status(201).json(renderHost(h));
    }),
  );

  router.delete(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      await deleteHost(ctx, infraEnvId, hostId);
      res.status(204).end();
    }),
  );

  router.get(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id/ignition',
    wrap(async (req) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      const h = await ctx.repo.getHost(infraEnvId, hostId);
      if (!h) throw new NotFoundError(`host ${hostId} not found in infra env ${infraEnvId}`);
      throw new NotFoundError(`Cluster not found for host ${hostId} in infra env ${infraEnvId}`);
    }),
  );

  router.put(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id/progress',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      await updateProgress(ctx, infraEnvId, hostId, bodyObject(req.body));
      res.status(200).end();
    }),
  );
}
