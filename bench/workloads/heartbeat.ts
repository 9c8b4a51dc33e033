// Workload 6, agent heartbeat rate: 5,000 hosts registered across InfraEnvs (100 each), then
// wrk cycles through their `GET .../hosts/{host_id}/instructions` URLs (the discovery agent's
// heartbeat: one transaction with the host row locked, state refresh, next steps), on
// the default embedded PostgreSQL server and on an external PostgreSQL. Only 2xx answers count. The
// comparator is the same process's GET /live under the same wrk settings: the request-rate
// ceiling of the HTTP stack alone on this machine.
//
// Auth (issue 35.3): on the embedded server the hosts are registered once, with the default
// AUTH_TYPE=local (each with its InfraEnv's real agent key, PULL_SECRET_TOKEN from the discovery
// Ignition, as X-Secret-Key, which every poll carries too); then fresh processes on that same data
// poll in turns, AUTH_TYPE=local and AUTH_TYPE=none, ABBA over --repeats pairs: the same requests,
// the same rows, so the per-pair difference is what the key check costs, and the pairs' spread is
// the machine's noise (one run each swung by 14 % either way on the quiet machine). The external
// PostgreSQL runs once, with the default auth.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Bootsmith } from '../lib/bootsmith.js';
import { accounted, type Context } from '../lib/context.js';
import { runWrk, type WrkResult } from '../lib/clients.js';
import { benchDatabase } from '../lib/postgres.js';
import { type Figure, figure } from '../lib/report.js';
import { median, spread } from '../lib/stats.js';
import { round } from '../lib/system.js';

const API = '/api/assisted-install/v2';

type Auth = 'local' | 'none';

interface HeartbeatRun {
  database: 'embedded' | 'postgres';
  auth: Auth;
  hosts: number;
  infraEnvs: number;
  registrationsPerSecond: number;
  heartbeat: WrkResult;
  okPerSecond: number;
  live: WrkResult;
  serverCpuSecondsPer1000: number;
  /** Whole-machine busy seconds (all cores) per 1,000 polls: server, PostgreSQL, wrk, kernel. */
  machineBusySecondsPer1000: number;
  foreignShare: number | undefined;
  /** Heartbeats/s answered 200 in each ~1 s interval of the run (from the service's own request counter). */
  perSecond: number[];
  /** Longest run of consecutive seconds with no heartbeat answered. */
  longestStallSeconds: number;
  /** Latency of each GET /metrics the sampler made: long ones mean a blocked event loop. */
  metricsLatencyMs: number[];
}

const ROUTE = '/api/assisted-install/v2/infra-envs/:infra_env_id/hosts/:host_id/instructions';

interface Fleet {
  hosts: number;
  infraEnvs: number;
  registrationsPerSecond: number;
  /** wrk's paths file: one poll URL per host, each with its InfraEnv's agent key after a tab. */
  pathsFile: string;
}

/** Registers o.hosts hosts (16 at a time per InfraEnv) with `service` and writes their poll URLs. */
async function registerFleet(ctx: Context, service: Bootsmith, name: string, auth: Auth): Promise<Fleet> {
  const o = ctx.options;
  const infraEnvCount = Math.ceil(o.hosts / o.hostsPerInfraEnv);
  const paths: string[] = [];
  const t0 = performance.now();
  for (let i = 0; i < infraEnvCount; i++) {
    const ie = await service.createInfraEnv(`heartbeat-${i}`);
    const key = auth === 'local' ? await agentKey(service, ie.id) : undefined;
    const hosts = Math.min(o.hostsPerInfraEnv, o.hosts - i * o.hostsPerInfraEnv);
    const ids = Array.from({ length: hosts }, () => randomUUID());
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        await service.registerHost(ie.id, id, key);
        const poll = `${API}/infra-envs/${ie.id}/hosts/${id}/instructions`;
        paths.push(key === undefined ? poll : `${poll}\t${key}`); // paths.lua sends it as X-Secret-Key
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  }
  const registrationsPerSecond = paths.length / ((performance.now() - t0) / 1000);
  ctx.log(
    `  ${name}: registered ${paths.length} hosts in ${infraEnvCount} InfraEnvs (${Math.round(registrationsPerSecond)}/s)`,
  );
  const pathsFile = path.join(ctx.runDir, `heartbeat-${name}.paths`);
  writeFileSync(pathsFile, `${paths.join('\n')}\n`);
  return {
    hosts: paths.length,
    infraEnvs: infraEnvCount,
    registrationsPerSecond: round(registrationsPerSecond, 0),
    pathsFile,
  };
}

