// Workload 3, fresh first byte: the time from GET of a never-seen InfraEnv's ISO URL to the
// first body byte (Ignition rendering, compression, patch building, all of it), over many
// InfraEnvs created beforehand (creation is not timed), one request at a time on a new
// connection. The comparator is copy-then-embed, done for real: copy the base ISO
// (cp --reflink=never --sparse=never, the dense copy a real ISO needs), write the embed
// areas, then the first byte of the copy from nginx.
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Context } from '../lib/context.js';
import { timeToFirstByte } from '../lib/clients.js';
import { run } from '../lib/proc.js';
import { type Figure, figure } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import { round } from '../lib/system.js';
import type { Pair } from './pair.js';

const WARM_UP = 5;

/** The byte areas that differ between the base ISO and an InfraEnv's ISO. */
function embedAreas(ctx: Context): Array<{ offset: number; length: number }> {
  const l = ctx.base.layout;
  return [
    l.ignition,
    ...(l.kargs ? l.kargs.locations.map((loc) => ({ offset: loc.offset, length: l.kargs!.size })) : []),
  ];
}

function readAreas(file: string, areas: ReadonlyArray<{ offset: number; length: number }>): Buffer[] {
  const fd = openSync(file, 'r');
  try {
    return areas.map((a) => {
      const b = Buffer.alloc(a.length);
      readSync(fd, b, 0, a.length, a.offset);
      return b;
    });
  } finally {
    closeSync(fd);
  }
}

export async function freshFirstByte(ctx: Context, pair: Pair): Promise<Figure[]> {
  const o = ctx.options;
  const count = o.freshCount;
  const t0 = performance.now();
  const infraEnvs = [];
  for (let i = 0; i < count + WARM_UP; i++) infraEnvs.push(await pair.bootsmith.createInfraEnv(`fresh-${i}`));
  const creationMs = (performance.now() - t0) / (count + WARM_UP);
  ctx.log(`  created ${count + WARM_UP} InfraEnvs (${creationMs.toFixed(1)} ms each, not timed below)`);

  for (const ie of infraEnvs.slice(0, WARM_UP)) await timeToFirstByte(ie.downloadUrl);
  const fresh: number[] = [];
  for (const ie of infraEnvs.slice(WARM_UP)) fresh.push((await timeToFirstByte(ie.downloadUrl)).ms);
  // the same request once the artifact exists (what every later request of a BMC pays)
  const seen: number[] = [];
  for (const ie of infraEnvs.slice(WARM_UP, WARM_UP + Math.min(50, count)))
    seen.push((await timeToFirstByte(ie.downloadUrl)).ms);
  const nginxFirstByte: number[] = [];
  for (let i = 0; i < Math.min(50, count); i++) nginxFirstByte.push((await timeToFirstByte(pair.nginxUrl)).ms);
  ctx.log(
    `  fresh first byte: median ${median(fresh).toFixed(2)} ms, p99 ${percentile(fresh, 99).toFixed(2)} ms; ` +
      `already seen ${median(seen).toFixed(2)} ms; nginx ${median(nginxFirstByte).toFixed(2)} ms`,
  );

  // copy-then-embed, for real
  const areas = embedAreas(ctx);
  const patches = readAreas(pair.copyPath, areas);
  const copies: Array<{ copyMs: number; embedMs: number; firstByteMs: number; totalMs: number }> = [];
  for (let i = 0; i < o.copyRepeats; i++) {
    const target = path.join(pair.nginx.wwwDir, `copy-${i}.iso`);
    const c0 = performance.now();
    await run('cp', ['--reflink=never', '--sparse=never', ctx.base.path, target]);
    const c1 = performance.now();
    const fd = openSync(target, 'r+');
    areas.forEach((a, k) => writeSync(fd, patches[k]!, 0, a.length, a.offset));
    closeSync(fd);
    const c2 = performance.now();
    const firstByteMs = (await timeToFirstByte(`${pair.nginx.url}/copy-${i}.iso`)).ms;
    rmSync(target, { force: true });
    const entry = {
      copyMs: round(c1 - c0, 1),
      embedMs: round(c2 - c1, 2),
      firstByteMs: round(firstByteMs, 2),
      totalMs: round(c2 - c0 + firstByteMs, 1),
    };
    copies.push(entry);
    ctx.log(
      `  copy-then-embed: copy ${entry.copyMs} ms + embed ${entry.embedMs} ms + first byte ${entry.firstByteMs} ms`,
    );
  }
  const reference = median(copies.map((c) => c.totalMs));
  const details = {
    infraEnvs: count,
    creationMsEach: round(creationMs, 2),
    freshMs: {
      median: round(median(fresh), 3),
      p90: round(percentile(fresh, 90), 3),
      p99: round(percentile(fresh, 99), 3),
      max: round(percentile(fresh, 100), 3),
    },
    alreadySeenMs: { median: round(median(seen), 3), p99: round(percentile(seen, 99), 3) },
    nginxFirstByteMs: { median: round(median(nginxFirstByte), 3), p99: round(percentile(nginxFirstByte, 99), 3) },
    copyThenEmbed: copies,
    copyNote: 'cp of the page-cached base into the page cache, no fsync: the most favourable case for copy-then-embed',
    samplesMs: fresh.map((x) => round(x, 3)),
  };
  return [
    figure({
      id: 'fresh-ttfb-median',
      workload: 3,
      title: `fresh first byte, median of ${count} InfraEnvs`,
      unit: 'ms',
      value: median(fresh),
      comparator: { name: 'copy-then-embed', value: reference },
      target: { kind: 'max', on: 'value', value: 10, text: '≤ 10 ms' },
      higherIsBetter: false,
      details,
    }),
    figure({
      id: 'fresh-ttfb-p99',
      workload: 3,
      title: `fresh first byte, p99 of ${count} InfraEnvs`,
      unit: 'ms',
      value: percentile(fresh, 99),
      comparator: { name: 'copy-then-embed (max)', value: Math.max(...copies.map((c) => c.totalMs)) },
      higherIsBetter: false,
    }),
  ];
}
