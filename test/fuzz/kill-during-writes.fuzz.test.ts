// Fault category "kill-during-writes": the real `bootsmith serve` (built CLI, child process,
// embedded PostgreSQL) under concurrent API writes (support/write-load.ts: InfraEnv creates and
// patches, host registrations) is killed with SIGKILL at a seeded random moment, round after
// round, and restarted on the same DATA_DIR. After each restart every write the API acknowledged
// (2xx) must be there (data lost otherwise, as write-load.ts counts it). Crashes: a restart that
// fails, a 5xx answer while the service ran, a SIGTERM that does not exit 0 or leaves PostgreSQL
// processes behind. Its sibling pg-kill-during-writes kills the embedded PostgreSQL instead.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { postgresProcesses, type ServeChild, startServe } from '../support/serve-child.js';
import { FUZZ_SEED, fuzzRuns } from './support/budget.js';
import { recordFigures } from './support/figures.js';
import { builtCli } from './support/cli.js';
import { REQUEST_TIMEOUT_MS, rng, WriteLoad } from './support/write-load.js';

const WRITERS = 6;
/** The kill comes this long after the writers start (seeded within the range). */
const KILL_AFTER_MS: readonly [number, number] = [300, 1_500];

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-kill-'));
  await chmod(dataDir, 0o711);
}, 300_000);
afterAll(async () => {
  for (const pid of await postgresProcesses(dataDir).catch(() => [])) process.kill(pid, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

test('kill -9 during concurrent writes loses no acknowledged write', async () => {
  const rounds = fuzzRuns(3);
  const random = rng(FUZZ_SEED);
  const load = new WriteLoad(random);
  let crashes = 0;
  let hangs = 0;
  const notes = load.notes;

  for (let round = 0; round < rounds; round++) {
    let svc: ServeChild;
    try {
      svc = await startServe(builtCli(), dataDir);
    } catch (err) {
      crashes++;
      notes.push(`round ${round}: restart failed: ${(err as Error).message.slice(0, 300)}`);
      break;
    }
    await load.verify(svc.api);
    let stop = false;
    const writers = load.run(
      svc.api,
      WRITERS,
      `r${round}`,
      () => stop,
      (r) => {
        if (r && r.status >= 500) crashes++;
      },
    );
    const killAfter = KILL_AFTER_MS[0] + Math.floor(random() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0]));
    await new Promise((r) => setTimeout(r, killAfter));
    svc.child.kill('SIGKILL');
    await svc.exited;
    stop = true;
    const settled = await Promise.race([
      writers.then(() => true),
      new Promise((r) => setTimeout(() => r(false), REQUEST_TIMEOUT_MS * 2)),
    ]);
    if (!settled) hangs++;
  }

  // last restart: verify, then a clean stop leaves no PostgreSQL behind
  const last = await startServe(builtCli(), dataDir).catch((err: Error) => {
    crashes++;
    notes.push(`final restart failed: ${err.message.slice(0, 300)}`);
    return undefined;
  });
  if (last) {
    await load.verify(last.api);
    last.child.kill('SIGTERM');
    if ((await last.exited) !== 0) crashes++;
    if ((await postgresProcesses(dataDir)).length > 0) {
      crashes++;
      notes.push('PostgreSQL processes left after SIGTERM');
    }
  }

  const { acknowledged, dataLost } = load;
  recordFigures({
    category: 'kill-during-writes',
    cases: rounds,
    crashes,
    hangs,
    wrongAcceptances: 0,
    dataLost,
    notes: `${acknowledged} acknowledged writes over ${rounds} kill -9 rounds (${load.envs.size} InfraEnvs)${notes.length ? `; ${notes.slice(0, 5).join('; ')}` : ''}`,
  });
  expect(notes).toEqual([]);
  expect({ crashes, hangs, dataLost }).toEqual({ crashes: 0, hangs: 0, dataLost: 0 });
  expect(acknowledged).toBeGreaterThan(rounds);
});
