// `npm start` compiles dist/ only when what it is built from changed (scripts/build-if-stale.mjs;
// issue 37: tsc ran on every start, 11-20 s warm). The script runs for real, as a copy in a scratch
// project with a one-file src/ and the repository's TypeScript: a first start builds, a second one
// does not touch dist/, and an edited, added or removed source file or a changed tsconfig builds
// again. package.json's `start` is checked to use it.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/probes.js';

const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-build-if-stale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setUp(): void {
  mkdirSync(path.join(dir, 'scripts'));
  mkdirSync(path.join(dir, 'src', 'cli'), { recursive: true });
  copyFileSync(path.join(REPO_ROOT, 'scripts', 'build-if-stale.mjs'), path.join(dir, 'scripts', 'build-if-stale.mjs'));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const options = {
    target: 'ES2022',
    module: 'NodeNext',
    outDir: 'dist',
    rootDir: '.',
    incremental: true,
    strict: true,
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, include: ['src'] }));
  writeFileSync(
    path.join(dir, 'tsconfig.build.json'),
    JSON.stringify({ extends: './tsconfig.json', compilerOptions: { tsBuildInfoFile: 'dist/.tsbuildinfo.build' } }),
  );
  writeFileSync(path.join(dir, 'src', 'cli', 'main.ts'), 'export const answer: number = 42;\n');
}

/** Runs the script; returns its exit status and whether it compiled (it says so on stderr). */
function start(): { status: number | null; compiled: boolean } {
  const r = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, compiled: /^bootsmith: compiling dist\//m.test(r.stderr) };
}

/** Several tsc runs: seconds each on a quiet machine, tens of seconds at load 15-20 (CI beside other work). */
const BUILDS_TIMEOUT_MS = 600_000;

describe('npm start builds only a stale dist (scripts/build-if-stale.mjs)', () => {
  it(
    'builds the first time, skips when nothing changed, builds after a change',
    () => {
      setUp();
      expect(start()).toMatchObject({ status: 0, compiled: true });
      const entry = path.join(dir, 'dist', 'src', 'cli', 'main.js');
      expect(readFileSync(entry, 'utf8')).toContain('42');
      utimesSync(entry, new Date(0), new Date(0));
      expect(start()).toMatchObject({ status: 0, compiled: false });
      expect(statSync(entry).mtimeMs).toBe(0); // tsc did not run: it would have rewritten the file

      writeFileSync(path.join(dir, 'src', 'cli', 'main.ts'), 'export const answer: number = 43;\n');
      expect(start()).toMatchObject({ status: 0, compiled: true });
      expect(readFileSync(path.join(dir, 'dist', 'src', 'cli', 'main.js'), 'utf8')).toContain('43');
      expect(start()).toMatchObject({ status: 0, compiled: false });

      writeFileSync(path.join(dir, 'src', 'extra.ts'), 'export const extra = 1;\n');
      expect(start().compiled).toBe(true);
      rmSync(path.join(dir, 'src', 'extra.ts'));
      expect(start().compiled).toBe(true);
      expect(start().compiled).toBe(false);

      const config = path.join(dir, 'tsconfig.build.json');
      writeFileSync(config, readFileSync(config, 'utf8').replace('}}', '}, "exclude": ["nothing"]}'));
      expect(start().compiled).toBe(true);
    },
    BUILDS_TIMEOUT_MS,
  );

  it(
    'fails like tsc on a type error and records nothing, so the next start tries again',
    () => {
      writeFileSync(path.join(dir, 'src', 'cli', 'main.ts'), 'export const answer: number = "no";\n');
      const broken = start();
      expect(broken.status).not.toBe(0);
      writeFileSync(path.join(dir, 'src', 'cli', 'main.ts'), 'export const answer: number = 44;\n');
      expect(start()).toMatchObject({ status: 0, compiled: true });
    },
    BUILDS_TIMEOUT_MS,
  );

  it('is what npm start runs before serving', () => {
    const scripts = (
      JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts.start).toBe('node scripts/build-if-stale.mjs && node dist/src/cli/main.js serve');
  });
});
