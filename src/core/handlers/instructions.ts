// /v2/infra-envs/{id}/hosts/{host_id}/instructions: GET is the agent's heartbeat (steps),
// POST a step reply (204; an `inventory` reply stores the inventory).
import type { Router } from 'express';
import type { CoreContext } from '../context.js';
import { nextSteps } from '../host/instructions.js';
import { heartbeat, postStepReply, type StepReply } from '../host/service.js';
import { authorize, bound } from '../http/request.js';
import { queryInteger, uuidParam, wrap } from '../../platform/api/request.js';
import { STEP_REPLY } from '../validation/body-models.js';
import { assertCleanText } from '../../platform/api/clean-text.js';

export function registerInstructionRoutes(router: Router, ctx: CoreContext): void {
  router.get(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id/instructions',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      const ts = queryInteger(req, 'timestamp');
      const agentVersion = req.get('discovery_agent_version');
      if (agentVersion !== undefined) assertCleanText('discovery_agent_version', agentVersion, 'line');
      const h = await heartbeat(ctx, infraEnvId, hostId, ts, agentVersion);
      res.json(nextSteps(h));
    }),
  );

  router.post(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id/instructions',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      const r = bound(ctx, req, STEP_REPLY); // types as step-reply declares them
      for (const key of ['step_type', 'step_id'] as const) {
        const v = r[key];
        if (typeof v === 'string') assertCleanText(key, v, 'line');
      }
      await postStepReply(ctx, infraEnvId, hostId, r as StepReply);
      res.status(204).end();
    }),
  );
}
