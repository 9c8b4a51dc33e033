// Options of a run and what every workload shares: tools, the base ISO, directories, the
// log, how to start bootsmith, and the CPU bookkeeping that separates our processes' CPU
// time from everyone else's on a shared machine.
import os from 'node:os';
import path from 'node:path';
import { Bootsmith, type BootsmithOptions } from './bootsmith.js';
import type { BaseIso } from './iso.js';
import { machineCpu } from './proc.js';
import type { Tools } from './system.js';

export interface Options {
  smoke: boolean;
  only: Set<number>;
  sizeMiB: number;
  bigSizeMiB: number;
  /** Sparse zero padding instead of an incompressible rootfs (`--sparse`). */
  sparse: boolean;
  repeats: number;
  downloadClients: number[];
  stormSeconds: number;
  /** An unmeasured storm per server before the measured ones (`--storm-warmup`): both reach steady state. */
  stormWarmupSeconds: number;
  stormConnections: number;
  freshCount: number;
  copyRepeats: number;
  memoryClients: number;
  memorySeconds: number;
  upstreamSeconds: number;
  hosts: number;
  hostsPerInfraEnv: number;
  heartbeatSeconds: number;
  heartbeatConnections: number;
  wrkThreads: number;
  nginxWorkers: string;
  /** nginx `sendfile` (default on; `--nginx-sendfile off`: the copying comparator). */
  nginxSendfile: boolean;
  seed: number;
  postgres: boolean;
  databaseUrl: string | undefined;
  cpuProf: boolean;
  /** HTTP_BODY_IO of every bootsmith the run starts (`--body-io`); undefined: the service's default. */
  bodyIo: string | undefined;
  /**
   * AUTH_TYPE of the bootsmith the serving workloads (1, 2, 3, 11) start (`--auth`); default none.
   * local-jwt: AUTH_TYPE=local, the pair's URL carrying the InfraEnv's HS256 image token.
   */
  auth: 'none' | 'local' | 'local-jwt';
  serviceRoot: string;
  outDir: string;
  workDir: string;
  keep: boolean;
  write: boolean;
  /** Workload 9: qemu guests behind emulated BMCs (`--guests`). */
  guests: number;
  /** Workload 10: emulated BMCs with virtual guests (`--bmcs`). */
  bmcs: number;
  /** Workload 11: emulated BMCs of the fleet at scale, with its faulty twentieths (`--scale-bmcs`). */
  scaleBmcs: number;
  /** Emulator profiles mixed over workload 9's guests and workload 10's BMCs. */
  bmcProfiles: string[];
  bmcProfilesVirtual: string[];
  /** Workload 10: a new connection per range read instead of qemu's one keep-alive connection per boot. */
  bmcConnectionPerRead: boolean;
  /** Workload 13: iPXE clients at once through the front door (`--ipxe-clients`). */
  ipxeClients: number;
}

export interface Context {
  options: Options;
  tools: Tools;
  repoRoot: string;
  serviceMain: string;
  luaDir: string;
  runDir: string;
  profileDir: string | undefined;
  base: BaseIso;
  log(line: string): void;
  startBootsmith(name: string, o: Partial<BootsmithOptions> & { isoPath?: string }): Promise<Bootsmith>;
}

export function makeStarter(ctx: Omit<Context, 'startBootsmith'>): Context['startBootsmith'] {
  return (name, o) =>
    Bootsmith.start({
      serviceMain: ctx.serviceMain,
      dataDir: path.join(ctx.runDir, `${name}-data`),
      logFile: path.join(ctx.runDir, `${name}.log`),
      isoPath: o.isoPath ?? ctx.base.path,
      ...o,
      env: { ...(ctx.options.bodyIo ? { HTTP_BODY_IO: ctx.options.bodyIo } : {}), ...o.env },
      nodeArgs: [
        ...(ctx.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ctx.profileDir, name)}`] : []),
        ...(o.nodeArgs ?? []),
      ],
    });
}

/** CPU accounting of one measurement: ours (server, clients) and everyone else's. */
export interface CpuAccount {
  wallSeconds: number;
  serverCpuSeconds: number;
  clientCpuSeconds: number | undefined;
  /** CPU used by processes that are neither the server nor the clients, as a share of all cores. */
  foreignShare: number | undefined;
  /**
   * Busy seconds of the whole machine (all cores, /proc/stat) during the measurement: server,
   * clients, the kernel's loopback work (which lands in whichever process sends) and anything else.
   */
  machineBusySeconds: number;
}

export async function accounted<T extends { clientCpuSeconds: number | undefined }>(
  serverCpu: () => number,
  fn: () => Promise<T>,
): Promise<{ result: T; cpu: CpuAccount }> {
  const m0 = machineCpu();
  const s0 = serverCpu();
  const t0 = performance.now();
  const result = await fn();
  const wallSeconds = (performance.now() - t0) / 1000;
  const s1 = serverCpu();
  const m1 = machineCpu();
  const serverCpuSeconds = s1 - s0;
  const busy = m1.busy - m0.busy;
  const client = result.clientCpuSeconds;
  const foreign = client === undefined ? undefined : Math.max(0, busy - serverCpuSeconds - client);
  return {
    result,
    cpu: {
      wallSeconds,
      serverCpuSeconds,
      clientCpuSeconds: client,
      machineBusySeconds: Math.round(busy * 1000) / 1000,
      foreignShare:
        foreign === undefined ? undefined : Math.round((foreign / (wallSeconds * os.cpus().length)) * 1000) / 1000,
    },
  };
}