/** One leg: /live, then o.heartbeatSeconds of polls through every host of `fleet`, against `service`. */
async function pollLeg(
  ctx: Context,
  service: Bootsmith,
  database: 'embedded' | 'postgres',
  auth: Auth,
  fleet: Fleet,
): Promise<HeartbeatRun> {
  const o = ctx.options;
  const liveFile = path.join(ctx.runDir, 'live.paths');
  writeFileSync(liveFile, '/live\n');
  const wrk = (file: string, seconds: number) =>
    runWrk(
      {
        wrk: ctx.tools.wrk,
        url: service.url,
        script: 'paths.lua',
        scriptArgs: [file, String(o.wrkThreads)],
        threads: o.wrkThreads,
        connections: o.heartbeatConnections,
        seconds,
      },
      ctx.luaDir,
    );
  // /live first: after the heartbeat storm the process may still be draining queued transactions
  const live = await wrk(liveFile, Math.min(10, o.heartbeatSeconds));
  const answered = () =>
    service.metric('bootsmith_http_requests_total', { route: ROUTE, method: 'GET', status: '200' }).catch(() => NaN);
  const counts: Array<[number, number]> = [[performance.now(), await answered()]];
  const metricsLatencyMs: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await new Promise((r) => setTimeout(r, 1000));
      if (!sampling) break;
      const asked = performance.now();
      const count = await answered();
      metricsLatencyMs.push(Math.round(performance.now() - asked));
      counts.push([performance.now(), count]);
    }
  })();
  const { result: heartbeat, cpu } = await accounted(
    () => service.cpuSeconds(),
    () => wrk(fleet.pathsFile, o.heartbeatSeconds),
  ).finally(() => {
    sampling = false;
  });
  await sampler;
  const perSecond = counts.slice(1).map(([t, c], i) => Math.round((c - counts[i]![1]) / ((t - counts[i]![0]) / 1000)));
  let stall = 0;
  let longestStall = 0;
  counts.slice(1).forEach(([t, c], i) => {
    const [t0, c0] = counts[i]!;
    stall = c === c0 ? stall + (t - t0) / 1000 : 0;
    longestStall = Math.max(longestStall, stall);
  });
  longestStall = round(longestStall, 1);
  const ok = heartbeat.requests - heartbeat.errors.status;
  const run: HeartbeatRun = {
    database,
    auth,
    hosts: fleet.hosts,
    infraEnvs: fleet.infraEnvs,
    registrationsPerSecond: fleet.registrationsPerSecond,
    heartbeat,
    okPerSecond: ok / heartbeat.durationSeconds,
    live,
    serverCpuSecondsPer1000: round((cpu.serverCpuSeconds / Math.max(1, heartbeat.requests)) * 1000, 3),
    machineBusySecondsPer1000: round((cpu.machineBusySeconds / Math.max(1, heartbeat.requests)) * 1000, 3),
    foreignShare: cpu.foreignShare,
    perSecond,
    longestStallSeconds: longestStall,
    metricsLatencyMs,
  };
  ctx.log(
    `  ${database}, AUTH_TYPE=${auth}: ${Math.round(run.okPerSecond)} heartbeats/s (p50 ${heartbeat.latencyMs.p50.toFixed(1)} ms, p99 ${heartbeat.latencyMs.p99.toFixed(1)} ms, ` +
      `${heartbeat.errors.status} non-2xx, longest stall ${longestStall} s, slowest /metrics ${Math.max(0, ...metricsLatencyMs)} ms), /live ${Math.round(live.requestsPerSecond)} req/s, ` +
      `machine ${run.machineBusySecondsPer1000} busy-s per 1,000, others ${cpu.foreignShare ?? '?'} of the machine`,
  );
  return run;
}

/**
 * The embedded server's pairs: one fleet registered with AUTH_TYPE=local, then --repeats pairs of
 * fresh processes on its data, local and none in turns (A B B A ...).
 */
async function embeddedPairs(ctx: Context): Promise<Array<Record<Auth, HeartbeatRun>>> {
  const dataDir = path.join(ctx.runDir, 'bootsmith-heartbeat-embedded-data');
  const start = (leg: string, auth: Auth) =>
    ctx.startBootsmith(`bootsmith-heartbeat-embedded-${leg}`, { dataDir, env: { AUTH_TYPE: auth } });
  const registrar = await start('register', 'local');
  let fleet: Fleet;
  try {
    fleet = await registerFleet(ctx, registrar, 'embedded', 'local');
  } finally {
    await registrar.stop();
  }
  const pairs: Array<Record<Auth, HeartbeatRun>> = [];
  for (let r = 0; r < ctx.options.repeats; r++) {
    const order: Auth[] = r % 2 === 0 ? ['local', 'none'] : ['none', 'local'];
    const pair: Partial<Record<Auth, HeartbeatRun>> = {};
    for (const auth of order) {
      const service = await start(`${auth}-${r + 1}`, auth);
      try {
        pair[auth] = await pollLeg(ctx, service, 'embedded', auth, fleet);
      } finally {
        await service.stop();
      }
    }
    pairs.push(pair as Record<Auth, HeartbeatRun>);
  }
  return pairs;
}

