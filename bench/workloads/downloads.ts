// Workload 1, full download: N concurrent curl clients each download the whole ISO, from
// bootsmith (spliced while streaming) and from nginx (the pre-embedded copy, sendfile),
// alternating which server goes first in each repeat (ABBA), so that drifting background
// load hits both alike. Throughput = all bytes / the longest client's transfer time.
import type { CpuAccount } from '../lib/context.js';
import { accounted, type Context } from '../lib/context.js';
import { download } from '../lib/clients.js';
import { type Figure, figure } from '../lib/report.js';
import { max, median, spread } from '../lib/stats.js';
import { round } from '../lib/system.js';
import type { Pair } from './pair.js';

type Server = 'bootsmith' | 'nginx';

interface DownloadRun {
  repeat: number;
  server: Server;
  clients: number;
  megabytesPerSecond: number;
  cpu: CpuAccount;
  serverCpuSecondsPerGiB: number;
  clientCpuSecondsPerGiB: number | undefined;
  /** Busy time of the whole machine per GiB (server, clients, the kernel's loopback work, other load). */
  machineBusySecondsPerGiB: number;
}

/** Workload 8 runs the same measurement over HTTPS: other ids and titles, curl trusting the test CA. */
export interface Variant {
  idPrefix: string;
  workload: number;
  titlePrefix: string;
  curlArgs: readonly string[];
}

export async function fullDownload(
  ctx: Context,
  pair: Pick<Pair, 'bootsmith' | 'nginx' | 'bootsmithUrl' | 'nginxUrl' | 'size'>,
  variant?: Variant,
): Promise<Figure[]> {
  const prefix = variant?.idPrefix ?? '';
  const workload = variant?.workload ?? 1;
  const titlePrefix = variant?.titlePrefix ?? '';
  const figures: Figure[] = [];
  for (const clients of ctx.options.downloadClients) {
    const runs: DownloadRun[] = [];
    for (let r = 0; r < ctx.options.repeats; r++) {
      const order: Server[] = r % 2 === 0 ? ['nginx', 'bootsmith'] : ['bootsmith', 'nginx'];
      for (const server of order) {
        const url = server === 'nginx' ? pair.nginxUrl : pair.bootsmithUrl;
        const cpuOf = server === 'nginx' ? () => pair.nginx.cpuSeconds() : () => pair.bootsmith.cpuSeconds();
        const { result, cpu } = await accounted(cpuOf, () =>
          download(ctx.tools.curl, Array<string>(clients).fill(url), { curlArgs: variant?.curlArgs ?? [] }),
        );
        const bad = result.statuses.filter((s) => s !== '200');
        if (bad.length > 0 || result.bytes !== clients * pair.size) {
          throw new Error(
            `${server}: ${clients} downloads gave statuses ${result.statuses.join(',')} and ${result.bytes} bytes (expected ${clients * pair.size})`,
          );
        }
        const seconds = max(result.totalSeconds);
        const gib = result.bytes / 2 ** 30;
        const run: DownloadRun = {
          repeat: r,
          server,
          clients,
          megabytesPerSecond: round(result.bytes / seconds / 1e6, 1),
          cpu,
          serverCpuSecondsPerGiB: round(cpu.serverCpuSeconds / gib, 3),
          clientCpuSecondsPerGiB: cpu.clientCpuSeconds === undefined ? undefined : round(cpu.clientCpuSeconds / gib, 3),
          machineBusySecondsPerGiB: round(cpu.machineBusySeconds / gib, 3),
        };
        runs.push(run);
        ctx.log(
          `  ${titlePrefix}download ×${clients} ${server.padEnd(9)} ${run.megabytesPerSecond} MB/s  server ${run.serverCpuSecondsPerGiB} CPU-s/GiB, ` +
            `clients ${run.clientCpuSecondsPerGiB} CPU-s/GiB, machine ${run.machineBusySecondsPerGiB} CPU-s/GiB, others ${cpu.foreignShare ?? '?'} of the machine`,
        );
      }
    }
    const of = (s: Server) => runs.filter((x) => x.server === s);
    const ratios = [];
    const machineRatios = [];
    for (let r = 0; r < ctx.options.repeats; r++) {
      const b = runs.find((x) => x.repeat === r && x.server === 'bootsmith')!;
      const n = runs.find((x) => x.repeat === r && x.server === 'nginx')!;
      ratios.push(b.megabytesPerSecond / n.megabytesPerSecond);
      machineRatios.push(b.machineBusySecondsPerGiB / n.machineBusySecondsPerGiB);
    }
    figures.push(
      figure({
        id: `${prefix}download-${clients}`,
        workload,
        title: `${titlePrefix}full download, ${clients} client${clients === 1 ? '' : 's'}`,
        unit: 'MB/s',
        value: median(of('bootsmith').map((x) => x.megabytesPerSecond)),
        comparator: { name: 'nginx', value: median(of('nginx').map((x) => x.megabytesPerSecond)) },
        ratio: median(ratios),
        target: { kind: 'min', on: 'ratio', value: 1, text: '≥ 1.0×' },
        higherIsBetter: true,
        details: {
          ratiosPerRepeat: ratios.map((x) => round(x, 3)),
          ratioSpread: round(spread(ratios), 3),
          serverCpuSecondsPerGiB: {
            bootsmith: median(of('bootsmith').map((x) => x.serverCpuSecondsPerGiB)),
            nginx: median(of('nginx').map((x) => x.serverCpuSecondsPerGiB)),
          },
          clientCpuSecondsPerGiB: {
            againstNginx: median(of('nginx').map((x) => x.clientCpuSecondsPerGiB ?? NaN)),
            againstBootsmith: median(of('bootsmith').map((x) => x.clientCpuSecondsPerGiB ?? NaN)),
          },
          foreignCpuShareMedian: median(runs.map((x) => x.cpu.foreignShare ?? NaN)),
          runs,
        },
      }),
    );
    {
      // every client count: CPU per GiB is steadier than MB/s on a shared machine
      figures.push(
        figure({
          id: `${prefix}download-${clients}-cpu`,
          workload,
          title: `${titlePrefix}server CPU per GiB sent, ${clients} client${clients === 1 ? '' : 's'}`,
          unit: 'CPU-s/GiB',
          value: median(of('bootsmith').map((x) => x.serverCpuSecondsPerGiB)),
          comparator: { name: 'nginx', value: median(of('nginx').map((x) => x.serverCpuSecondsPerGiB)) },
          higherIsBetter: false,
          details: {
            note: 'user + system time of the server process(es), all threads; less sensitive to other load than MB/s',
          },
        }),
        figure({
          id: `${prefix}download-${clients}-machine-cpu`,
          workload,
          title: `${titlePrefix}whole-machine busy CPU per GiB sent, ${clients} client${clients === 1 ? '' : 's'}`,
          unit: 'CPU-s/GiB',
          value: median(of('bootsmith').map((x) => x.machineBusySecondsPerGiB)),
          comparator: { name: 'nginx', value: median(of('nginx').map((x) => x.machineBusySecondsPerGiB)) },
          ratio: median(machineRatios),
          target: { kind: 'max', on: 'ratio', value: 1, text: '≤ 1.0×' },
          higherIsBetter: false,
          details: {
            note: "busy time of all cores (/proc/stat): server, curl, the kernel's loopback work and any other load",
            ratiosPerRepeat: machineRatios.map((x) => round(x, 3)),
            ratioSpread: round(spread(machineRatios), 3),
          },
        }),
      );
    }
  }
  return figures;
}
