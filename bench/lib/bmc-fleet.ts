// What the two BMC fleet workloads share (issue 27, deliverable 8): the bootable fixture ISO the
// service serves (fixtures/build-bootable-iso.sh, the e2e's guest), BMC records added through the
// API extension, the real CLI (`node dist/src/cli/main.js bmc …`, as an operator runs it), the
// boot jobs read back from the API (per-step times, Redfish calls and retries), the embedded
// PostgreSQL's transaction count, and per-host and percentile summaries.
// Does NOT: start guests or BMCs (the workloads do, with test/support/redfish-emulator), or decide
// what a figure compares (bench/workloads/bmc-fleet-*.ts).
import { percentile } from './stats.js';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Bootsmith } from './bootsmith.js';
import type { BaseIso } from './iso.js';
import { cpuSeconds, processTree, run, sleep } from './proc.js';
import { round } from './system.js';

/** The BMC extension of the API (docs/reference/endpoints.md). */
export const BMC_API = '/api/bootsmith/v1';
/** The port in the name of the embedded PostgreSQL's socket (src/platform/db/embedded/server.ts). */
const EMBEDDED_SOCKET_PORT = 5432;
/** How often the bench polls the API while it waits for BMC checks or registrations. */
const POLL_MS = 1_000;

export interface BootableIso {
  path: string;
  size: number;
  /** The boot files a boot loader reads, in the order it reads them (kernel, initramfs, ignition.img). */
  bootExtents: { offset: number; length: number }[];
  /** As the other workloads describe their base (for the results file of a run of only 9 and 10). */
  base: BaseIso;
}

interface Manifest {
  ignition: { offset: number; length: number };
  files?: Record<string, { offset: number; length: number } | undefined>;
}

/** Builds (or reuses: BUILD-KEY) the e2e's bootable fixture ISO in `.cache/e2e/bootable` and reads its layout. */
export async function bootableIso(
  repoRoot: string,
  serviceMain: string,
  log: (l: string) => void,
): Promise<BootableIso> {
  const outDir = path.join(repoRoot, '.cache', 'e2e', 'bootable');
  log('bootable fixture ISO (fixtures/build-bootable-iso.sh; cached by its BUILD-KEY)');
  await run('bash', [path.join(repoRoot, 'fixtures', 'build-bootable-iso.sh'), '--out-dir', outDir]);
  const file = path.join(outDir, 'x86_64.iso');
  const manifest = JSON.parse((await run(process.execPath, [serviceMain, 'iso', 'inspect', file])).stdout) as Manifest;
  const kernel = manifest.files?.kernel;
  const initrd = manifest.files?.initrd;
  if (!kernel || !initrd) throw new Error(`${file}: iso inspect names no kernel or initrd`);
  const size = statSync(file).size;
  return {
    path: file,
    size,
    bootExtents: [kernel, initrd, manifest.ignition],
    base: {
      path: file,
      paddingMiB: 0,
      kind: 'bootable',
      generator: 'fixtures/build-bootable-iso.sh (the e2e guest: Debian kernel, busybox initramfs, agent)',
      size,
      layout: { size, ignition: manifest.ignition },
    },
  };
}

export interface JobStepView {
  name: string;
  status: string;
  detail: string;
  started_at?: string;
  finished_at?: string;
  calls?: number;
  retries?: number;
}

export interface JobView {
  id: string;
  action: string;
  state: string;
  error: string | null;
  host_id: string | null;
  steps: JobStepView[];
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface BmcView {
  id: string;
  name: string;
  state: string;
  state_info: string | null;
  last_job: JobView | null;
}

/** A 503 (the database pool busy on a loaded machine) is tried again this often, this far apart. */
const ADD_ATTEMPTS = 10;
const ADD_RETRY_MS = 2_000;

export async function addBmc(
  service: Bootsmith,
  bmc: { name: string; address: string; username: string; password: string; caPem: string; infraEnvId: string },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await postBmc(service, bmc);
    } catch (err) {
      if (attempt >= ADD_ATTEMPTS || !/: 503 /.test((err as Error).message)) throw err;
      await sleep(ADD_RETRY_MS);
    }
  }
}

async function postBmc(
  service: Bootsmith,
  bmc: { name: string; address: string; username: string; password: string; caPem: string; infraEnvId: string },
): Promise<void> {
  await service.api(
    'POST',
    '/bmcs',
    {
      name: bmc.name,
      address: bmc.address,
      username: bmc.username,
      password: bmc.password,
      ca_pem: bmc.caPem,
      infra_env_id: bmc.infraEnvId,
    },
    BMC_API,
  );
}

export async function listBmcs(service: Bootsmith, infraEnvId: string): Promise<BmcView[]> {
  const listed = await service.api<BmcView[] | { bmcs: BmcView[] }>(
    'GET',
    `/bmcs?infra_env_id=${infraEnvId}`,
    undefined,
    BMC_API,
  );
  return Array.isArray(listed) ? listed : listed.bmcs;
}

