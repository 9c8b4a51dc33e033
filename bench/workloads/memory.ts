// Workload 4, memory: peak RSS of a fresh bootsmith process while 200 clients download the
// same InfraEnv's full ISO at once, for a 1 GiB and a 4 GiB sparse base. The downloads run
// for a fixed time, not to the end (200 whole downloads of a 4 GiB ISO take many minutes;
// the streaming buffers peak within seconds). The peak is RSS sampled every 25 ms (and VmHWM after
// resetting it, clear_refs 5, just before the load, where no ISO is mapped), less the resident
// pages of bootsmith's read-only mappings of the base ISO (isoMappingKiB: `HTTP_BODY_IO=auto`
// writes cached bytes from a mapping, so the page cache's pages of the ISO count in its RssFile;
// they are the pages any reader shares, and nginx's sendfile counts them nowhere). The pages left
// out are in the details (`isoMappedPeakMiB`).
//
// Two configurations: the default all-in-one (core on the embedded PostgreSQL server + image
// side), measured over the whole process tree (bootsmith and its PostgreSQL processes, summed
// PSS sampled every 100 ms; summed RSS in the details), and the image side alone (--role image in front of the bench's fake assisted-service),
// which isolates what streaming costs from what the embedded database costs.
// nginx under the same load is the comparator for the 1 GiB base; the 1 GiB figure of the
// same configuration is the comparator for the 4 GiB one (flat = at most 1.1×).
import { randomUUID } from 'node:crypto';
import { accounted, type Context } from '../lib/context.js';
import { startDownloads } from '../lib/clients.js';
import type { BaseIso } from '../lib/iso.js';
import { warmPageCache } from '../lib/iso.js';
import { isoMappingKiB, memoryStatus, resetPeakRss, sleep, treeMemory } from '../lib/proc.js';
import { type Figure, figure } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { round } from '../lib/system.js';
import { FakeAssistedService } from '../lib/upstream.js';
import type { Pair } from './pair.js';

const MiB = 1024;

type Mode = 'all-in-one' | 'image';

interface MemoryRun {
  server: 'bootsmith' | 'nginx';
  mode: Mode | undefined;
  isoBytes: number;
  idleRssMiB: number;
  peakRssMiB: number;
  /** Peak minus idle: what the 200 streams themselves cost. */
  streamingMiB: number;
  sampledPeakRssMiB: number;
  hwmReset: boolean;
  clients: number;
  clientsReceiving: number;
  megabytesPerSecond: number;
  bytesPerClientMedian: number;
  foreignShare: number | undefined;
  /** Peak resident KiB of the base ISO's mapping, left out of the figures above (MiB). */
  isoMappedPeakMiB?: number;
  /** All-in-one: processes in the tree (bootsmith + PostgreSQL). Its idle/peak figures are summed PSS, sampledPeakRssMiB summed RSS. */
  processes?: number;
}

async function load(ctx: Context, url: string, rss: () => number, serverCpu: () => number, everyMs = 25) {
  const o = ctx.options;
  let sampled = 0;
  const timer = setInterval(() => {
    sampled = Math.max(sampled, rss());
  }, everyMs);
  try {
    const { result, cpu } = await accounted(
      serverCpu,
      () =>
        startDownloads(ctx.tools.curl, Array<string>(o.memoryClients).fill(url), { maxSeconds: o.memorySeconds })
          .result,
    );
    return { result, cpu, sampledKiB: Math.max(sampled, rss()) };
  } finally {
    clearInterval(timer);
  }
}

