// Workload 5, upstream economy: bootsmith as an image-only front (--role image) of a fake
// assisted-service in the bench process, under the BMC range storm of workload 2; the fake
// counts every upstream request. The figure is upstream HTTP calls (all three endpoints a
// lookup makes, not just discovery.ign) per 1,000 range requests. The comparator is the same
// storm with the Ignition cache off (IGNITION_CACHE_TTL_SECONDS=0): one lookup per request,
// as assisted-image-service does it.
import { randomUUID } from 'node:crypto';
import type { Bootsmith } from '../lib/bootsmith.js';
import { runWrk, type WrkResult } from '../lib/clients.js';
import type { Context } from '../lib/context.js';
import { type Figure, figure } from '../lib/report.js';
import { round } from '../lib/system.js';
import { FakeAssistedService } from '../lib/upstream.js';
import { RANGE_MAX, RANGE_MIN } from './range-storm.js';

interface EconomyRun {
  cacheTtlSeconds: number | 'default';
  wrk: WrkResult;
  upstream: Record<string, number>;
  upstreamCalls: number;
  callsPer1000: number;
  ignitionCallsPer1000: number;
  metrics: { lookupsHit: number; lookupsMiss: number; upstreamRequests: number };
}

async function storm(
  ctx: Context,
  fake: FakeAssistedService,
  ttl: number | undefined,
  seconds: number,
): Promise<EconomyRun> {
  const name = ttl === undefined ? 'bootsmith-image' : `bootsmith-image-ttl${ttl}`;
  const service: Bootsmith = await ctx.startBootsmith(name, {
    role: 'image',
    env: { ASSISTED_SERVICE_URL: fake.url, ...(ttl === undefined ? {} : { IGNITION_CACHE_TTL_SECONDS: String(ttl) }) },
  });
  try {
    fake.reset();
    const url = `${service.url}/byid/${randomUUID()}/4.17/x86_64/full.iso`;
    const wrk = await runWrk(
      {
        wrk: ctx.tools.wrk,
        url,
        script: 'range.lua',
        scriptArgs: [String(ctx.options.seed), String(ctx.base.size), String(RANGE_MIN), String(RANGE_MAX)],
        threads: ctx.options.wrkThreads,
        connections: ctx.options.stormConnections,
        seconds,
      },
      ctx.luaDir,
    );
    if (wrk.requests === 0 || wrk.errors.status > wrk.requests * 0.01)
      throw new Error(`range storm in remote mode failed: ${JSON.stringify(wrk.errors)} in ${wrk.requests} requests`);
    const upstream = { ...fake.hits };
    const calls = fake.total();
    return {
      cacheTtlSeconds: ttl ?? 'default',
      wrk,
      upstream,
      upstreamCalls: calls,
      callsPer1000: (calls / wrk.requests) * 1000,
      ignitionCallsPer1000: (upstream['discovery-ignition']! / wrk.requests) * 1000,
      metrics: {
        lookupsHit: await service.metric('bootsmith_ignition_lookups_total', { result: 'hit' }),
        lookupsMiss: await service.metric('bootsmith_ignition_lookups_total', { result: 'miss' }),
        upstreamRequests: await service.metric('bootsmith_upstream_request_duration_seconds_count'),
      },
    };
  } finally {
    await service.stop();
  }
}

export async function upstreamEconomy(ctx: Context): Promise<Figure[]> {
  const fake = new FakeAssistedService();
  await fake.start();
  try {
    const cached = await storm(ctx, fake, undefined, ctx.options.upstreamSeconds);
    ctx.log(
      `  remote mode, cached: ${cached.wrk.requests} range requests (${Math.round(cached.wrk.requestsPerSecond)}/s), ` +
        `${cached.upstreamCalls} upstream calls ${JSON.stringify(cached.upstream)}`,
    );
    const uncached = await storm(ctx, fake, 0, Math.min(5, ctx.options.upstreamSeconds));
    ctx.log(
      `  remote mode, cache off: ${uncached.wrk.requests} range requests (${Math.round(uncached.wrk.requestsPerSecond)}/s), ` +
        `${uncached.upstreamCalls} upstream calls`,
    );
    return [
      figure({
        id: 'upstream-calls',
        workload: 5,
        title: 'upstream calls per 1,000 range requests (remote mode)',
        unit: 'calls',
        value: round(cached.callsPer1000, 4),
        comparator: { name: 'no cache (per-request lookups)', value: round(uncached.callsPer1000, 1) },
        target: { kind: 'max', on: 'value', value: 1, text: '≤ 1' },
        higherIsBetter: false,
        details: {
          cached: { ...cached, ignitionCallsPer1000: round(cached.ignitionCallsPer1000, 4) },
          uncached: { ...uncached, ignitionCallsPer1000: round(uncached.ignitionCallsPer1000, 1) },
          rangeRequestsPerSecond: {
            cached: round(cached.wrk.requestsPerSecond, 0),
            uncached: round(uncached.wrk.requestsPerSecond, 0),
          },
        },
      }),
    ];
  } finally {
    await fake.stop();
  }
}
