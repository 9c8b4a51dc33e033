// `npm run bench`: bootsmith against nginx serving the same bytes, side by side in one run.
// Runs the six workloads of issue 6 (see bench/README.md), prints a table, and writes
// bench/results/<date>.json (every figure with its same-run comparator, the machine, the
// date, the ISO size) and bench/results/<date>.svg (ratio to comparator per figure, with
// targets). `--smoke` is a short variant for CI whose results go to bench/work/results.
//
// Every process the run starts (bootsmith, nginx, curl, wrk, a PostgreSQL cluster that was
// down) is stopped before it exits, also on Ctrl-C.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chartSvg } from './lib/chart.js';
import { type Context, makeStarter, type Options } from './lib/context.js';
import { FAULT_EVERY } from '../test/support/redfish-emulator/fleet-mix.js';
import { bootableIso } from './lib/bmc-fleet.js';
import { baseIso, type BaseIso, REAL_ROOTFS_MIB_MAX } from './lib/iso.js';
import { stopAll } from './lib/proc.js';
import { type Figure, markdownTable, table } from './lib/report.js';
import { backgroundLoad, type Background, ensureTools, machineInfo, round } from './lib/system.js';
import { fullDownload } from './workloads/downloads.js';
import { freshConnection } from './workloads/fresh-connection.js';
import { freshFirstByte } from './workloads/fresh-first-byte.js';
import { heartbeatRate } from './workloads/heartbeat.js';
import { https } from './workloads/https.js';
import { ipxeFleet } from './workloads/ipxe-fleet.js';
import { memory } from './workloads/memory.js';
import { bmcFleetQemu, QEMU_FLEET_PROFILES } from './workloads/bmc-fleet-qemu.js';
import { bmcFleetScale } from './workloads/bmc-fleet-scale.js';
import { bmcFleetVirtual, VIRTUAL_FLEET_PROFILES } from './workloads/bmc-fleet-virtual.js';
import { type Pair, startPair, stopPair } from './workloads/pair.js';
import { rangeStorm } from './workloads/range-storm.js';
import { startup } from './workloads/startup.js';
import { upstreamEconomy } from './workloads/upstream-economy.js';

const USAGE = `usage: node bench/run.mjs [options]            (npm run bench -- [options])
  --smoke                a ~10 s-of-load variant for CI (64 MiB ISO, 1 repeat, short phases)
  --only 1,2,...         workloads to run (1 download, 2 range storm, 3 fresh first byte,
                         4 memory, 5 upstream economy, 6 heartbeat, 7 start and idle memory,
                         8 HTTPS download and range storm against nginx with ssl,
                         9 bmc-fleet-qemu, 10 bmc-fleet-virtual, 11 fresh-connection: a 1 MiB
                         range on a new connection per request, 12 bmc-fleet-scale, 13 ipxe-fleet:
                         iPXE clients through the PXE front door's /boot.ipxe to their scripts;
                         names work too); default all but 12 (--smoke: all but 9, which boots
                         qemu guests, and 12)
  --guests N             workload 9: qemu guests behind emulated BMCs (default 8)
  --bmcs N               workload 10: emulated BMCs with virtual guests (default 200; smoke 8)
  --ipxe-clients N       workload 13: iPXE clients at once (default 100; smoke 20)
  --scale-bmcs N         workload 12: emulated BMCs, 1 in 20 each slow, dead, 409 after power-off,
                         session-limited (default 1000)
  --bmc-profiles a,b     emulator profiles mixed over workload 9's guests (default all eight)
  --bmc-connection-per-read  workload 10's guests open a connection per range read (default:
                         one keep-alive connection per boot, as qemu's curl driver)
  --size-mib N           base ISO size in MiB: an incompressible random rootfs of N MiB
                         (default 1024; the ISO is ~1 MiB larger)
  --sparse               sparse zero padding instead of the random rootfs (flatters a
                         copying server; results record which)
  --big-size-mib N       second base for workload 4 (default 4000: the largest random rootfs
                         ISO 9660 level 1 allows in one file; 4096 with --sparse)
  --repeats N            side-by-side repeats of workloads 1 and 2 (default 3)
  --storm-seconds N      range storm duration (default 20)
  --storm-warmup N       seconds of unmeasured storm per server before the measured ones (default 10; 0: none)
  --fresh N              InfraEnvs for workload 3 (default 200)
  --memory-clients N     concurrent downloads for workload 4 (default 200)
  --memory-seconds N     how long they run (default 20)
  --hosts N              registered hosts for workload 6 (default 5000)
  --hosts-per-infraenv N how the hosts are spread over InfraEnvs (default 100)
  --heartbeat-seconds N  (default 20)
  --nginx-workers N|auto nginx worker_processes (default 1: one event loop, like bootsmith)
  --nginx-sendfile on|off  nginx sendfile (default on); off: nginx copies through user-space
                         buffers as bootsmith does (what zero-copy could save at most)
  --seed N               seed of the random Range requests (default 6)
  --no-postgres          skip workload 6 on PostgreSQL
  --database-url URL     PostgreSQL to use instead of a throwaway database in the local cluster
  --cpu-prof             run every bootsmith with node --cpu-prof (profiles in bench/work/profiles)
  --auth none|local|local-jwt  AUTH_TYPE of the bootsmith workloads 1, 2, 3 and 11 serve from (default
                         none; local: its download_url, whose short token is resolved per read;
                         local-jwt: AUTH_TYPE=local and a /bytoken/ URL carrying the InfraEnv's
                         HS256 image token, verified per read)
  --body-io MODE         HTTP_BODY_IO of every bootsmith (auto, sendfile, portable); default the service's
  --service-root DIR     the build under test (DIR/dist/src/cli/main.js); default this checkout
  --out DIR              where results go (default bench/results, bench/work/results for --smoke)
  --no-write             print only
  --keep                 keep the run directory (logs, nginx config) in bench/work`;