async function bootsmithRun(ctx: Context, iso: BaseIso, mode: Mode, fake: FakeAssistedService): Promise<MemoryRun> {
  const name = `bootsmith-memory-${mode}-${iso.paddingMiB}`;
  const service = await ctx.startBootsmith(name, {
    isoPath: iso.path,
    ...(mode === 'image' ? { role: 'image', env: { ASSISTED_SERVICE_URL: fake.url } } : {}),
  });
  try {
    const url =
      mode === 'image'
        ? `${service.url}/byid/${randomUUID()}/4.17/x86_64/full.iso`
        : (await service.createInfraEnv('memory')).downloadUrl;
    const head = await fetch(url, { method: 'HEAD' }); // builds the artifact
    if (head.status !== 200) throw new Error(`HEAD ${url}: ${head.status}`);
    await sleep(1000);
    if (mode === 'all-in-one') {
      // the process tree: node's VmHWM says nothing about PostgreSQL's processes
      const idleTree = treeMemory(service.pid);
      let peakRss = idleTree.rssKiB;
      let mappedPeak = 0;
      const tree = () => {
        const m = treeMemory(service.pid);
        const mapped = isoMappingKiB(service.pid);
        mappedPeak = Math.max(mappedPeak, mapped.rssKiB);
        peakRss = Math.max(peakRss, m.rssKiB - mapped.rssKiB);
        return m.pssKiB - mapped.pssKiB;
      };
      const { result, cpu, sampledKiB } = await load(ctx, url, tree, () => service.cpuSeconds(), 100);
      return {
        server: 'bootsmith',
        mode,
        isoBytes: iso.size,
        idleRssMiB: round(idleTree.pssKiB / MiB, 1),
        peakRssMiB: round(sampledKiB / MiB, 1),
        streamingMiB: round((sampledKiB - idleTree.pssKiB) / MiB, 1),
        sampledPeakRssMiB: round(peakRss / MiB, 1),
        hwmReset: false,
        clients: result.clients,
        clientsReceiving: result.sizes.filter((n) => n > 0).length,
        megabytesPerSecond: round(result.bytes / cpu.wallSeconds / 1e6, 1),
        bytesPerClientMedian: Math.round(median(result.sizes)),
        foreignShare: cpu.foreignShare,
        isoMappedPeakMiB: round(mappedPeak / MiB, 1),
        processes: idleTree.processes,
      };
    }
    const idle = memoryStatus(service.pid)!;
    const hwmReset = resetPeakRss(service.pid);
    let mappedPeak = 0;
    const { result, cpu, sampledKiB } = await load(
      ctx,
      url,
      () => {
        const mapped = isoMappingKiB(service.pid).rssKiB;
        mappedPeak = Math.max(mappedPeak, mapped);
        return (memoryStatus(service.pid)?.rssKiB ?? 0) - mapped;
      },
      () => service.cpuSeconds(),
    );
    const after = memoryStatus(service.pid)!;
    // VmHWM counts the mapping's pages too: it bounds the peak only while none were mapped
    const peakKiB = Math.max(sampledKiB, hwmReset && mappedPeak === 0 ? after.hwmKiB : 0);
    return {
      server: 'bootsmith',
      mode,
      isoBytes: iso.size,
      idleRssMiB: round(idle.rssKiB / MiB, 1),
      peakRssMiB: round(peakKiB / MiB, 1),
      streamingMiB: round((peakKiB - idle.rssKiB) / MiB, 1),
      sampledPeakRssMiB: round(sampledKiB / MiB, 1),
      hwmReset,
      clients: result.clients,
      clientsReceiving: result.sizes.filter((n) => n > 0).length,
      megabytesPerSecond: round(result.bytes / cpu.wallSeconds / 1e6, 1),
      bytesPerClientMedian: Math.round(median(result.sizes)),
      foreignShare: cpu.foreignShare,
      isoMappedPeakMiB: round(mappedPeak / MiB, 1),
    };
  } finally {
    await service.stop();
  }
}

async function nginxRun(ctx: Context, pair: Pair): Promise<MemoryRun> {
  const idleKiB = pair.nginx.rssKiB();
  const { result, cpu, sampledKiB } = await load(
    ctx,
    pair.nginxUrl,
    () => pair.nginx.rssKiB(),
    () => pair.nginx.cpuSeconds(),
  );
  return {
    server: 'nginx',
    mode: undefined,
    isoBytes: pair.size,
    idleRssMiB: round(idleKiB / MiB, 1),
    peakRssMiB: round(sampledKiB / MiB, 1),
    streamingMiB: round((sampledKiB - idleKiB) / MiB, 1),
    sampledPeakRssMiB: round(sampledKiB / MiB, 1),
    hwmReset: false,
    clients: result.clients,
    clientsReceiving: result.sizes.filter((n) => n > 0).length,
    megabytesPerSecond: round(result.bytes / cpu.wallSeconds / 1e6, 1),
    bytesPerClientMedian: Math.round(median(result.sizes)),
    foreignShare: cpu.foreignShare,
  };
}

