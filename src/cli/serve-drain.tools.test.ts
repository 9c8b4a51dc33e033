// SIGTERM of a real `bootsmith serve --role all` (built CLI, child process) on the embedded
// PostgreSQL server while ISO streams are in flight: readiness and the listener go at once, the
// streams finish with every byte, the embedded PostgreSQL keeps running until they have, then
// it is stopped and the process exits 0.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO_ROOT, buildCli, type BuiltCli } from '../../test/support/build-cli.js';
import { postgresProcesses, startServe } from '../../test/support/serve-child.js';
import { PULL_SECRET } from '../core/test-support/harness.js';

/** Larger than loopback socket buffers, so a paused client keeps its stream in flight. */
const PAD_MIB = 24;
const STREAMS = 3;
/** Bound of a wait for the service (ready, refusing): a backstop, never a timing assertion. */
const READY_BOUND_MS = 60_000;

let built: BuiltCli;
let dir: string;
beforeAll(async () => {
  built = await buildCli();
  dir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-drain-'));
  await chmod(dir, 0o711);
  execFileSync(
    'bash',
    [
      path.join(REPO_ROOT, 'fixtures', 'build-live-iso.sh'),
      '--size-pad',
      String(PAD_MIB),
      '--out',
      path.join(dir, 'base.iso'),
    ],
    {
      stdio: 'ignore',
      timeout: 120_000,
    },
  );
}, 300_000);
afterAll(async () => {
  for (const pid of await postgresProcesses(path.join(dir, 'data'))) process.kill(pid, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
  await built?.remove();
});

function pausedDownload(url: string) {
  let resume!: () => void;
  const resumed = new Promise<void>((r) => (resume = r));
  let started!: () => void;
  const startedP = new Promise<void>((r) => (started = r));
  const done = new Promise<{ status: number; sha256: string; bytes: number }>((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        const hash = createHash('sha256');
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          if (bytes === 0) {
            res.pause();
            started();
            void resumed.then(() => res.resume());
          }
          bytes += chunk.length;
        });
        res.once('end', () => resolve({ status: res.statusCode ?? 0, sha256: hash.digest('hex'), bytes }));
        res.once('error', reject);
      })
      .once('error', reject);
  });
  return { started: startedP, resume, done };
}

describe('bootsmith serve drains on SIGTERM', () => {
  test('streams in flight finish, then the embedded PostgreSQL stops and the process exits 0', async () => {
    const dataDir = path.join(dir, 'data');
    const s = await startServe(
      built.cli,
      dataDir,
      {
        SHUTDOWN_GRACE_SECONDS: '60',
        OS_IMAGES: JSON.stringify([
          {
            openshift_version: '4.17',
            cpu_architecture: 'x86_64',
            url: `file://${path.join(dir, 'base.iso')}`,
            version: '417.1',
          },
        ]),
      },
      ['--role', 'all'],
    );
    // the base image is hashed and parsed after the API answers: seconds on a loaded machine
    for (const until = Date.now() + READY_BOUND_MS; (await fetch(`${s.url}/health`)).status !== 200;) {
      if (Date.now() > until) throw new Error(`not ready within ${READY_BOUND_MS} ms:\n${s.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const created = await fetch(`${s.api}/infra-envs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'drain', pull_secret: PULL_SECRET, openshift_version: '4.17' }),
    });
    expect(created.status).toBe(201);
    const isoUrl = s.url + new URL(((await created.json()) as { download_url: string }).download_url).pathname;
    const whole = Buffer.from(await (await fetch(isoUrl)).arrayBuffer());
    const expected = createHash('sha256').update(whole).digest('hex');

    const streams = Array.from({ length: STREAMS }, () => pausedDownload(isoUrl));
    await Promise.all(streams.map((st) => st.started));
    const postgresBefore = await postgresProcesses(dataDir);
    expect(postgresBefore.length).toBeGreaterThan(0);

    s.child.kill('SIGTERM');
    // the listener is closed at once: new connections are refused
    let refused = false;
    for (const until = Date.now() + READY_BOUND_MS; !refused && Date.now() < until;) {
      refused = await fetch(`${s.url}/live`).then(
        () => false,
        () => true,
      );
      if (!refused) await new Promise((r) => setTimeout(r, 50));
    }
    expect(refused).toBe(true);
    expect(s.child.exitCode).toBeNull();
    // the database is still there for the streams
    expect((await postgresProcesses(dataDir)).length).toBeGreaterThan(0);

    for (const st of streams) st.resume();
    for (const r of await Promise.all(streams.map((st) => st.done))) {
      expect(r.status).toBe(200);
      expect(r.bytes).toBe(whole.length);
      expect(r.sha256).toBe(expected);
    }
    expect(await s.exited).toBe(0);
    expect(s.output()).toMatch(/"msg":"drained; stopped"/);
    expect(s.output()).toMatch(/"cut":0/);
    expect(await postgresProcesses(dataDir)).toEqual([]);
  }, 180_000);
});
