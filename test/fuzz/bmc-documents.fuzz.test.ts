// Fault category "bmc-documents" (issue 37, findings 2, 5 and 6): hostile BMC documents through the
// job engine of a real service under a memory limit. The built `bootsmith serve --role core` runs as
// a child with `--max-old-space-size=256` (half the Kubernetes base's 512 MiB limit) on a database of
// the run's PostgreSQL; one emulated BMC per case of test/support/redfish-emulator/hostile-documents.ts
// (32 slots of 3.9 MB, 600,000 boot targets, nesting 200,000 deep, a body that never ends, a 120 KB
// error message, an internal service's JSON, NUL and lone surrogates, escape sequences) and two
// healthy ones are added at once, and every BMC is refreshed again, round after round.
//
// Judged: a child that exits is a crash (it is started again on the same database, as a pod would
// be, at most RESTARTS times: a job that takes its process down must not do so for ever); a 5xx, or
// a job that fails with an internal error, is a crash; a job not finished within JOB_BOUND_MS, or a
// `/live` answer slower than LIVE_BOUND_MS, is a hang; a hostile BMC whose read succeeds where it
// must fail, fails without naming the BMC, the step and the bound, leaks what an internal service
// said, or stores what PostgreSQL refuses, is a wrong acceptance; a healthy BMC that does not end
// `ready` with its inventory, or a record missing, is data lost. `GET /bmcs` must stay under
// MAX_LISTING_BYTES; its size and time, the slowest `/live` and the child's peak memory are noted.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { embeddedBackend } from '../../src/platform/db/test-support/backends.js';
import { EXTENSION_API_PREFIX } from '../../src/url-grammar.js';
import type { BmcView } from '../../src/bmc/bmc-view.js';
import { HOSTILE_CASES, type HostileCase } from '../support/redfish-emulator/hostile-documents.js';
import { type EmulatedBmc, startVirtualBmc, type VirtualGuest } from '../support/redfish-emulator/index.js';
import { type ServeChild, startServe } from '../support/serve-child.js';
import { fuzzRuns } from './support/budget.js';
import { builtCli } from './support/cli.js';
import { recordFigures } from './support/figures.js';

const HEAP_MB = 256;
/** Times the child is started again after it died (a pod's restarts), before the category gives up. */
const RESTARTS = 3;
/** A refresh is a dozen loopback calls; a loaded two-core machine needs seconds. */
const JOB_BOUND_MS = 90_000;
/** `/live` answers in milliseconds; this is a held event loop (the issue measured 3.8 s and 45 s). */
const LIVE_BOUND_MS = 2_000;
/** Every BMC's view, inventory and last job included: a few KiB each. */
const MAX_LISTING_BYTES = 512 * 1024;
const PASSWORD = 'fuzz-bmc-Passw0rd';
const BMCS = `${EXTENSION_API_PREFIX}/bmcs`;

interface Target {
  name: string;
  hostile: HostileCase | undefined;
  bmc: EmulatedBmc;
  guest: VirtualGuest;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function peakMemoryKiB(pid: number | undefined): Promise<number | undefined> {
  if (!pid) return undefined;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) : undefined;
}

