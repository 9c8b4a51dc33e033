// Workload 7, the default configuration's start and idle cost: `bootsmith serve` with no
// DATABASE_URL on an empty DATA_DIR (first start: initdb of the embedded PostgreSQL, migrations)
// until both /health and the assisted API answer 200; stopped and started again on the same
// DATA_DIR (warm start); then the idle memory of the whole process tree (bootsmith and its
// PostgreSQL processes), summed PSS (RSS summed too, in the details), 3 s after an InfraEnv
// was created and its ISO's headers built. Medians of `repeats` runs, each on a fresh DATA_DIR.
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Context } from '../lib/context.js';
import { sleep, treeMemory } from '../lib/proc.js';
import { type Figure, figure } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { round } from '../lib/system.js';

const API_READY = '/api/assisted-install/v2/infra-envs';

async function timedStart(ctx: Context, name: string, dataDir: string) {
  const t0 = performance.now();
  const service = await ctx.startBootsmith(name, { dataDir });
  for (let i = 0; i < 600; i++) {
    const r = await fetch(service.url + API_READY).catch(() => undefined);
    if (r?.status === 200) break;
    await sleep(10);
  }
  return { service, seconds: (performance.now() - t0) / 1000 };
}

export async function startup(ctx: Context): Promise<Figure[]> {
  const repeats = Math.max(1, ctx.options.repeats);
  const first: number[] = [];
  const warm: number[] = [];
  const idle: Array<{ pssMiB: number; rssMiB: number; processes: number }> = [];
  for (let i = 0; i < repeats; i++) {
    const dataDir = path.join(ctx.runDir, `startup-${i}-data`);
    rmSync(dataDir, { recursive: true, force: true });
    const a = await timedStart(ctx, `bootsmith-startup-first-${i}`, dataDir);
    first.push(a.seconds);
    await a.service.stop();
    const b = await timedStart(ctx, `bootsmith-startup-warm-${i}`, dataDir);
    warm.push(b.seconds);
    try {
      const ie = await b.service.createInfraEnv('idle');
      await fetch(ie.downloadUrl, { method: 'HEAD' });
      await sleep(3000);
      const m = treeMemory(b.service.pid);
      idle.push({ pssMiB: round(m.pssKiB / 1024, 1), rssMiB: round(m.rssKiB / 1024, 1), processes: m.processes });
    } finally {
      await b.service.stop();
    }
    ctx.log(
      `  start ${i + 1}/${repeats}: first ${first[i]!.toFixed(2)} s, warm ${warm[i]!.toFixed(2)} s, idle tree ${JSON.stringify(idle[i])}`,
    );
  }
  const idlePss = median(idle.map((x) => x.pssMiB));
  return [
    figure({
      id: 'start-first',
      workload: 7,
      title: 'first start to ready (empty DATA_DIR, embedded PostgreSQL initdb)',
      unit: 's',
      value: round(median(first), 2),
      comparator: { name: 'warm start', value: round(median(warm), 2) },
      target: { kind: 'max', on: 'value', value: 5, text: '≤ 5 s' },
      higherIsBetter: false,
      details: { runs: first },
    }),
    figure({
      id: 'start-warm',
      workload: 7,
      title: 'warm start to ready (same DATA_DIR)',
      unit: 's',
      value: round(median(warm), 2),
      comparator: { name: 'first start', value: round(median(first), 2) },
      target: { kind: 'max', on: 'value', value: 2, text: '≤ 2 s' },
      higherIsBetter: false,
      details: { runs: warm },
    }),
    figure({
      id: 'idle-tree',
      workload: 7,
      title: 'idle memory, all-in-one default, bootsmith + PostgreSQL processes (summed PSS)',
      unit: 'MiB',
      value: idlePss,
      comparator: { name: 'summed RSS', value: median(idle.map((x) => x.rssMiB)) },
      target: { kind: 'max', on: 'value', value: 150, text: '≤ 150 MiB' },
      higherIsBetter: false,
      details: { runs: idle },
    }),
  ];
}
