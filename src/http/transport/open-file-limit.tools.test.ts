// The open-file limit is read from /proc and raised with prlimit on a real child process whose
// soft limit starts below its hard limit; the derived connection cap leaves a reserve.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  FD_RESERVE_MIN,
  MAX_CONNECTION_CAP,
  MIN_CONNECTION_CAP,
  connectionCapFor,
  raiseOpenFileLimit,
  readOpenFileLimit,
} from './open-file-limit.js';

const children: Array<{ kill(): boolean }> = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

describe('open-file limit', () => {
  it('reads its own limit', async () => {
    const limit = await readOpenFileLimit();
    expect(limit).toBeDefined();
    expect(limit!.soft).toBeGreaterThan(0);
    expect(limit!.hard).toBeGreaterThanOrEqual(limit!.soft);
  });

  it('raises a soft limit below the hard limit to the hard limit', async () => {
    const current = (await readOpenFileLimit())!;
    const hard = Math.min(current.hard, 4096);
    const child = spawn('prlimit', [`--nofile=256:${hard}`, 'sleep', '30'], { stdio: 'ignore' });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', reject);
    });
    // prlimit execs sleep in place: wait until the new limit is in force.
    for (let i = 0; i < 500 && (await readOpenFileLimit(child.pid!))?.soft !== 256; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect((await readOpenFileLimit(child.pid!))?.soft).toBe(256);
    const result = await raiseOpenFileLimit(child.pid!);
    expect(result.problem).toBeUndefined();
    expect(result.before).toEqual({ soft: 256, hard });
    expect(result.after).toEqual({ soft: hard, hard });
  });

  it('reports, without failing, a process it cannot read', async () => {
    const result = await raiseOpenFileLimit(2 ** 30);
    expect(result.before).toBeUndefined();
  });

  it('derives a connection cap that leaves a reserve for files', () => {
    expect(connectionCapFor(1024)).toBe(1024 - FD_RESERVE_MIN);
    expect(connectionCapFor(20_000)).toBe(15_000);
    expect(connectionCapFor(100)).toBe(MIN_CONNECTION_CAP);
    expect(connectionCapFor(10_000_000)).toBe(MAX_CONNECTION_CAP);
    expect(connectionCapFor(undefined)).toBe(MAX_CONNECTION_CAP);
  });
});