/** Workloads that also answer to a name in `--only`. */
const WORKLOAD_NAMES: Readonly<Record<string, number>> = {
  'bmc-fleet-qemu': 9,
  'bmc-fleet-virtual': 10,
  'fresh-connection': 11,
  'bmc-fleet-scale': 12,
  'ipxe-fleet': 13,
};

function workloadNumber(text: string): number {
  const n = WORKLOAD_NAMES[text] ?? Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 13) throw new Error(`--only: no workload ${text}`);
  return n;
}

function parseOptions(argv: readonly string[], benchDir: string): Options | string {
  const smoke = argv.includes('--smoke');
  const o: Options = {
    smoke,
    only: new Set(smoke ? [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 13] : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]),
    sizeMiB: smoke ? 64 : 1024,
    bigSizeMiB: 0, // resolved below: it depends on --sparse
    sparse: false,
    repeats: smoke ? 1 : 3,
    downloadClients: [1, 8],
    stormSeconds: smoke ? 2 : 20,
    stormWarmupSeconds: smoke ? 1 : 10,
    stormConnections: 64,
    freshCount: smoke ? 20 : 200,
    copyRepeats: smoke ? 1 : 3,
    memoryClients: smoke ? 50 : 200,
    memorySeconds: smoke ? 2 : 20,
    upstreamSeconds: smoke ? 2 : 20,
    hosts: smoke ? 500 : 5000,
    hostsPerInfraEnv: 100,
    heartbeatSeconds: smoke ? 2 : 20,
    heartbeatConnections: 64,
    wrkThreads: 2,
    nginxWorkers: '1',
    nginxSendfile: true,
    seed: 6,
    postgres: true,
    databaseUrl: undefined,
    cpuProf: false,
    bodyIo: undefined,
    auth: 'none',
    serviceRoot: path.resolve(benchDir, '..'),
    outDir: path.join(benchDir, smoke ? 'work/results' : 'results'),
    workDir: path.join(benchDir, 'work'),
    keep: false,
    write: true,
    guests: 8,
    bmcs: smoke ? 8 : 200,
    scaleBmcs: 1000,
    ipxeClients: smoke ? 20 : 100,
    bmcProfiles: [...QEMU_FLEET_PROFILES],
    bmcProfilesVirtual: [...VIRTUAL_FLEET_PROFILES],
    bmcConnectionPerRead: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const int = (): number => {
      const v = Number(value());
      if (!Number.isInteger(v) || v < 0) throw new Error(`${a} needs a whole number`);
      return v;
    };
    switch (a) {
      case '--smoke':
        break;
      case '--only':
        o.only = new Set(value().split(',').map(workloadNumber));
        break;
      case '--guests':
        o.guests = Math.max(1, int());
        break;
      case '--ipxe-clients':
        o.ipxeClients = Math.max(1, int());
        break;
      case '--scale-bmcs':
        o.scaleBmcs = Math.max(FAULT_EVERY, int());
        break;
      case '--bmcs':
        o.bmcs = Math.max(1, int());
        break;
      case '--bmc-connection-per-read':
        o.bmcConnectionPerRead = true;
        break;
      case '--bmc-profiles':
        o.bmcProfiles = value().split(',').filter(Boolean);
        break;
      case '--size-mib':
        o.sizeMiB = int();
        break;
      case '--sparse':
        o.sparse = true;
        break;
      case '--big-size-mib':
        o.bigSizeMiB = int();
        break;
      case '--repeats':
        o.repeats = Math.max(1, int());
        break;
      case '--storm-seconds':
        o.stormSeconds = Math.max(1, int());
        break;
      case '--storm-warmup':
        o.stormWarmupSeconds = Math.max(0, int());
        break;
      case '--fresh':
        o.freshCount = Math.max(1, int());
        break;
      case '--memory-clients':
        o.memoryClients = Math.max(1, int());
        break;
      case '--memory-seconds':
        o.memorySeconds = Math.max(1, int());
        break;
      case '--upstream-seconds':
        o.upstreamSeconds = Math.max(1, int());
        break;
      case '--hosts':
        o.hosts = Math.max(1, int());
        break;
      case '--hosts-per-infraenv':
        o.hostsPerInfraEnv = Math.max(1, int());
        break;
      case '--heartbeat-seconds':
        o.heartbeatSeconds = Math.max(1, int());
        break;
      case '--nginx-workers':
        o.nginxWorkers = value();
        break;
      case '--nginx-sendfile': {
        const v = value();
        if (v !== 'on' && v !== 'off') throw new Error('--nginx-sendfile must be on or off');
        o.nginxSendfile = v === 'on';
        break;
      }
      case '--seed':
        o.seed = int();
        break;
      case '--no-postgres':
        o.postgres = false;
        break;
      case '--database-url':
        o.databaseUrl = value();
        break;
      case '--cpu-prof':
        o.cpuProf = true;
        break;
      case '--body-io':
        o.bodyIo = value();
        if (!['auto', 'sendfile', 'portable'].includes(o.bodyIo))
          throw new Error('--body-io must be auto, sendfile or portable');
        break;
      case '--auth': {
        const v = value();
        if (v !== 'none' && v !== 'local' && v !== 'local-jwt')
          throw new Error('--auth must be none, local or local-jwt');
        o.auth = v;
        break;
      }
      case '--service-root':
        o.serviceRoot = path.resolve(value());
        break;
      case '--out':
        o.outDir = path.resolve(value());
        break;
      case '--no-write':
        o.write = false;
        break;
      case '--keep':
        o.keep = true;
        break;
      case '--help':
      case '-h':
        return USAGE;
      default:
        throw new Error(`unknown option ${a}\n${USAGE}`);
    }
  }
  if (o.bigSizeMiB === 0) o.bigSizeMiB = smoke ? 256 : o.sparse ? 4096 : REAL_ROOTFS_MIB_MAX;
  if (!o.sparse && (o.sizeMiB > REAL_ROOTFS_MIB_MAX || o.bigSizeMiB > REAL_ROOTFS_MIB_MAX))
    throw new Error(
      `a random rootfs holds at most ${REAL_ROOTFS_MIB_MAX} MiB (one ISO 9660 file); use --sparse for more`,
    );
  if (!/^(\d+|auto)$/.test(o.nginxWorkers)) throw new Error('--nginx-workers must be a number or auto');
  return o;
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19);
}

