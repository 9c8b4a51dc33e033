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
//
// Bounded (issue 23, finding 5): a posted event names an InfraEnv that exists (else 404); it is
// charged to its host's and InfraEnv's buckets (events/post-limits.ts; empty: 429 with
// Retry-After naming the limit); an event of a name EVENT_RATE_LIMITS limits is dropped, as
// upstream drops it (201, logged), when its entity had one within the interval. A listing
// returns at most EVENTS_MAX_PAGE events (no `limit`, or -1, means that many, where upstream
// means all) and is streamed from the database in batches of LIST_BATCH, so a listing holds one
// batch in memory, whatever the number of events.
import type { Request, Response, Router } from 'express';
import { BadRequestError, NotFoundError, TooManyRequestsError } from '../../errors.js';
import type { CoreContext } from '../context.js';
import type { EventCursor } from '../db/repository.js';
import { isUuid } from '../../uuid.js';
import { SEVERITIES, type Severity } from '../model.js';
import { authorize, bound } from '../http/request.js';
import { queryInteger, queryList, queryString, wrap } from '../../platform/api/request.js';
import { renderEvent } from '../render.js';
import { TRIGGER_EVENT } from '../validation/body-models.js';
import { frameworkErrors } from '../../platform/api/framework-error.js';
import { assertCleanText } from '../../platform/api/clean-text.js';

/** Upstream's events.message column is varchar(4096); longer ones are refused rather than cut. */
export const MAX_EVENT_MESSAGE_LENGTH = 4096;
/** Event names are identifiers (`host_install_progress_updated`); longer is not a name. */
export const MAX_EVENT_NAME_LENGTH = 256;
/** Event props are small JSON documents; upstream's text column has no limit, ours does. */
export const MAX_EVENT_PROPS_BYTES = 64 * 1024;

/** Rows read from the database per batch of a listing: the memory of one listing (≤ ~7 MB at the largest events). */
export const LIST_BATCH = 100;
/** Discarded-event log lines (EVENT_RATE_LIMITS) are written at most this often, with counts. */
const DISCARD_LOG_INTERVAL_MS = 10_000;

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * limit/offset as assisted-service's preparePaginationParams (internal/events/event.go) treats
 * them, capped: no limit → the page size (5000, upstream's default); limit -1 or below (upstream:
 * everything) or above the page size → the page size; limit 0 → no events; no or a negative
 * offset → 0. Non-integers and values beyond int64 are 400 (upstream's go-swagger binding
 * refuses them before the handler runs).
 */
function paging(req: Request, maxPage: number): { limit: number; offset: number } {
  const asked = queryInteger(req, 'limit') ?? maxPage;
  const limit = asked < 0 ? maxPage : Math.min(asked, maxPage);
  const offset = Math.max(0, queryInteger(req, 'offset') ?? 0);
  return { limit, offset };
}

/** Writes `chunk`, waiting for the socket to drain when its buffer is full; false once the client is gone. */
async function write(res: Response, chunk: string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(chunk)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
  return !res.destroyed;
}

/** Upstream logs every dropped event; a flood of them is logged as counts, once per interval. */
function discardLogger(ctx: CoreContext): (name: string) => void {
  let counts = new Map<string, number>();
  let last = 0;
  return (name) => {
    counts.set(name, (counts.get(name) ?? 0) + 1);
    const t = ctx.now().getTime();
    if (t - last < DISCARD_LOG_INTERVAL_MS) return;
    last = t;
    ctx.logger.warn(
      { discarded: Object.fromEntries(counts), limits: 'EVENT_RATE_LIMITS' },
      'events discarded by their rate limit',
    );
    counts = new Map();
  };
}

export function registerEventRoutes(router: Router, ctx: CoreContext): void {
  const logDiscarded = discardLogger(ctx);
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
      const hostId = body.host_id?.toLowerCase();
      const clusterId = body.cluster_id?.toLowerCase();
      if (infraEnvId && !(await ctx.repo.infraEnvExists(infraEnvId)))
        throw new NotFoundError(`infra-env ${infraEnvId} not found`);
      const bytes =
        Buffer.byteLength(name) + Buffer.byteLength(body.message) + (body.props ? Buffer.byteLength(body.props) : 0);
      const refusal = ctx.eventLimiter.take({ hostId, infraEnvId }, bytes);
      if (refusal) {
        const per = refusal.limit.includes('HOST')
          ? `host ${hostId}`
          : infraEnvId
            ? `infra-env ${infraEnvId}`
            : 'events without an infra-env';
        throw new TooManyRequestsError(
          `too many events for ${per}: ${refusal.limit} is ${refusal.value}; retry in ${Math.ceil(refusal.waitMs / 1000)} s`,
          Math.max(1, Math.ceil(refusal.waitMs / 1000)),
          { limit: refusal.limit },
        );
      }
      const interval = ctx.settings.events.nameIntervalsMs[name];
      const ids = {
        ...(hostId ? { hostId } : {}),
        ...(infraEnvId ? { infraEnvId } : {}),
        ...(clusterId ? { clusterId } : {}),
      };
      const now = ctx.now();
      if (
        body.category !== 'metrics' &&
        interval !== undefined &&
        interval > 0 &&
        (await ctx.repo.hasEventSince(name, ids, new Date(now.getTime() - interval)))
      ) {
        logDiscarded(name); // as upstream: dropped, the caller still gets 201
      } else if (body.category !== 'metrics') {
        await ctx.repo.insertEvent({
          name,
          infraEnvId: infraEnvId ?? null,
          hostId: hostId ?? null,
          clusterId: clusterId ?? null,
          severity: body.severity,
          message: body.message,
          eventTime: now,
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
      const filter = {
        ...(infraEnvId ? { infraEnvId: infraEnvId.toLowerCase() } : {}),
        ...(clusterId ? { clusterId: clusterId.toLowerCase() } : {}),
        ...(hostIds.length ? { hostIds: hostIds.map((h) => h.toLowerCase()) } : {}),
        ...(severities ? { severities: severities as Severity[] } : {}),
        ...(queryString(req, 'message') ? { message: queryString(req, 'message')! } : {}),
        order: order as 'ascending' | 'descending',
      };
      const { limit, offset } = paging(req, ctx.settings.events.maxPage);
      const counts = await ctx.repo.countEvents(filter);
      res.status(200).set({
        'Content-Type': 'application/json; charset=utf-8',
        'Event-Count': String(counts.total),
        'Severity-Count-Info': String(counts.severityCounts.info),
        'Severity-Count-Warning': String(counts.severityCounts.warning),
        'Severity-Count-Error': String(counts.severityCounts.error),
        'Severity-Count-Critical': String(counts.severityCounts.critical),
      });
      // streamed: one batch of rows in memory at a time, written as the client reads
      if (!(await write(res, '['))) return;
      let sent = 0;
      let cursor: EventCursor | undefined;
      while (sent < limit) {
        const want = Math.min(LIST_BATCH, limit - sent);
        const batch = await ctx.repo.listEventsAfter(
          filter,
          cursor ? { after: cursor, limit: want } : { offset, limit: want },
        );
        for (const e of batch) {
          if (!(await write(res, `${sent === 0 ? '' : ','}${JSON.stringify(renderEvent(e))}`))) return;
          sent++;
        }
        const last = batch.at(-1);
        if (batch.length < want || !last) break;
        cursor = { eventTime: last.eventTime, seq: last.seq };
      }
      res.end(']');
    }),
  );
}
