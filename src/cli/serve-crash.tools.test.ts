// The real `bootsmith serve` (built CLI, child process) on the embedded PostgreSQL server:
// kill -9 of bootsmith leaves its PostgreSQL running; the next start stops that orphan
// cleanly, serves every acknowledged write, and runs exactly one server; SIGTERM stops it.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildCli, type BuiltCli } from '../../test/support/build-cli.js';
import { postgresProcesses, startServe } from '../../test/support/serve-child.js';
import { PULL_SECRET } from '../core/test-support/harness.js';

let built: BuiltCli;
let dataDir: string;
beforeAll(async () => {
  built = await buildCli();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-crash-'));
  await chmod(dataDir, 0o711);
}, 300_000);
afterAll(async () => {
  for (const pid of await postgresProcesses(dataDir)) process.kill(pid, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
  await built?.remove();
});

async function postmasterPid(): Promise<number> {
  return Number((await readFile(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('bootsmith serve on the embedded server', () => {
  test('kill -9 then restart: nothing acknowledged is lost, the orphaned server is stopped, one server runs', async () => {
    const first = await startServe(built.cli, dataDir);
    const ids: string[] = [];
    for (let i = 0; i < 15; i++) {
      const r = await fetch(`${first.api}/infra-envs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `env-${i}`, openshift_version: '4.17', pull_secret: PULL_SECRET }),
      });
      expect(r.status).toBe(201);
      ids.push(((await r.json()) as { id: string }).id);
    }
    const orphan = await postmasterPid();
    first.child.kill('SIGKILL');
    await first.exited;
    expect(alive(orphan)).toBe(true); // bootsmith died; its PostgreSQL did not

    const second = await startServe(built.cli, dataDir);
    expect(alive(orphan)).toBe(false);
    expect(second.output()).toMatch(/found a running PostgreSQL left by a previous bootsmith/);
    const list = (await (await fetch(`${second.api}/infra-envs`)).json()) as { id: string }[];
    expect(list.map((e) => e.id).sort()).toEqual([...ids].sort());
    const running = await postmasterPid();
    expect(running).not.toBe(orphan);
    const pgs = await postgresProcesses(dataDir);
    expect(pgs).toContain(running);
    // exactly one postmaster: every PostgreSQL process on this DATA_DIR is it or its child
    for (const pid of pgs) {
      if (pid === running) continue;
      const ppid = Number(/^PPid:\s*(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1]);
      expect(ppid).toBe(running);
    }

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await postgresProcesses(dataDir)).toEqual([]);
  });
});
