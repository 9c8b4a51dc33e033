// endInitLeftovers: a first start killed during initdb leaves initdb running, still writing the
// staging directory; the next start must end it before removing that directory (otherwise the
// removal fails with ENOTEMPTY and bootsmith cannot start). A real process stands in for initdb.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createLogger } from '../../../logger.js';
import { endInitLeftovers } from './leftovers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

it('ends a process still running with --pgdata=<staging> and leaves others alone', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-leftovers-'));
  dirs.push(dir);
  const staging = path.join(dir, 'data.init');
  const keepAlive = 'setTimeout(() => undefined, 60_000)';
  const orphan = spawn(process.execPath, ['-e', keepAlive, '--', `--pgdata=${staging}`], { stdio: 'ignore' });
  const bystander = spawn(process.execPath, ['-e', keepAlive, '--', `--pgdata=${staging}-other`], { stdio: 'ignore' });
  const exited = new Promise((resolve) => orphan.once('exit', resolve));
  try {
    await new Promise((resolve) => setTimeout(resolve, 200)); // both are running
    const logs: string[] = [];
    await endInitLeftovers(staging, createLogger('info', { write: (l: string) => logs.push(l) }));
    await exited;
    expect(alive(orphan.pid!)).toBe(false);
    expect(alive(bystander.pid!)).toBe(true);
    expect(logs.join('')).toMatch(/ending an initdb left by a first start that was killed/);
  } finally {
    orphan.kill('SIGKILL');
    bystander.kill('SIGKILL');
  }
});
