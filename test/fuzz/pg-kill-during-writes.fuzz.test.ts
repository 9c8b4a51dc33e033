// Fault category "pg-kill-during-writes" (issue 37, finding 3): the real `bootsmith serve` (built
// CLI, child process, embedded PostgreSQL) under concurrent API writes (support/write-load.ts)
// while its PostgreSQL is killed with SIGKILL at a seeded moment, round after round: the
// postmaster (bootsmith must start it again) or one of its backends or auxiliary processes
// (PostgreSQL then ends every connection and recovers by itself).
//
// Expected, per round: bootsmith keeps running; while the database is gone every write is
// answered 503 with Retry-After and a message naming the database (never a 500, never no answer);
// within RECOVERY_BOUND_MS the API answers 200 again and writes are acknowledged again. At the end
// every acknowledged write is there (as write-load.ts counts data lost), and SIGTERM exits 0
// with no PostgreSQL process left.
// Figures: a crash is bootsmith exiting (it is started again for the next round, so every round
// counts), or a 5xx other than that 503; a hang is a request with no answer while bootsmith ran,
// or a round whose API did not come back within its bound.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { postgresProcesses, type ServeChild, startServe } from '../support/serve-child.js';
import { FUZZ_SEED, fuzzRuns } from './support/budget.js';
import { recordFigures } from './support/figures.js';
import { builtCli } from './support/cli.js';
import { type Answer, REQUEST_TIMEOUT_MS, rng, send, WriteLoad } from './support/write-load.js';

const WRITERS = 6;
/** The kill comes this long after the round's writers start (seeded within the range). */
const KILL_AFTER_MS: readonly [number, number] = [300, 1_500];
/**
 * The API must answer 200 again within this bound after the kill: the supervisor's first
 * restart comes after 0.25 s, crash recovery replays a little WAL; generous for a loaded 2-core
 * machine.
 */
const RECOVERY_BOUND_MS = 60_000;
/** Writes go on this long after the recovery, so acknowledgements after it are seen. */
const AFTER_RECOVERY_MS = 1_000;

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-pgkill-'));
  await chmod(dataDir, 0o711);
}, 300_000);
afterAll(async () => {
  for (const pid of await postgresProcesses(dataDir).catch(() => [])) process.kill(pid, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

async function postmasterPid(): Promise<number> {
  const text = await readFile(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8');
  return Number(text.split('\n')[0]);
}

function alive(svc: ServeChild): boolean {
  return svc.child.exitCode === null && svc.child.signalCode === null;
}

/** Starts bootsmith again after it died (a crash: counted by the caller), so every round still runs. */
async function restart(): Promise<ServeChild> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServe(builtCli(), dataDir);
    } catch (err) {
      // a postmaster killed with its bootsmith may linger for a moment as a zombie holding the socket lock
      if (attempt === 3) throw err;
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
}

test('kill -9 of the embedded PostgreSQL under writes: bootsmith stays up, answers 503, recovers, loses nothing', async () => {
  const rounds = fuzzRuns(6);
  const random = rng(FUZZ_SEED ^ 0x9d);
  const load = new WriteLoad(random);
  let crashes = 0;
  let hangs = 0;
  let unavailable = 0;
  let roundsWith503 = 0;
  let postmasterKills = 0;
  const notes = load.notes;
  const note = (text: string) => {
    if (notes.length < 20) notes.push(text);
  };

  let svc = await startServe(builtCli(), dataDir);
  for (let round = 0; round < rounds; round++) {
    if (!alive(svc)) svc = await restart();
    let stop = false;
    let round503 = 0;
    let ackedBefore = Number.POSITIVE_INFINITY;
    const onAnswer = (r: Answer | undefined, what: string) => {
      if (r === undefined) {
        if (alive(svc)) {
          hangs++;
          note(`round ${round}: ${what} got no answer while bootsmith ran`);
        }
        return;
      }
      if (r.status < 500) return;
      const message = String(r.json?.reason ?? r.json?.message ?? '');
      if (r.status === 503 && Number(r.headers.get('retry-after')) > 0 && /database/i.test(message)) {
        unavailable++;
        round503++;
        return;
      }
      crashes++;
      note(`round ${round}: ${what} answered ${r.status} ${message.slice(0, 200)}`);
    };
    const writers = load.run(svc.api, WRITERS, `r${round}`, () => stop, onAnswer);
    await new Promise((r) => setTimeout(r, KILL_AFTER_MS[0] + random() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0])));

    const postmaster = await postmasterPid();
    const others = (await postgresProcesses(dataDir)).filter((pid) => pid !== postmaster);
    const victim = random() < 0.6 || others.length === 0 ? postmaster : others[Math.floor(random() * others.length)]!;
    if (victim === postmaster) postmasterKills++;
    process.kill(victim, 'SIGKILL');
    const killedAt = Date.now();

    // the API comes back (the writers keep writing meanwhile)
    let recovered = false;
    while (alive(svc) && Date.now() - killedAt < RECOVERY_BOUND_MS) {
      const r = await send('GET', `${svc.api}/infra-envs`);
      if (r?.status === 200 && Date.now() - killedAt > 300) {
        recovered = true;
        break;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    if (recovered) {
      ackedBefore = load.acknowledged;
      await new Promise((r) => setTimeout(r, AFTER_RECOVERY_MS));
    }
    stop = true;
    const settled = await Promise.race([
      writers.then(() => true),
      new Promise((r) => setTimeout(() => r(false), REQUEST_TIMEOUT_MS * 2)),
    ]);
    if (!settled) hangs++;
    if (!alive(svc)) {
      crashes++;
      const tail = svc
        .output()
        .split('\n')
        .filter((l) => /error|uncaught|unhandled/i.test(l))
        .slice(-2)
        .join(' | ');
      note(
        `round ${round}: bootsmith exited (${victim === postmaster ? 'postmaster' : 'backend'} killed): ${tail.slice(0, 300)}`,
      );
      continue;
    }
    if (!recovered) {
      hangs++;
      note(`round ${round}: the API did not answer 200 within ${RECOVERY_BOUND_MS} ms of the kill`);
      continue;
    }
    if (round503 > 0) roundsWith503++;
    if (load.acknowledged <= ackedBefore) note(`round ${round}: no write acknowledged after the recovery`);
  }

  if (!alive(svc)) svc = await restart();
  await load.verify(svc.api);
  svc.child.kill('SIGTERM');
  if ((await svc.exited) !== 0) {
    crashes++;
    note('SIGTERM after the rounds did not exit 0');
  }
  if ((await postgresProcesses(dataDir)).length > 0) {
    crashes++;
    note('PostgreSQL processes left after SIGTERM');
  }

  recordFigures({
    category: 'pg-kill-during-writes',
    cases: rounds,
    crashes,
    hangs,
    wrongAcceptances: 0,
    dataLost: load.dataLost,
    notes: `${load.acknowledged} acknowledged writes, ${unavailable} answers 503 (in ${roundsWith503} of ${rounds} rounds) over ${rounds} kill -9 rounds of PostgreSQL (${postmasterKills} of the postmaster)${notes.length ? `; ${notes.slice(0, 5).join('; ')}` : ''}`,
  });
  expect(notes).toEqual([]);
  expect({ crashes, hangs, dataLost: load.dataLost }).toEqual({ crashes: 0, hangs: 0, dataLost: 0 });
  expect(roundsWith503).toBeGreaterThan(0);
  expect(load.acknowledged).toBeGreaterThan(rounds);
});
