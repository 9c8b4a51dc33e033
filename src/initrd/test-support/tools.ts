// Test helpers: run the system's cpio/gzip/xz/zstd as independent implementations, in temp dirs.
// Not part of the build (tsconfig.build.json excludes test-support/).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ToolResult {
  stdout: Buffer;
  stderr: string;
}

/** Runs `command args` with `input` on stdin; throws with stderr on a non-zero exit. */
export function tool(command: string, args: string[], options: { input?: Uint8Array; cwd?: string } = {}): ToolResult {
  const result = spawnSync(command, args, {
    input: options.input ?? Buffer.alloc(0),
    cwd: options.cwd,
    maxBuffer: 1 << 30,
    env: { ...process.env, XZ_OPT: '', XZ_DEFAULTS: '', LC_ALL: 'C' },
  });
  if (result.error) throw result.error;
  const stderr = result.stderr.toString('utf8');
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${stderr}`);
  return { stdout: result.stdout, stderr };
}

/** A fresh temporary directory, removed by the returned cleanup function. */
export function tempDir(): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'bootsmith-initrd-'));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
