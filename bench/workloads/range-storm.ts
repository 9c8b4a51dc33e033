// Workload 2, BMC range storm: 64 connections of wrk issue single Range requests of random
// length (64 KiB to 1 MiB) at random offsets of one InfraEnv's ISO, for 20 s, the same
// seeded sequence against bootsmith and nginx, alternating which goes first per repeat.
// First each server gets one unmeasured storm (`--storm-warmup`, 10 s): a new bootsmith process
// serves its first seconds slower while V8 compiles its hot path, nginx has nothing to warm up, and
// a BMC's storm lasts minutes. The warm-up's rates are logged and kept in the details (`warmUp`).
import { accounted, type Context, type CpuAccount } from '../lib/context.js';
import { runWrk, type WrkResult } from '../lib/clients.js';
import { type Figure, figure } from '../lib/report.js';
import { median, spread } from '../lib/stats.js';
import { round } from '../lib/system.js';
import type { Variant } from './downloads.js';
import type { Pair } from './pair.js';

type Server = 'bootsmith' | 'nginx';

export const RANGE_MIN = 64 * 1024;
export const RANGE_MAX = 1024 * 1024;
/** Generous bound on one response head (status line and headers), for the size check. */
const HEAD_BYTES_MAX = 2048;

interface StormRun {
  repeat: number;
  server: Server;
  seed: number;
  wrk: WrkResult;
  cpu: CpuAccount;
}

