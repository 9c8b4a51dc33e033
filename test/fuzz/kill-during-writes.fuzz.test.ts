// Fault category "kill-during-writes": the real `bootsmith serve` (built CLI, child process,
// embedded PostgreSQL) under concurrent API writes (InfraEnv creates and patches, host
// registrations) is killed with SIGKILL at a seeded random moment, round after round, and
// restarted on the same DATA_DIR. After each restart every write the API acknowledged (2xx)
// must be there: an acknowledged create missing, a host missing, or an InfraEnv whose NTP
// sources are neither the acknowledged patch nor a later one that was in flight counts as
// data lost. Crashes: a restart that fails, a 5xx answer while the service ran, a SIGTERM
// that does not exit 0 or leaves PostgreSQL processes behind.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PULL_SECRET } from '../../src/core/test-support/harness.js';
import { postgresProcesses, type ServeChild, startServe } from '../support/serve-child.js';
import { FUZZ_SEED, fuzzRuns } from './support/budget.js';
import { recordFigures } from './support/figures.js';
import { builtCli } from './support/cli.js';

const WRITERS = 6;
/** The kill comes this long after the writers start (seeded within the range). */
const KILL_AFTER_MS: readonly [number, number] = [300, 1_500];
/** One request's bound: a write that has not answered by then is not acknowledged. */
const REQUEST_TIMEOUT_MS = 10_000;

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Env {
  id: string;
  /** NTP sources of the last acknowledged patch ('' = as created). */
  acked: string;
  /** Patches sent after it, acknowledged or not (any may have committed). */
  later: string[];
  /** Patches sent and not answered yet. */
  inflight: Set<string>;
  hosts: Set<string>;
}

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-kill-'));
  await chmod(dataDir, 0o711);
}, 300_000);
afterAll(async () => {
  for (const pid of await postgresProcesses(dataDir).catch(() => [])) process.kill(pid, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

async function send(method: string, url: string, body: unknown): Promise<{ status: number; json: any } | undefined> {
  try {
    const r = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await r.text();
    return { status: r.status, json: text ? JSON.parse(text) : undefined };
  } catch {
    return undefined; // killed mid-request: not acknowledged
  }
}

test('kill -9 during concurrent writes loses no acknowledged write', async () => {
  const rounds = fuzzRuns(3);
  const random = rng(FUZZ_SEED);
  const envs = new Map<string, Env>();
  let crashes = 0;
  let dataLost = 0;
  let acknowledged = 0;
  let hangs = 0;
  const notes: string[] = [];

  const verify = async (svc: ServeChild): Promise<void> => {
    for (const env of envs.values()) {
      const r = await send('GET', `${svc.api}/infra-envs/${env.id}`, undefined).catch(() => undefined);
      if (r?.status !== 200) {
        dataLost++;
        notes.push(`InfraEnv ${env.id} missing (${r?.status})`);
        continue;
      }
      const ntp = r.json.additional_ntp_sources ?? '';
      if (ntp !== env.acked && !env.later.includes(ntp)) {
        dataLost++;
        notes.push(`InfraEnv ${env.id} ntp "${ntp}" is neither the acknowledged "${env.acked}" nor a later patch`);
      }
      const hosts = await send('GET', `${svc.api}/infra-envs/${env.id}/hosts`, undefined);
      const have = new Set((hosts?.json ?? []).map((h: { id: string }) => h.id));
      for (const h of env.hosts)
        if (!have.has(h)) {
          dataLost++;
          notes.push(`host ${h} of ${env.id} missing`);
        }
    }
  };

  for (let round = 0; round < rounds; round++) {
    let svc: ServeChild;
    try {
      svc = await startServe(builtCli(), dataDir);
    } catch (err) {
      crashes++;
      notes.push(`round ${round}: restart failed: ${(err as Error).message.slice(0, 300)}`);
      break;
    }
    await verify(svc);
    let stop = false;
    const writer = async (w: number) => {
      let n = 0;
      while (!stop) {
        n++;
        const pick = random();
        const existing = [...envs.values()];
        if (pick < 0.35 || existing.length === 0) {
          const r = await send('POST', `${svc.api}/infra-envs`, {
            name: `r${round}-w${w}-${n}`,
            openshift_version: '4.17',
            pull_secret: PULL_SECRET,
          });
          if (r && r.status >= 500) crashes++;
          if (r?.status === 201) {
            acknowledged++;
            envs.set(r.json.id, { id: r.json.id, acked: '', later: [], inflight: new Set(), hosts: new Set() });
          }
        } else if (pick < 0.65) {
          const env = existing[Math.floor(random() * existing.length)]!;
          const value = `ntp-r${round}-w${w}-${n}.example.com`;
          env.later.push(value);
          env.inflight.add(value);
          const r = await send('PATCH', `${svc.api}/infra-envs/${env.id}`, { additional_ntp_sources: value });
          env.inflight.delete(value);
          if (r && r.status >= 500) crashes++;
          if (r?.status === 201 || r?.status === 200) {
            acknowledged++;
            // after this acknowledgement the stored value is this one, or one of the patches in
            // flight now or sent later (writers race on one InfraEnv)
            env.acked = value;
            env.later = [...env.inflight];
          }
        } else {
          const env = existing[Math.floor(random() * existing.length)]!;
          const hostId = crypto.randomUUID();
          const r = await send('POST', `${svc.api}/infra-envs/${env.id}/hosts`, {
            host_id: hostId,
            discovery_agent_version: 'v1',
          });
          if (r && r.status >= 500) crashes++;
          if (r?.status === 201) {
            acknowledged++;
            env.hosts.add(hostId);
          }
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    const killAfter = KILL_AFTER_MS[0] + Math.floor(random() * (KILL_AFTER_MS[1] - KILL_AFTER_MS[0]));
    await new Promise((r) => setTimeout(r, killAfter));
    svc.child.kill('SIGKILL');
    await svc.exited;
    stop = true;
    const settled = await Promise.race([
      Promise.all(writers).then(() => true),
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
    await verify(last);
    last.child.kill('SIGTERM');
    if ((await last.exited) !== 0) crashes++;
    if ((await postgresProcesses(dataDir)).length > 0) {
      crashes++;
      notes.push('PostgreSQL processes left after SIGTERM');
    }
  }

  recordFigures({
    category: 'kill-during-writes',
    cases: rounds,
    crashes,
    hangs,
    wrongAcceptances: 0,
    dataLost,
    notes: `${acknowledged} acknowledged writes over ${rounds} kill -9 rounds (${envs.size} InfraEnvs)${notes.length ? `; ${notes.slice(0, 5).join('; ')}` : ''}`,
  });
  expect(notes).toEqual([]);
  expect({ crashes, hangs, dataLost }).toEqual({ crashes: 0, hangs: 0, dataLost: 0 });
  expect(acknowledged).toBeGreaterThan(rounds);
});
