// The bounds on events (issue 23, finding 5: one agent key stored 80k events of 4 KB in 40 s,
// and `events?limit=-1` answered 335 MB): what agents may post, how long events are kept, and
// how many one listing returns. Settings with their defaults, and the parser of upstream's
// EVENT_RATE_LIMITS.
//
// Does: define EventSettings (src/config.ts reads them from the environment; docs/operator/configuration.md lists
// them), upstream's default per-name limits, and parse `{"name": "duration"}` the way upstream
// assisted-service's InitializeEventLimits does (unknown names accepted, custom ones override
// the defaults). Does not: enforce anything (events/post-limits.ts, events/retention.ts, handlers/events.ts).

export interface EventSettings {
  /** EVENTS_PER_HOST_PER_MINUTE: events one host may post per minute (a token bucket of that size). */
  perHostPerMinute: number;
  /** EVENTS_PER_INFRA_ENV_PER_MINUTE: events posted for one InfraEnv (all its hosts) per minute. */
  perInfraEnvPerMinute: number;
  /** EVENT_BYTES_PER_HOST_PER_MINUTE: bytes (name + message + props) one host may post per minute. */
  bytesPerHostPerMinute: number;
  /** EVENT_BYTES_PER_INFRA_ENV_PER_MINUTE: bytes posted for one InfraEnv per minute. */
  bytesPerInfraEnvPerMinute: number;
  /** EVENT_RATE_LIMITS (upstream): per event name, the least time between two such events of one entity. */
  nameIntervalsMs: Record<string, number>;
  /** EVENTS_MAX_AGE: events older than this are deleted. */
  maxAgeMs: number;
  /** EVENTS_MAX_PER_INFRA_ENV: the newest this many events of an InfraEnv are kept. */
  maxPerInfraEnv: number;
  /** EVENTS_MAX_TOTAL: the newest this many events overall are kept. */
  maxTotal: number;
  /** EVENTS_MAX_PAGE: the most events one listing returns (`limit` above it, or -1, is this). */
  maxPage: number;
}

/**
 * Upstream's hard-coded eventLimits (assisted-service internal/events/event.go): the agent
 * upgrade events at most once an hour per entity. EVENT_RATE_LIMITS adds to and overrides them.
 */
export const UPSTREAM_NAME_INTERVALS_MS: Readonly<Record<string, number>> = {
  upgrade_agent_failed: 3_600_000,
  upgrade_agent_finished: 3_600_000,
  upgrade_agent_started: 3_600_000,
};

export const DEFAULT_EVENT_SETTINGS: EventSettings = {
  // An installing host reports a few progress events a minute; a discovery agent fewer.
  perHostPerMinute: 60,
  // Room for a few hundred hosts installing at once in one InfraEnv.
  perInfraEnvPerMinute: 3000,
  // A full-size event (4 KiB message) a second per host; props are small JSON documents.
  bytesPerHostPerMinute: 512 * 1024,
  bytesPerInfraEnvPerMinute: 8 * 1024 * 1024,
  nameIntervalsMs: { ...UPSTREAM_NAME_INTERVALS_MS },
  // Upstream keeps events as long as their cluster; a discovery InfraEnv's story is days long.
  maxAgeMs: 30 * 24 * 3_600_000,
  maxPerInfraEnv: 10_000,
  // ~200 MB of the usual ~200-byte events; the byte budgets keep large (props-heavy) ones rare.
  maxTotal: 1_000_000,
  // upstream's default page size (defaultEventLimit)
  maxPage: 5000,
};

/**
 * `{"upgrade_agent_failed":"2h","infra_env_deregister_failed":"30m"}` merged over upstream's
 * defaults. `parseDuration` is the service's Go-duration parser; a bad document throws with a
 * message naming the variable, as upstream refuses to start.
 */
export function parseEventRateLimits(
  text: string | undefined,
  parseDuration: (s: string) => number | undefined,
): Record<string, number> {
  const out: Record<string, number> = { ...UPSTREAM_NAME_INTERVALS_MS };
  if (text === undefined || text.trim() === '') return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('failed to parse EVENT_RATE_LIMITS json: it is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('failed to parse EVENT_RATE_LIMITS json: want an object of event names to durations');
  for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
    const ms = typeof value === 'string' ? parseDuration(value) : undefined;
    if (ms === undefined)
      throw new Error(
        `invalid duration for event ${JSON.stringify(name)} in EVENT_RATE_LIMITS: ${JSON.stringify(value)}`,
      );
    out[name] = ms;
  }
  return out;
}
