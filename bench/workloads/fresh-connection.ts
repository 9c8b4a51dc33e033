// Workload 11, a new connection per request (issue 35.4): one client at a time opens a TCP
// connection, asks for a 1 MiB Range at a random offset (seeded: the same offsets for both
// servers), reads the whole 206 body, and closes; the time from connect to the last byte, per
// request, p50 and p99 against nginx serving the pre-embedded copy, alternating which server
// goes first per repeat (ABBA). This is the BMC fleet bench's "connection per read" pattern
// (bench/workloads/bmc-fleet-virtual.ts --bmc-connection-per-read) without the fleet.
// Does NOT: reuse connections (workload 2 does), or measure TLS handshakes (workload 8).
import http from 'node:http';
import type { Context } from '../lib/context.js';
import { type Figure, figure } from '../lib/report.js';
import { median, spread } from '../lib/stats.js';
import { round } from '../lib/system.js';
import type { Pair } from './pair.js';

type Server = 'bootsmith' | 'nginx';

const RANGE_BYTES = 1024 * 1024;

/** A deterministic generator (the same offsets for both servers). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** One GET on a connection of its own: ms from the start to the last body byte (rejects on a wrong answer). */
function oneRequest(url: URL, start: number): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        agent: false,
        headers: { Range: `bytes=${start}-${start + RANGE_BYTES - 1}`, Connection: 'close' },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => {
          if (res.statusCode !== 206 || bytes !== RANGE_BYTES)
            reject(new Error(`${url.host}: status ${res.statusCode}, ${bytes} bytes for a 1 MiB range`));
          else resolve(performance.now() - t0);
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export async function freshConnection(
  ctx: Context,
  pair: Pick<Pair, 'bootsmithUrl' | 'nginxUrl' | 'size'>,
): Promise<Figure[]> {
  const o = ctx.options;
  const count = o.smoke ? 50 : 500;
  const runs: Array<{ repeat: number; server: Server; p50: number; p99: number; mean: number }> = [];
  for (let r = 0; r < o.repeats; r++) {
    const order: Server[] = r % 2 === 0 ? ['nginx', 'bootsmith'] : ['bootsmith', 'nginx'];
    for (const server of order) {
      const url = new URL(server === 'nginx' ? pair.nginxUrl : pair.bootsmithUrl);
      const random = seeded(o.seed + r);
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        times.push(await oneRequest(url, Math.floor(random() * (pair.size - RANGE_BYTES))));
      }
      const sorted = [...times].sort((a, b) => a - b);
      const run = {
        repeat: r,
        server,
        p50: round(percentile(sorted, 50), 3),
        p99: round(percentile(sorted, 99), 3),
        mean: round(times.reduce((a, b) => a + b, 0) / times.length, 3),
      };
      runs.push(run);
      ctx.log(`  fresh connection ${server.padEnd(9)} p50 ${run.p50} ms  p99 ${run.p99} ms  (${count} requests)`);
    }
  }
  const ratio = (f: (x: (typeof runs)[number]) => number) =>
    [...Array(o.repeats).keys()].map((r) => {
      const b = runs.find((x) => x.repeat === r && x.server === 'bootsmith')!;
      const n = runs.find((x) => x.repeat === r && x.server === 'nginx')!;
      return f(b) / f(n);
    });
  const of = (s: Server, f: (x: (typeof runs)[number]) => number) => median(runs.filter((x) => x.server === s).map(f));
  const make = (key: 'p50' | 'p99') => {
    const ratios = ratio((x) => x[key]);
    return figure({
      id: `fresh-connection-${key}`,
      workload: 11,
      title: `1 MiB range on a new connection per request: ${key}`,
      unit: 'ms',
      value: of('bootsmith', (x) => x[key]),
      comparator: { name: 'nginx', value: of('nginx', (x) => x[key]) },
      ratio: median(ratios),
      target: { kind: 'max', on: 'ratio', value: 1.5, text: '≤ 1.5×' },
      higherIsBetter: false,
      details: {
        requestsPerRun: count,
        ratiosPerRepeat: ratios.map((x) => round(x, 3)),
        ratioSpread: round(spread(ratios), 3),
        runs,
      },
    });
  };
  return [make('p50'), make('p99')];
}
