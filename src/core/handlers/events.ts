// /v2/events: GET lists events filtered by infra_env_id, host_id/host_ids, cluster_id, severities,
// message, with limit/offset/order, and the Event-Count / Severity-Count-* headers; POST is
// v2TriggerEvent, an event the agent adds (201).
//
// Event-Count is the number matching the filter (before limit/offset); the severity
// counts ignore the severities filter, as upstream. Without infra_env_id the caller
// needs an admin credential under AUTH_TYPE=local (for both). Triggered events take the server's
// time (upstream ignores event_time too); `metrics` events are accepted and not kept (upstream keeps
// them out of every listing but its metrics pipeline, which this core has not); props are kept
// only when they are JSON, as upstream drops props it cannot parse.
import type { Request, Router } from 'express';
import { BadRequestError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import { isUuid } from '../../uuid.js';
import { SEVERITIES, type Severity } from '../model.js';
import { authorize, bound, queryInteger, queryList, queryString, wrap } from '../http/request.js';
import { renderEvent } from '../render.js';
import { TRIGGER_EVENT } from '../validation/body-models.js';
import { frameworkErrors } from '../validation/framework-error.js';
import { assertCleanText } from '../validation/text.js';

/** Upstream's events.message column is varchar(4096); longer ones are refused rather than cut. */
export const MAX_EVENT_MESSAGE_LENGTH = 4096;
/** Event names are identifiers (`host_install_progress_updated`); longer is not a name. */
export const MAX_EVENT_NAME_LENGTH = 256;
/** Event props are small JSON documents; upstream's text column has no limit, ours does. */
export const MAX_EVENT_PROPS_BYTES = 64 * 1024;

/** upstream's default page size when `limit` is absent (assisted-service internal/events/event.go, defaultEventLimit). */
export const DEFAULT_EVENT_LIMIT = 5000;

/**
 * limit/offset as assisted-service's preparePaginationParams (internal/events/event.go) treats
 * them: no limit → 5000; limit -1 or below → no limit; limit 0 → no events; no or a negative
 * offset → 0. Non-integers and values beyond int64 are 400 (upstream's go-swagger binding
 * refuses them before the handler runs).
 */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function paging(req: Request): { limit?: number; offset?: number } {
  const limit = queryInteger(req, 'limit') ?? DEFAULT_EVENT_LIMIT;
  const offset = queryInteger(req, 'offset') ?? 0;
  return { ...(limit >= 0 ? { limit } : {}), ...(offset > 0 ? { offset } : {}) };
}

export function registerEventRoutes(router: Router, ctx: CoreContext): void {
  router.post(
    '/v2/events',
    wrap(async (req, res) => {
      const body = bound(ctx, req, TRIGGER_EVENT) as {
        name?: string | null;
        infra_env_id?: string | null;
        host_id?: string | null;
        cluster_id?: string | null;
        severity: Severity;
        category?: string | null;
        message: string;
        props?: string | null;
      };
      const infraEnvId = body.infra_env_id?.toLowerCase();
      await authorize(ctx, req, infraEnvId ? { infraEnvId } : {});
      const name = body.name ?? '';
      assertCleanText('name', name, 'line');
      if (name.length > MAX_EVENT_NAME_LENGTH)
        throw new BadRequestError(`name must be at most ${MAX_EVENT_NAME_LENGTH} characters`);
      if (body.message.length > MAX_EVENT_MESSAGE_LENGTH)
        throw new BadRequestError(`message must be at most ${MAX_EVENT_MESSAGE_LENGTH} characters`);
      if (body.props && Buffer.byteLength(body.props) > MAX_EVENT_PROPS_BYTES)
        throw new BadRequestError(`props must be at most ${MAX_EVENT_PROPS_BYTES} bytes`);
      if (body.category !== 'metrics') {
        await ctx.repo.insertEvent({
          name,
          infraEnvId: infraEnvId ?? null,
          hostId: body.host_id?.toLowerCase() ?? null,
          clusterId: body.cluster_id?.toLowerCase() ?? null,
          severity: body.severity,
          message: body.message,
          eventTime: ctx.now(),
          ...(body.props && isJson(body.props) ? { props: body.props } : {}),
        });
      }
      res.status(201).end();
    }),
  );

  router.get(
    '/v2/events',
    wrap(async (req, res) => {
      const infraEnvId = queryString(req, 'infra_env_id');
      const clusterId = queryString(req, 'cluster_id');
      const hostIds = [
        ...(queryList(req, 'host_ids') ?? []),
        ...(queryString(req, 'host_id') ? [queryString(req, 'host_id')!] : []),
      ];
      // as upstream's generated binding checks them: 601 for a malformed UUID, 606 outside an enum
      for (const [name, v] of [
        ['infra_env_id', infraEnvId],
        ['cluster_id', clusterId],
        ...hostIds.map((h, i) => [`host_ids.${i}`, h]),
      ] as [string, string | undefined][]) {
        if (v !== undefined && !isUuid(v)) throw frameworkErrors.invalidType(name, 'query', 'strfmt.UUID', v);
      }
      const severities = queryList(req, 'severities');
      (severities ?? []).forEach((s, i) => {
        if (!SEVERITIES.includes(s as Severity)) throw frameworkErrors.enumFail(`severities.${i}`, 'query', SEVERITIES);
      });
      const order = queryString(req, 'order') ?? 'ascending';
      if (order !== 'ascending' && order !== 'descending')
        throw frameworkErrors.enumFail('order', 'query', ['ascending', 'descending']);
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