function describe(r: MemoryRun): string {
  return (
    `idle ${r.idleRssMiB} MiB, peak ${r.peakRssMiB} MiB (+${r.streamingMiB} MiB for the streams; ` +
    `${r.clientsReceiving}/${r.clients} clients receiving, ${r.megabytesPerSecond} MB/s, others ${r.foreignShare ?? '?'} of the machine)`
  );
}

export async function memory(ctx: Context, pair: Pair, big: BaseIso): Promise<Figure[]> {
  const o = ctx.options;
  const fake = new FakeAssistedService();
  await fake.start();
  try {
    const ngx = await nginxRun(ctx, pair);
    ctx.log(`  memory nginx: ${describe(ngx)}`);
    const small: Record<Mode, MemoryRun> = {
      'all-in-one': await bootsmithRun(ctx, ctx.base, 'all-in-one', fake),
      image: await bootsmithRun(ctx, ctx.base, 'image', fake),
    };
    for (const r of Object.values(small)) ctx.log(`  memory ${r.mode} ${r.isoBytes} B base: ${describe(r)}`);
    const warm = await warmPageCache(big.path);
    ctx.log(`  warmed the ${big.paddingMiB} MiB base in ${warm.toFixed(1)} s`);
    const large: Record<Mode, MemoryRun> = {
      'all-in-one': await bootsmithRun(ctx, big, 'all-in-one', fake),
      image: await bootsmithRun(ctx, big, 'image', fake),
    };
    for (const r of Object.values(large)) ctx.log(`  memory ${r.mode} ${r.isoBytes} B base: ${describe(r)}`);
    const gib = (b: number) => `${round(b / 2 ** 30, 2)} GiB`;
    const runs = [ngx, ...Object.values(small), ...Object.values(large)];
    const figures: Figure[] = [];
    for (const mode of ['all-in-one', 'image'] as const) {
      const s = small[mode];
      const l = large[mode];
      const label =
        mode === 'all-in-one' ? 'all-in-one (embedded PostgreSQL; process tree, summed PSS)' : '--role image';
      figures.push(
        figure({
          id: `memory-${mode}-small`,
          workload: 4,
          title: `peak RSS, ${o.memoryClients} downloads, ${gib(s.isoBytes)} base, ${label}`,
          unit: 'MiB',
          value: s.peakRssMiB,
          comparator: { name: 'nginx', value: ngx.peakRssMiB },
          target: { kind: 'max', on: 'value', value: 256, text: '≤ 256 MiB' },
          higherIsBetter: false,
          details: {
            idleRssMiB: s.idleRssMiB,
            streamingMiB: s.streamingMiB,
            seconds: o.memorySeconds,
            note: 'downloads run for a fixed time, not to the end',
            ...(mode === 'all-in-one' ? { runs } : {}),
          },
        }),
        figure({
          id: `memory-${mode}-large`,
          workload: 4,
          title: `peak RSS, ${o.memoryClients} downloads, ${gib(l.isoBytes)} base, ${label}`,
          unit: 'MiB',
          value: l.peakRssMiB,
          comparator: { name: `${gib(s.isoBytes)} base`, value: s.peakRssMiB },
          target: { kind: 'max', on: 'ratio', value: 1.1, text: '≤ 1.1× (flat)' },
          higherIsBetter: false,
          details: { idleRssMiB: l.idleRssMiB, streamingMiB: l.streamingMiB, withinBudget: l.peakRssMiB <= 256 },
        }),
      );
    }
    return figures;
  } finally {
    await fake.stop();
  }
}