test('hostile BMC documents: each bad BMC fails alone, the service stays up and small', async () => {
  const storage = await embeddedBackend().create();
  cleanups.push(storage.cleanup);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bootsmith-bmc-documents-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const env = {
    DATABASE_URL: storage.databaseUrl!,
    NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}`,
    BMC_JOB_LEASE: '3s',
    LOG_LEVEL: 'warn',
  };

  const targets: Target[] = [];
  for (const hostile of [...HOSTILE_CASES, undefined, undefined]) {
    const name = hostile?.name ?? `healthy-${targets.length}`;
    const { bmc, guest } = await startVirtualBmc({ name, profile: 'generic', password: PASSWORD, faults: hostile?.faults });
    cleanups.push(async () => {
      await bmc.close();
      await guest.close();
    });
    targets.push({ name, hostile, bmc, guest });
  }

  const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0, dataLost: 0 };
  const problems: string[] = [];
  const problem = (kind: keyof typeof figures, words: string): void => {
    figures[kind]++;
    problems.push(words);
  };

  let svc: ServeChild = await startServe(builtCli(), dataDir, env);
  let restarts = 0;
  let stopped = false;
  cleanups.push(async () => {
    stopped = true;
    svc.child.kill('SIGKILL');
    await svc.exited;
  });
  let peakKiB = 0;
  const notePeak = async (): Promise<void> => {
    peakKiB = Math.max(peakKiB, (await peakMemoryKiB(svc.child.pid)) ?? 0);
  };
  /** The child, started again when it died (counted as a crash), or undefined past RESTARTS. */
  const alive = async (): Promise<ServeChild | undefined> => {
    if (svc.child.exitCode === null && svc.child.signalCode === null) return svc;
    const how = svc.child.signalCode ?? `exit ${svc.child.exitCode}`;
    problem('crashes', `the service died (${how}): ${svc.output().slice(-300).replace(/\s+/g, ' ')}`);
    if (restarts >= RESTARTS) return undefined;
    restarts++;
    svc = await startServe(builtCli(), dataDir, env);
    return svc;
  };
  const call = async (method: string, p: string, body?: unknown): Promise<{ status: number; text: string; ms: number }> => {
    const started = Date.now();
    const r = await fetch(`${svc.url}${p}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await r.text();
    if (r.status >= 500) problem('crashes', `${method} ${p}: ${r.status} ${text.slice(0, 200)}`);
    return { status: r.status, text, ms: Date.now() - started };
  };

  // /live every 100 ms for the whole run
  let slowestLive = 0;
  let liveProbes = 0;
  const liveLoop = (async () => {
    while (!stopped) {
      const started = Date.now();
      const ok = await fetch(`${svc.url}/live`, { signal: AbortSignal.timeout(30_000) }).then(
        (r) => r.status === 200,
        () => false,
      );
      const ms = Date.now() - started;
      if (ok) {
        liveProbes++;
        slowestLive = Math.max(slowestLive, ms);
        if (ms > LIVE_BOUND_MS) problem('hangs', `/live took ${ms} ms`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  /** Waits for every BMC's last job to finish; returns their views (undefined: the service is gone). */
  const settle = async (round: number): Promise<Map<string, BmcView> | undefined> => {
    const deadline = Date.now() + JOB_BOUND_MS;
    for (;;) {
      await notePeak();
      if (!(await alive())) return undefined;
      const listed = await call('GET', BMCS).catch(() => undefined);
      if (listed?.status === 200) {
        const views = JSON.parse(listed.text) as BmcView[];
        const finished = views.every((v) => v.last_job?.state === 'succeeded' || v.last_job?.state === 'failed');
        if (finished && views.length === targets.length) return new Map(views.map((v) => [v.name, v]));
      }
      if (Date.now() > deadline) {
        problem('hangs', `round ${round}: jobs not finished within ${JOB_BOUND_MS} ms`);
        return listed?.status === 200 ? new Map((JSON.parse(listed.text) as BmcView[]).map((v) => [v.name, v])) : undefined;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  const judge = (round: number, views: Map<string, BmcView>): void => {
    for (const t of targets) {
      figures.cases++;
      const view = views.get(t.name);
      const where = `round ${round}: ${t.name}`;
      if (!view) {
        problem('dataLost', `${where}: the record is missing`);
        continue;
      }
      const job = view.last_job;
      if (job?.state !== 'succeeded' && job?.state !== 'failed') continue; // counted as a hang
      if (job.error?.includes('internal error')) {
        problem('crashes', `${where}: ${job.error.slice(0, 300)}`);
        continue;
      }
      const expected = t.hostile;
      if (!expected) {
        if (job.state !== 'succeeded' || view.inventory?.model !== 'Virtual Server 1')
          problem('dataLost', `${where}: a healthy BMC ended ${view.state}: ${view.state_info.slice(0, 300)}`);
      } else if (expected.error) {
        const error = job.error ?? '';
        if (job.state !== 'failed') problem('wrongAcceptances', `${where}: the read succeeded`);
        else if (!error.startsWith(`BMC "${t.name}": discover: `) || !expected.error.test(error) || error.includes('hunter2'))
          problem('wrongAcceptances', `${where}: unclear error: ${error.slice(0, 300)}`);
      } else if (job.state !== 'succeeded' || view.inventory?.model !== expected.storedModel) {
        problem('wrongAcceptances', `${where}: ${job.state}, model ${JSON.stringify(view.inventory?.model)}: ${job.error?.slice(0, 300)}`);
      }
    }
  };

  const rounds = fuzzRuns(2);
  let listing = { bytes: 0, ms: 0 };
  for (let round = 0; round < rounds; round++) {
    if (!(await alive())) break;
    for (const t of targets) {
      if (round === 0) {
        await call('POST', BMCS, { name: t.name, address: t.bmc.rootUrl, username: 'admin', password: PASSWORD }).catch(
          (err: Error) => problem('crashes', `adding ${t.name}: ${err.message}`),
        );
      } else {
        await call('POST', `${BMCS}/${t.name}/jobs`, { action: 'refresh' }).catch((err: Error) =>
          problem('crashes', `refreshing ${t.name}: ${err.message}`),
        );
      }
    }
    const views = await settle(round);
    if (!views) break;
    judge(round, views);
    const listed = await call('GET', BMCS);
    listing = { bytes: Buffer.byteLength(listed.text), ms: listed.ms };
    if (listing.bytes > MAX_LISTING_BYTES)
      problem('wrongAcceptances', `GET /bmcs is ${listing.bytes} bytes (at most ${MAX_LISTING_BYTES})`);
  }
  await notePeak();
  stopped = true;
  await liveLoop;

  recordFigures({
    category: 'bmc-documents',
    ...figures,
    notes:
      `${targets.length} BMCs (${HOSTILE_CASES.length} hostile) × ${rounds} rounds, heap ${HEAP_MB} MiB; ` +
      `restarts ${restarts}; GET /bmcs ${listing.bytes} bytes in ${listing.ms} ms; slowest /live ${slowestLive} ms of ${liveProbes}; ` +
      `child peak RSS ${Math.round(peakKiB / 1024)} MiB` +
      (problems.length ? `; ${problems.slice(0, 6).join('; ')}` : ''),
  });
  expect(problems).toEqual([]);
  expect(figures).toMatchObject({ crashes: 0, hangs: 0, wrongAcceptances: 0, dataLost: 0 });
}, 900_000); // prettier-ignore
