// /v2/infra-envs/{id}/hosts/{host_id}/instructions: GET is the agent's heartbeat (steps),
// POST a step reply (204; an `inventory` reply stores the inventory).
import type { Router } from 'express';
import { BadRequestError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import { nextSteps } from '../host/instructions.js';
import { heartbeat, postStepReply, type StepReply } from '../host/service.js';
import { authorize, queryString, uuidParam, wrap } from '../http/request.js';
import { assertCleanText } from '../validation/text.js';

export function registerInstructionRoutes(router: Router, ctx: CoreContext): void {
  router.get(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id/instructions',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      const ts = queryString(req, 'timestamp');
      if (ts !== undefined && !/^-?\d+$/.test(ts)) throw new BadRequestError('timestamp must be an integer');
      if (ts !== undefined && !Number.isSafeInteger(Number(ts))) throw new BadRequestError('timestamp is out of range');
      const agentVersion = req.get('discovery_agent_version');
      if (agentVersion !== undefined) assertCleanText('discovery_agent_version', agentVersion, 'line');
      const h = await heartbeat(ctx, infraEnvId, hostId, ts === undefined ? undefined : Number(ts), agentVersion);
      res.json(nextSteps(h));
    }),
  );

  router.post(
    '/v2/infra-envs/:infra_env_id/hosts/:host_id/instructions',
    wrap(async (req, res) => {
      const infraEnvId = uuidParam(req, 'infra_env_id');
      const hostId = uuidParam(req, 'host_id');
      await authorize(ctx, req, { infraEnvId });
      const body = req.body as unknown;
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw new BadRequestError('step reply must be a JSON object');
      const r = body as Record<string, unknown>;
      for (const key of ['step_type', 'step_id'] as const) {
        if (r[key] === undefined) continue;
        if (typeof r[key] !== 'string') throw new BadRequestError(`${key} must be a string`);
        assertCleanText(key, r[key], 'line');
      }
      if (r.exit_code !== undefined && !Number.isInteger(r.exit_code))
        throw new BadRequestError('exit_code must be an integer');
      if (r.output !== undefined && typeof r.output !== 'string') throw new BadRequestError('output must be a string');
      await postStepReply(ctx, infraEnvId, hostId, r as StepReply);
      res.status(204).end();
    }),
  );
}