interface ResultsFile {
  date: string;
  mode: string;
  machine?: { cpus: number; cpuModel: string; nginx: string };
  iso: { bytes: number; kind?: string };
  settings: { nginxWorkers: string; repeats: number; nginxSendfile?: boolean };
  figures: Figure[];
}

function chartMeta(r: ResultsFile): { title: string; subtitle: string } {
  const gib = round(r.iso.bytes / 2 ** 30, 2);
  return {
    title: `bootsmith vs nginx, same run — ${r.date}${r.mode === 'smoke' ? ' (smoke)' : ''}`,
    subtitle:
      `${gib} GiB CoreOS-style ISO (${r.iso.kind === 'real' ? 'random rootfs' : r.iso.kind === 'bootable' ? 'bootable fixture' : 'sparse'}) · ${r.machine?.cpus ?? os.cpus().length} × ${r.machine?.cpuModel ?? ''} · node ${process.version} · ` +
      `nginx ${r.machine?.nginx ?? ''} (${r.settings.nginxWorkers} worker${r.settings.nginxSendfile === false ? ', sendfile off' : ''}) · ${r.settings.repeats} repeat(s)`,
  };
}

/** `node bench/run.mjs report <results.json>`: rewrites the SVG beside it and prints the table as Markdown. */
export async function report(args: readonly string[]): Promise<number> {
  const file = args[0];
  if (!file) {
    process.stderr.write('usage: node bench/run.mjs report <bench/results/DATE.json>\n');
    return 2;
  }
  const results = JSON.parse(readFileSync(file, 'utf8')) as ResultsFile;
  const svg = file.replace(/\.json$/, '.svg');
  writeFileSync(svg, chartSvg(results.figures, chartMeta(results)));
  process.stdout.write(`${markdownTable(results.figures)}\n\nwrote ${svg}\n`);
  return 0;
}

