// /v2/infra-envs/{id}/hosts: register (201 host_registration_response), list, get, update (201),
// deregister (204), {host_id}/ignition, {host_id}/progress, {host_id}/logs-progress (204) and
// {host_id}/actions/reset (200).
//
// Registration and both progress calls are agent calls (X-Secret-Key under AUTH_TYPE=local).
// Bodies are bound against upstream's models first (validation/body-models.ts: 400/422 as
// go-swagger answers). Host ignition and install progress follow upstream for hosts not bound to
// a cluster (this core has no clusters, so every host is unbound): 404 and 400.
import type { Router } from 'express';
import { NotFoundError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import {
  deleteHost,
  registerHost,
  resetHost,
  updateHost,
  updateLogsProgress,
  updateProgress,
} from '../host/service.js';
import { getInfraEnvOr404 } from '../infraenv/service.js';
import { authorize, bound } from '../http/request.js';
import { uuidParam, wrap } from '../../platform/api/request.js';
import { renderHost } from '../render.js';
import { HOST_CREATE, HOST_PROGRESS, HOST_UPDATE, LOGS_PROGRESS } from '../validation/body-models.js';
import { assertCleanText } from '../../platform/api/clean-text.js';

export function registerHostRoutes(router: Router, ctx: CoreContext): void {
  router.post(
    '/v2/infra-envs/:infra_env_id/hosts',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      await authorize(ctx, req, { infraEnvId });
      const body = bound(ctx, req, HOST_CREATE) as { host_id: string; discovery_agent_version?: string | null };
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
      const h = await updateHost(ctx, infraEnvId, hostId, bound(ctx, req, HOST_UPDATE));
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
      bound(ctx, req, HOST_PROGRESS);
      await updateProgress(ctx, infraEnvId, hostId); // always refuses: every host is unbound
      res.status(200).end();
    }),
  );

  router.put(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id/logs-progress',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      const body = bound(ctx, req, LOGS_PROGRESS) as { logs_state: string };
      await updateLogsProgress(ctx, infraEnvId, hostId, body.logs_state);
      res.status(204).end();
    }),
  );

  router.post(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id/actions/reset',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      res.status(200).json(renderHost(await resetHost(ctx, infraEnvId, hostId)));
    }),
  );
}
