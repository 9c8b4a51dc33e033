// `npm test` runs every tier whatever the ones before did, and fails at the end naming the ones that
// failed (scripts/run-tiers.mjs; issue 37: with `&&` a failing unit tier hid fuzz and e2e). The
// script runs for real, as a copy in a scratch checkout whose package.json scripts stand in for the
// tiers (each records that it ran, one fails); package.json and .ci/run are checked to use it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/probes.js';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A scratch checkout: run-tiers.mjs, a deps script and package.json tiers that append their name to ran.txt. */
function scratch(failing: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-tiers-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(path.join(REPO_ROOT, 'scripts', 'run-tiers.mjs'), path.join(dir, 'scripts', 'run-tiers.mjs'));
  const step = (name: string) => `echo ${name} >> ran.txt${failing.includes(name) ? ' && exit 3' : ''}`;
  writeFileSync(path.join(dir, 'scripts', 'install-test-deps.sh'), `${step('deps')}\n`);
  const scripts = Object.fromEntries(
    ['typecheck', 'test:unit', 'test:fuzz', 'test:e2e', 'test:scale'].map((s) => [s, step(s)]),
  );
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, scripts }));
  return dir;
}

function run(dir: string, args: string[] = []) {
  const r = spawnSync(process.execPath, ['scripts/run-tiers.mjs', ...args], { cwd: dir, encoding: 'utf8' });
  const ran = readFileSync(path.join(dir, 'ran.txt'), 'utf8').trim().split('\n');
  return { status: r.status, out: r.stdout, ran };
}

describe('npm test (scripts/run-tiers.mjs)', () => {
  it('runs the tiers after a failing one and fails at the end, naming it', () => {
    const { status, out, ran } = run(scratch(['test:unit']));
    expect(ran).toEqual(['deps', 'typecheck', 'test:unit', 'test:fuzz', 'test:e2e']);
    expect(status).toBe(1);
    expect(out).toMatch(/^unit +FAILED \(exit 3\)/m);
    expect(out).toMatch(/^fuzz +passed/m);
    expect(out).toMatch(/^e2e +passed/m);
    expect(out).toMatch(/^failed: unit$/m);
  });

  it('passes when every tier passes; --with scale adds the scale test', () => {
    const dir = scratch([]);
    const { status, out, ran } = run(dir, ['--with', 'scale']);
    expect(ran).toEqual(['deps', 'typecheck', 'test:unit', 'test:fuzz', 'test:e2e', 'test:scale']);
    expect(status).toBe(0);
    expect(out).toMatch(/^all 6 tiers passed$/m);
    const usage = spawnSync(process.execPath, ['scripts/run-tiers.mjs', '--with', 'nope'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/usage: run-tiers\.mjs \[--with scale\]/);
  });

  it('is what npm test and .ci/run run', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.test).toBe('node scripts/run-tiers.mjs');
    expect(read('.ci/run')).toMatch(/^npm test -- --with scale$/m);
  });
});
