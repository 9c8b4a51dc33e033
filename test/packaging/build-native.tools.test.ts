// The kernel I/O addon's install step (scripts/build-native.mjs, the package's `install` script,
// so `npm ci` runs it) on a copy of the sources: with a C compiler it builds
// build/Release/kernel_io.node with every function src/kernel-io/native-binding.ts needs; without
// one it exits 0 with one line saying the bodies are copied through user space, and leaves no
// half-built addon behind (the service then serves as HTTP_BODY_IO=portable; every path's bytes:
// src/http/face/body-io-paths.tools.test.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/probes.js';
import { toolWorks, unavailable } from '../support/requirements.js';

const missing = unavailable({
  'g++, make and python3 (node-gyp builds the kernel I/O addon)':
    toolWorks('g++') && toolWorks('make') && toolWorks('python3'),
});

describe.skipIf(missing || process.platform !== 'linux')('scripts/build-native.mjs', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** A copy of what the build reads: the script, binding.gyp and native/. */
  function sources(): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'build-native-'));
    dirs.push(dir);
    for (const part of ['scripts/build-native.mjs', 'binding.gyp', 'native'])
      cpSync(path.join(REPO_ROOT, part), path.join(dir, part), { recursive: true });
    return dir;
  }

  function build(dir: string, env: NodeJS.ProcessEnv = {}) {
    return spawnSync(process.execPath, ['scripts/build-native.mjs'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, npm_config_node_gyp: '', ...env },
      timeout: 120_000,
    });
  }

  it('builds the addon with every function the service needs', () => {
    const dir = sources();
    const r = build(dir);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('built build/Release/kernel_io.node');
    const addon = createRequire(import.meta.url)(path.join(dir, 'build', 'Release', 'kernel_io.node')) as Record<
      string,
      unknown
    >;
    for (const name of ['sendFile', 'send', 'residency', 'readNoWait', 'dup', 'close', 'setCork', 'WritableWatch'])
      expect(typeof addon[name], name).toBe('function');
  }, 150_000);

  it('without a compiler: exits 0, says why in one line, leaves no addon', () => {
    const dir = sources();
    const r = build(dir, { CC: '/nonexistent/cc', CXX: '/nonexistent/c++' });
    expect(r.status).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/not built \(.+\); bodies are copied through user space/);
    expect(existsSync(path.join(dir, 'build'))).toBe(false);
  }, 150_000);
});