/** Waits until no BMC of the InfraEnv is busy (their `refresh` checks done); throws naming those not ready. */
export async function waitBmcsChecked(
  service: Bootsmith,
  infraEnvId: string,
  count: number,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const bmcs = await listBmcs(service, infraEnvId);
    if (bmcs.length === count && bmcs.every((b) => b.state !== 'busy' && b.state !== 'new')) {
      const bad = bmcs.filter((b) => b.state !== 'ready');
      if (bad.length > 0)
        throw new Error(`BMC checks failed: ${bad.map((b) => `${b.name}: ${b.state_info ?? b.state}`).join('; ')}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`BMC checks not done within ${timeoutMs / 1000} s`);
    await sleep(POLL_MS);
  }
}

/** Waits until no BMC of the InfraEnv is busy (their checks done, passed or not); throws only on the timeout. */
export async function waitBmcsSettled(
  service: Bootsmith,
  infraEnvId: string,
  count: number,
  timeoutMs: number,
): Promise<BmcView[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const bmcs = await listBmcs(service, infraEnvId);
    if (bmcs.length === count && bmcs.every((b) => b.state !== 'busy' && b.state !== 'new')) return bmcs;
    if (Date.now() > deadline) throw new Error(`BMC checks not done within ${timeoutMs / 1000} s`);
    await sleep(POLL_MS);
  }
}

/** `bootsmith ARGS` with the real CLI against the service; resolves whatever the exit code. */
export async function runCli(
  serviceMain: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }> {
  const t0 = performance.now();
  const r = await run(process.execPath, [serviceMain, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    allowFail: true,
  });
  return { ...r, seconds: (performance.now() - t0) / 1000 };
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ). */
const CLOCK_TICKS = 100;

/**
 * utime + stime + cutime + cstime of one process: its own CPU and that of its children it has
 * reaped (PostgreSQL's postmaster reaps the backends that come and go), 0 when it is gone.
 */
function cpuWithReapedChildren(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // f[0] is field 3 (state): utime, stime, cutime, cstime are fields 14–17
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds of the service: its Node process, and with its embedded PostgreSQL (every process
 * of the tree alive now, plus the children they reaped: backends that exited meanwhile count too).
 */
export function serviceCpu(service: Bootsmith): { node: number; tree: number } {
  return {
    node: cpuSeconds(service.pid),
    tree: processTree(service.pid).reduce((sum, pid) => sum + cpuWithReapedChildren(pid), 0),
  };
}

/**
 * Transactions the embedded PostgreSQL committed or rolled back (pg_stat_database, every
 * database): each statement outside an explicit transaction is one. Undefined when it cannot be
 * read (the statistics are flushed at most once a second: read after a pause).
 */
export async function databaseTransactions(dataDir: string): Promise<number | undefined> {
  const home = path.join(dataDir, 'postgres');
  const client = new pg.Client({
    host: path.join(home, 'run'),
    port: EMBEDDED_SOCKET_PORT,
    user: 'postgres',
    database: 'postgres',
    password: readFileSync(path.join(home, 'password'), 'utf8').trim(),
  });
  try {
    await client.connect();
    const r = await client.query<{ n: string }>(
      'SELECT sum(xact_commit + xact_rollback)::text AS n FROM pg_stat_database',
    );
    return Number(r.rows[0]?.n ?? NaN);
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const ms = (iso: string | undefined): number | undefined => (iso ? Date.parse(iso) : undefined);

export interface HostTimings {
  bmc: string;
  state: string;
  error: string | null;
  /** Seconds from the CLI's start to the step's end (undefined: not reached). */
  inserted?: number;
  firstRead?: number;
  booted?: number;
  registered?: number;
  ejected?: number;
  redfishCalls: number;
  retries: number;
}

/** The last boot job of each BMC, as seconds after `t0` (epoch ms) per step, with its Redfish calls. */
export function hostTimings(bmcs: readonly BmcView[], t0: number): HostTimings[] {
  return bmcs.map((b) => {
    const job = b.last_job;
    const step = (name: string) => job?.steps.find((s) => s.name === name);
    const at = (name: string) => {
      const s = step(name);
      const t = s && s.status === 'done' ? ms(s.finished_at) : undefined;
      return t === undefined ? undefined : round((t - t0) / 1000, 2);
    };
    return {
      bmc: b.name,
      state: job?.state ?? 'none',
      error: job?.error ?? null,
      inserted: at('insert'),
      firstRead: at('iso-read'),
      booted: at('booted'),
      registered: at('registered'),
      ejected: at('eject-media'),
      redfishCalls: (job?.steps ?? []).reduce((n, s) => n + (s.calls ?? 0), 0),
      retries: (job?.steps ?? []).reduce((n, s) => n + (s.retries ?? 0), 0),
    };
  });
}

/** Median of the per-host differences b − a (hosts that reached both). */
export function medianGap(hosts: readonly HostTimings[], a: keyof HostTimings, b: keyof HostTimings): number {
  const gaps = hosts
    .map((h) => (typeof h[a] === 'number' && typeof h[b] === 'number' ? (h[b] as number) - (h[a] as number) : NaN))
    .filter((x) => Number.isFinite(x));
  return round(percentile(gaps, 50), 2);
}

/** Profiles of the emulator mixed over a fleet, in this order. */
export function profileOf(profiles: readonly string[], index: number): string {
  return profiles[index % profiles.length]!;
}
