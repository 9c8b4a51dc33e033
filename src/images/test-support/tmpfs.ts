// Test support: a small tmpfs to fill up (a full disk, issue 15 finding 5). Mounting needs root
// (or CAP_SYS_ADMIN); where it is not allowed the caller skips with the reason — except under
// CI=true, where a skipped full-disk test would hide a regression, so `requireTmpfs` throws.
// Used only by tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface Tmpfs {
  dir: string;
  /** Bytes still free on it. */
  free(): number;
  unmount(): void;
}

/** Mounts a tmpfs of `sizeBytes`; returns the reason instead when mounting is not allowed here. */
export function mountTmpfs(sizeBytes: number): Tmpfs | { reason: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-tmpfs-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: `cannot mount a tmpfs here (${(r.stderr || r.error?.message || `exit ${r.status}`).trim()})` };
  }
  return {
    dir,
    free: () => {
      const s = statfsSync(dir);
      return s.bavail * s.bsize;
    },
    unmount: () => {
      spawnSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** mountTmpfs, but throwing under CI=true instead of returning a reason to skip. */
export function requireTmpfs(sizeBytes: number): Tmpfs | { reason: string } {
  const t = mountTmpfs(sizeBytes);
  if ('reason' in t && process.env.CI === 'true')
    throw new Error(`CI=true: the full-disk test must run, but ${t.reason}`);
  return t;
}
