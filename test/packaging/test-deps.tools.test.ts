// One list of the Debian packages the suites need (scripts/install-test-deps.sh), used by
// `npm test` and `.ci/run` alike, and named in docs/developer/testing.md; .ci/run sets CI=true
// so a missing tool fails the run instead of skipping (test/support/requirements.ts).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/probes.js';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'install-test-deps.sh');
const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

describe('test dependencies', () => {
  const packages = execFileSync('bash', [SCRIPT, '--list'], { encoding: 'utf8' }).trim().split('\n');

  it('npm test and .ci/run install them through the one script', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.test).toBe('node scripts/run-tiers.mjs');
    expect(read('scripts/run-tiers.mjs')).toContain("command: ['bash', 'scripts/install-test-deps.sh']");
    const ci = read('.ci/run');
    expect(ci).toContain('export CI=true');
    expect(ci).toContain('bash scripts/install-test-deps.sh');
    expect(ci).not.toMatch(/apt-get install/);
    expect(packages).toEqual(expect.arrayContaining(['xorriso', 'qemu-system-x86', 'chromium', 'postgresql']));
  });

  it('says what each package is for, and the testing page names every one', () => {
    const script = readFileSync(SCRIPT, 'utf8');
    const page = read('docs/developer/testing.md');
    for (const p of packages) {
      expect(script, p).toMatch(new RegExp(`\\[${p.replace(/[.+]/g, '\\$&')}\\]=`));
      expect(page, p).toContain(p);
    }
  });
});