export async function rangeStorm(
  ctx: Context,
  pair: Pick<Pair, 'bootsmith' | 'nginx' | 'bootsmithUrl' | 'nginxUrl' | 'size'>,
  variant?: Variant,
): Promise<Figure[]> {
  const o = ctx.options;
  const prefix = variant?.idPrefix ?? '';
  const workload = variant?.workload ?? 2;
  const titlePrefix = variant?.titlePrefix ?? '';
  const runs: StormRun[] = [];
  const storm = (server: Server, seed: number, seconds: number) =>
    runWrk(
      {
        wrk: ctx.tools.wrk,
        url: server === 'nginx' ? pair.nginxUrl : pair.bootsmithUrl,
        script: 'range.lua',
        scriptArgs: [String(seed), String(pair.size), String(RANGE_MIN), String(RANGE_MAX)],
        threads: o.wrkThreads,
        connections: o.stormConnections,
        seconds,
      },
      ctx.luaDir,
    );
  const warmUp: Partial<Record<Server, number>> = {};
  if (o.stormWarmupSeconds > 0) {
    for (const server of ['bootsmith', 'nginx'] as const) {
      const result = await storm(server, o.seed + 1000, o.stormWarmupSeconds);
      warmUp[server] = Math.round(result.requestsPerSecond);
      ctx.log(
        `  ${titlePrefix}range storm ${server.padEnd(9)} warm-up, not counted: ${warmUp[server]} req/s  p99 ${result.latencyMs.p99.toFixed(2)} ms`,
      );
    }
  }
  for (let r = 0; r < o.repeats; r++) {
    const seed = o.seed + r;
    const order: Server[] = r % 2 === 0 ? ['nginx', 'bootsmith'] : ['bootsmith', 'nginx'];
    for (const server of order) {
      const cpuOf = server === 'nginx' ? () => pair.nginx.cpuSeconds() : () => pair.bootsmith.cpuSeconds();
      const { result, cpu } = await accounted(cpuOf, () => storm(server, seed, o.stormSeconds));
      const errors = Object.values(result.errors).reduce((a, b) => a + b, 0);
      if (result.requests === 0 || errors > result.requests * 0.01) {
        throw new Error(
          `${server}: range storm had ${errors} errors in ${result.requests} requests: ${JSON.stringify(result.errors)}`,
        );
      }
      // Bytes really served: every answered range is at least RANGE_MIN bytes of body, and at
      // most RANGE_MAX plus its head (a 200 with the whole file would blow this); wrk counts
      // statuses outside 2xx/3xx as errors above. Checked before any per-request figure.
      if (result.bytes < (result.requests - errors) * RANGE_MIN) {
        throw new Error(`${server}: ${result.requests} range requests brought only ${result.bytes} bytes`);
      }
      if (result.bytes > result.requests * (RANGE_MAX + HEAD_BYTES_MAX)) {
        throw new Error(
          `${server}: ${result.requests} range requests brought ${result.bytes} bytes: not single ranges`,
        );
      }
      runs.push({ repeat: r, server, seed, wrk: result, cpu });
      ctx.log(
        `  ${titlePrefix}range storm ${server.padEnd(9)} ${Math.round(result.requestsPerSecond)} req/s  p50 ${result.latencyMs.p50.toFixed(2)} ms  ` +
          `p99 ${result.latencyMs.p99.toFixed(2)} ms  server ${cpu.serverCpuSeconds.toFixed(1)} CPU-s, machine ${((cpu.machineBusySeconds / result.requests) * 1000).toFixed(3)} CPU-s/1000, others ${cpu.foreignShare ?? '?'} of the machine`,
      );
    }
  }
  const of = (s: Server) => runs.filter((x) => x.server === s);
  const pairRatio = (f: (x: StormRun) => number) =>
    [...Array(o.repeats).keys()].map((r) => {
      const b = runs.find((x) => x.repeat === r && x.server === 'bootsmith')!;
      const n = runs.find((x) => x.repeat === r && x.server === 'nginx')!;
      return f(b) / f(n);
    });
  const machinePer1000 = (x: StormRun) => (x.cpu.machineBusySeconds / x.wrk.requests) * 1000;
  const rpsRatios = pairRatio((x) => x.wrk.requestsPerSecond);
  const machineRatios = pairRatio(machinePer1000);
  const p99Ratios = pairRatio((x) => x.wrk.latencyMs.p99);
  const summary = (s: Server) => ({
    requestsPerSecond: median(of(s).map((x) => x.wrk.requestsPerSecond)),
    p50Ms: median(of(s).map((x) => x.wrk.latencyMs.p50)),
    p99Ms: median(of(s).map((x) => x.wrk.latencyMs.p99)),
    megabytesPerSecond: median(of(s).map((x) => x.wrk.bytes / x.wrk.durationSeconds / 1e6)),
    serverCpuSecondsPer1000Requests: median(of(s).map((x) => (x.cpu.serverCpuSeconds / x.wrk.requests) * 1000)),
    machineBusySecondsPer1000Requests: median(of(s).map(machinePer1000)),
  });
  const details = {
    connections: o.stormConnections,
    seconds: o.stormSeconds,
    warmUpSeconds: o.stormWarmupSeconds,
    warmUp,
    rangeBytes: [RANGE_MIN, RANGE_MAX],
    bootsmith: summary('bootsmith'),
    nginx: summary('nginx'),
    rpsRatiosPerRepeat: rpsRatios.map((x) => round(x, 3)),
    p99RatiosPerRepeat: p99Ratios.map((x) => round(x, 3)),
    rpsRatioSpread: round(spread(rpsRatios), 3),
    machineCpuRatiosPerRepeat: machineRatios.map((x) => round(x, 3)),
    machineCpuRatioSpread: round(spread(machineRatios), 3),
    foreignCpuShareMedian: median(runs.map((x) => x.cpu.foreignShare ?? NaN)),
    runs,
  };
  return [
    figure({
      id: `${prefix}range-rps`,
      workload,
      title: `${titlePrefix}range storm, ${o.stormConnections} clients: requests/s`,
      unit: 'req/s',
      value: details.bootsmith.requestsPerSecond,
      comparator: { name: 'nginx', value: details.nginx.requestsPerSecond },
      ratio: median(rpsRatios),
      target: { kind: 'min', on: 'ratio', value: 1, text: '≥ 1.0×' },
      higherIsBetter: true,
      details,
    }),
    figure({
      id: `${prefix}range-p99`,
      workload,
      title: `${titlePrefix}range storm: p99 latency`,
      unit: 'ms',
      value: details.bootsmith.p99Ms,
      comparator: { name: 'nginx', value: details.nginx.p99Ms },
      ratio: median(p99Ratios),
      target: { kind: 'max', on: 'ratio', value: 2, text: '≤ 2×' },
      higherIsBetter: false,
      details: { p50Ms: { bootsmith: details.bootsmith.p50Ms, nginx: details.nginx.p50Ms } },
    }),
    figure({
      id: `${prefix}range-cpu`,
      workload,
      title: `${titlePrefix}range storm: server CPU per 1,000 requests`,
      unit: 'CPU-s',
      value: details.bootsmith.serverCpuSecondsPer1000Requests,
      comparator: { name: 'nginx', value: details.nginx.serverCpuSecondsPer1000Requests },
      higherIsBetter: false,
      details: {
        note: 'user + system time of the server process(es), all threads; less sensitive to other load than req/s',
      },
    }),
    figure({
      id: `${prefix}range-machine-cpu`,
      workload,
      title: `${titlePrefix}range storm: whole-machine busy CPU per 1,000 requests`,
      unit: 'CPU-s',
      value: details.bootsmith.machineBusySecondsPer1000Requests,
      comparator: { name: 'nginx', value: details.nginx.machineBusySecondsPer1000Requests },
      ratio: median(machineRatios),
      target: { kind: 'max', on: 'ratio', value: 1, text: '≤ 1.0×' },
      higherIsBetter: false,
      details: {
        note: "busy time of all cores (/proc/stat) during the run: server, wrk, the kernel's loopback work and any other load (background before the workload in the JSON)",
        ratiosPerRepeat: machineRatios.map((x) => round(x, 3)),
        ratioSpread: round(spread(machineRatios), 3),
      },
    }),
  ];
}
