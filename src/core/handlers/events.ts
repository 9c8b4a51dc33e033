// /v2/events: lists events filtered by infra_env_id, host_id/host_ids, cluster_id, severities,
// message, with limit/offset/order, and the Event-Count / Severity-Count-* headers.
//
// Event-Count is the number matching the filter (before limit/offset); the severity
// counts ignore the severities filter, as upstream. Without infra_env_id the caller
// needs an admin credential under AUTH_TYPE=local.
import type { Request, Router } from 'express';
import { BadRequestError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import { isUuid } from '../../uuid.js';
import { SEVERITIES, type Severity } from '../model.js';
import { authorize, queryInteger, queryList, queryString, wrap } from '../http/request.js';
import { renderEvent } from '../render.js';

/** upstream's default page size when `limit` is absent (assisted-service internal/events/event.go, defaultEventLimit). */
export const DEFAULT_EVENT_LIMIT = 5000;

/**
 * limit/offset as assisted-service's preparePaginationParams (internal/events/event.go) treats
 * them: no limit → 5000; limit -1 or below → no limit; limit 0 → no events; no or a negative
 * offset → 0. Non-integers and values beyond int64 are 400 (upstream's go-swagger binding
 * refuses them before the handler runs).
 */
function paging(req: Request): { limit?: number; offset?: number } {
  const limit = queryInteger(req, 'limit') ?? DEFAULT_EVENT_LIMIT;
  const offset = queryInteger(req, 'offset') ?? 0;
  return { ...(limit >= 0 ? { limit } : {}), ...(offset > 0 ? { offset } : {}) };
}

export function registerEventRoutes(router: Router, ctx: CoreContext): void {
  router.get(
    '/v2/events',
    wrap(async (req, res) => {
      const infraEnvId = queryString(req, 'infra_env_id');
      const clusterId = queryString(req, 'cluster_id');
      const hostIds = [
        ...(queryList(req, 'host_ids') ?? []),
        ...(queryString(req, 'host_id') ? [queryString(req, 'host_id')!] : []),
      ];
      for (const [name, v] of [
        ['infra_env_id', infraEnvId],
        ['cluster_id', clusterId],
        ...hostIds.map((h) => ['host_id', h]),
      ] as [string, string | undefined][]) {
        if (v !== undefined && !isUuid(v)) throw new BadRequestError(`${name} must be a UUID`);
      }
      const severities = queryList(req, 'severities');
      for (const s of severities ?? [])
        if (!SEVERITIES.includes(s as Severity)) throw new BadRequestError(`unknown severity ${JSON.stringify(s)}`);
      const order = queryString(req, 'order') ?? 'ascending';
      if (order !== 'ascending' && order !== 'descending')
        throw new BadRequestError('order must be ascending or descending');
      await authorize(ctx, req, infraEnvId ? { infraEnvId: infraEnvId.toLowerCase() } : {});
      const page = await ctx.repo.listEvents({
        ...(infraEnvId ? { infraEnvId: infraEnvId.toLowerCase() } : {}),
        ...(clusterId ? { clusterId: clusterId.toLowerCase() } : {}),
        ...(hostIds.length ? { hostIds: hostIds.map((h) => h.toLowerCase()) } : {}),
        ...(severities ? { severities: severities as Severity[] } : {}),
        ...(queryString(req, 'message') ? { message: queryString(req, 'message')! } : {}),
        order,
        ...paging(req),
      });
      res.set({
        'Event-Count': String(page.total),
        'Severity-Count-Info': String(page.severityCounts.info),
        'Severity-Count-Warning': String(page.severityCounts.warning),
        'Severity-Count-Error': String(page.severityCounts.error),
        'Severity-Count-Critical': String(page.severityCounts.critical),
      });
      res.json(page.events.map(renderEvent));
    }),
  );
}