/** The external PostgreSQL, once, with the default auth. */
async function externalRun(ctx: Context, databaseUrl: string): Promise<HeartbeatRun> {
  const service = await ctx.startBootsmith('bootsmith-heartbeat-postgres-auth-local', {
    env: { AUTH_TYPE: 'local', DATABASE_URL: databaseUrl },
  });
  try {
    return await pollLeg(ctx, service, 'postgres', 'local', await registerFleet(ctx, service, 'postgres', 'local'));
  } finally {
    await service.stop();
  }
}

/** The InfraEnv's agent key: PULL_SECRET_TOKEN in its discovery Ignition's agent.service, as an agent gets it. */
async function agentKey(service: Bootsmith, infraEnvId: string): Promise<string> {
  const ign = await service.api<{ systemd?: { units?: Array<{ name: string; contents?: string }> } }>(
    'GET',
    `/infra-envs/${infraEnvId}/downloads/files?file_name=discovery.ign`,
  );
  const unit = ign.systemd?.units?.find((u) => u.name === 'agent.service')?.contents ?? '';
  const key = /PULL_SECRET_TOKEN=(\S+)/.exec(unit)?.[1];
  if (key === undefined) throw new Error(`no PULL_SECRET_TOKEN in the discovery Ignition of ${infraEnvId}`);
  return key;
}

export async function heartbeatRate(ctx: Context): Promise<Figure[]> {
  const o = ctx.options;
  const figures: Figure[] = [];
  const make = (r: HeartbeatRun, value: number, extra: Record<string, unknown> = {}) =>
    figure({
      id: `heartbeat-${r.database}${r.auth === 'none' ? '-auth-none' : ''}`,
      workload: 6,
      title: `agent heartbeats/s, ${r.hosts} hosts, ${r.database === 'embedded' ? 'embedded PostgreSQL (default)' : 'external PostgreSQL'}, AUTH_TYPE=${r.auth}${r.auth === 'local' ? ' (default; real X-Secret-Key per poll)' : ''}`,
      unit: 'req/s',
      value: round(value, 0),
      comparator: { name: 'GET /live', value: round(r.live.requestsPerSecond, 0) },
      target: { kind: 'min', on: 'value', value: 3000, text: '≥ 3,000/s' },
      higherIsBetter: true,
      details: { ...r, ...extra },
    });
  const pairs = await embeddedPairs(ctx);
  const rates = (auth: Auth) => pairs.map((p) => round(p[auth].okPerSecond, 0));
  const keyCost = pairs.map((p) => round(p.none.okPerSecond / p.local.okPerSecond, 3));
  // each figure's details are the run nearest its median rate; its value is the median of all
  const middle = (auth: Auth) => {
    const m = median(rates(auth));
    return pairs
      .map((p) => p[auth])
      .reduce((a, b) => (Math.abs(b.okPerSecond - m) < Math.abs(a.okPerSecond - m) ? b : a));
  };
  const summary = {
    localPerSecond: rates('local'),
    nonePerSecond: rates('none'),
    noneOverLocalPerPair: keyCost,
    noneOverLocalMedian: round(median(keyCost), 3),
    ratioSpread: round(spread(keyCost), 3),
    note:
      `${pairs.length} pairs of fresh processes on the same ${pairs[0]!.local.hosts} hosts, local and none in turns; ` +
      `AUTH_TYPE=none answered ${round((median(keyCost) - 1) * 100, 1)} % more per pair at the median ` +
      `(per pair ${keyCost.join(', ')})`,
  };
  figures.push(
    make(middle('local'), median(rates('local')), summary),
    make(middle('none'), median(rates('none')), summary),
  );
  if (o.postgres) {
    const db = await benchDatabase(o.databaseUrl, ctx.log);
    if ('skipped' in db) {
      ctx.log(`  PostgreSQL skipped: ${db.skipped}`);
    } else {
      try {
        const run = await externalRun(ctx, db.url);
        figures.push(make(run, run.okPerSecond, { note: db.note }));
      } finally {
        await db.cleanup();
      }
    }
  }
  return figures;
}