export async function main(argv: readonly string[]): Promise<number> {
  const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench');
  const repoRoot = path.resolve(benchDir, '..');
  let parsed: Options | string;
  try {
    parsed = parseOptions(argv, benchDir);
  } catch (err) {
    process.stderr.write(`bench: ${(err as Error).message}\n`);
    return 2;
  }
  if (typeof parsed === 'string') {
    process.stdout.write(`${parsed}\n`);
    return 0;
  }
  const options = parsed;
  const started = new Date();
  const t0 = performance.now();
  const log = (line: string) =>
    process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

  let interrupted = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    log(`${sig}: stopping everything this run started`);
    void stopAll().then(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const runDir = path.join(options.workDir, `run-${stamp(started)}`);
  mkdirSync(runDir, { recursive: true });
  const figures: Figure[] = [];
  const failures: Array<{ workload: string; error: string }> = [];
  const background: Array<{ before: string } & Background> = [];
  let pair: Pair | undefined;
  let ctx: Context | undefined;
  let big: BaseIso | undefined;
  let machine;
  try {
    const tools = await ensureTools(log);
    const serviceMain = path.join(options.serviceRoot, 'dist', 'src', 'cli', 'main.js');
    machine = await machineInfo(tools, options.serviceRoot);
    log(
      `${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, node ${machine.node}, nginx ${machine.nginx}, wrk ${machine.wrk}`,
    );
    const kind = options.sparse ? 'sparse' : 'real';
    // workloads 9, 10 and 12 serve the bootable fixture: a run of only those builds no large base
    const base = [1, 2, 3, 4, 5, 6, 7, 8, 13].some((n) => options.only.has(n))
      ? await baseIso(repoRoot, options.workDir, options.sizeMiB, serviceMain, log, kind)
      : (await bootableIso(repoRoot, serviceMain, log)).base;
    const profileDir = options.cpuProf ? path.join(options.workDir, 'profiles', stamp(started)) : undefined;
    const partial = {
      options,
      tools,
      repoRoot,
      serviceMain,
      luaDir: path.join(benchDir, 'lua'),
      runDir,
      profileDir,
      base,
      log,
    };
    ctx = { ...partial, startBootsmith: makeStarter(partial) };
    const c = ctx;

    const step = async (n: number, name: string, fn: () => Promise<Figure[]>) => {
      if (!options.only.has(n) || interrupted) return;
      const bg = await backgroundLoad();
      background.push({ before: name, ...bg });
      log(
        `${n}. ${name} (machine ${Math.round(bg.busyFraction * 100)} % busy with other work, load ${bg.loadAverage1m})`,
      );
      try {
        figures.push(...(await fn()));
      } catch (err) {
        const error = (err as Error).stack ?? String(err);
        failures.push({ workload: name, error });
        log(`${name} FAILED: ${error}`);
      }
    };

    if ([1, 2, 3, 4, 11].some((n) => options.only.has(n))) {
      log('starting bootsmith and nginx side by side');
      pair = await startPair(c);
      log(`warm page cache: base ${pair.warmSeconds.base.toFixed(1)} s, copy ${pair.warmSeconds.copy.toFixed(1)} s`);
      const p = pair;
      await step(1, 'full download', () => fullDownload(c, p));
      await step(2, 'BMC range storm', () => rangeStorm(c, p));
      await step(11, 'new connection per request', () => freshConnection(c, p));
      await step(3, 'fresh first byte', () => freshFirstByte(c, p));
      await p.bootsmith.stop(); // workload 4 starts its own; nginx stays as its comparator
      if (options.only.has(4)) {
        big = await baseIso(repoRoot, options.workDir, options.bigSizeMiB, serviceMain, log, kind);
        const b = big;
        await step(4, 'memory', () => memory(c, p, b));
      }
      await stopPair(pair);
      pair = undefined;
    }
    await step(5, 'upstream economy', () => upstreamEconomy(c));
    await step(6, 'agent heartbeat rate', () => heartbeatRate(c));
    await step(7, 'start and idle memory', () => startup(c));
    await step(8, 'HTTPS download and range storm', () => https(c));
    await step(9, 'bmc-fleet-qemu', () => bmcFleetQemu(c));
    await step(10, 'bmc-fleet-virtual', () => bmcFleetVirtual(c));
    await step(12, 'bmc-fleet-scale', () => bmcFleetScale(c));
    await step(13, 'ipxe-fleet', () => ipxeFleet(c));
  } catch (err) {
    failures.push({ workload: 'setup', error: (err as Error).stack ?? String(err) });
    log(`FAILED: ${(err as Error).stack ?? String(err)}`);
  } finally {
    await stopPair(pair);
    await stopAll();
    if (!options.keep) rmSync(runDir, { recursive: true, force: true });
  }

  const finished = new Date();
  const date = started.toISOString().slice(0, 10);
  process.stdout.write(`\n${table(figures)}\n`);
  const missed = figures.filter((f) => f.met === false);
  if (missed.length > 0) process.stdout.write(`\ntargets missed: ${missed.map((f) => f.id).join(', ')}\n`);
  if (failures.length > 0)
    process.stdout.write(`\nworkloads that failed: ${failures.map((f) => f.workload).join(', ')}\n`);

  if (options.write && figures.length > 0 && ctx) {
    mkdirSync(options.outDir, { recursive: true });
    const name = options.smoke ? `${date}-smoke` : date;
    const results = {
      schema: 1,
      date,
      startedAt: started.toISOString(),
      finishedAt: finished.toISOString(),
      durationSeconds: round((finished.getTime() - started.getTime()) / 1000, 0),
      mode: options.smoke ? 'smoke' : 'full',
      machine,
      iso: {
        bytes: ctx.base.size,
        paddingMiB: ctx.base.paddingMiB,
        ignitionAreaBytes: ctx.base.layout.ignition.length,
        ...(big ? { largeBytes: big.size } : {}),
        kind: ctx.base.kind,
        generator: ctx.base.generator,
      },
      settings: {
        repeats: options.repeats,
        nginxWorkers: options.nginxWorkers,
        nginxSendfile: options.nginxSendfile,
        wrkThreads: options.wrkThreads,
        downloadClients: options.downloadClients,
        stormSeconds: options.stormSeconds,
        stormWarmupSeconds: options.stormWarmupSeconds,
        stormConnections: options.stormConnections,
        freshCount: options.freshCount,
        memoryClients: options.memoryClients,
        memorySeconds: options.memorySeconds,
        hosts: options.hosts,
        hostsPerInfraEnv: options.hostsPerInfraEnv,
        heartbeatSeconds: options.heartbeatSeconds,
        seed: options.seed,
        cpuProfiling: options.cpuProf,
        bodyIo: options.bodyIo ?? 'default',
        guests: options.guests,
        bmcs: options.bmcs,
        scaleBmcs: options.scaleBmcs,
        ipxeClients: options.ipxeClients,
        bmcProfiles: options.bmcProfiles,
        bmcProfilesVirtual: options.bmcProfilesVirtual,
        bmcConnectionPerRead: options.bmcConnectionPerRead,
      },
      background,
      figures,
      missed: missed.map((f) => f.id),
      failures,
      markdown: markdownTable(figures),
    };
    const jsonPath = path.join(options.outDir, `${name}.json`);
    writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
    const svgPath = path.join(options.outDir, `${name}.svg`);
    writeFileSync(svgPath, chartSvg(figures, chartMeta(results)));
    process.stdout.write(
      `\nwrote ${path.relative(process.cwd(), jsonPath)} and ${path.relative(process.cwd(), svgPath)}\n`,
    );
  }
  return failures.length > 0 ? 1 : 0;
}
