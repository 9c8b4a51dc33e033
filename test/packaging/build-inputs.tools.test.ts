// Pins down what `npm run build` compiles into dist/ (issue 18): asks the real compiler which
// files tsconfig.build.json takes (`tsc --listFilesOnly`) and fails when one of them is a test,
// lives in a test-support folder, imports a devDependency at run time (ajv, vitest, fast-check…
// are not installed in the production image), or is reachable from no entry point (the `bin`
// in package.json and the modules the built code loads with `new URL('./x.js', import.meta.url)`,
// such as worker entries, following value and type imports), which is how a test-only helper
// outside test-support looks.
//
// Does: read package.json, run tsc, read the listed source files.
// Does NOT: build anything or inspect dist/ itself (what tsc lists is what it emits).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** tsc type-checks the whole build program to list it; a few seconds on a shared machine. */
const LIST_TIMEOUT_MS = 120_000;

interface PackageJson {
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); undefined for relative and node: specifiers. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

interface ModuleRefs {
  /** Specifiers of imports that remain at run time (`import type` and `export type` are erased). */
  runtime: string[];
  /** Specifiers of type-only imports and exports. */
  typeOnly: string[];
  /** Relative modules loaded by URL (`new URL('./x.js', import.meta.url)`): worker entries and the like. */
  byUrl: string[];
}

/** The import specifiers of one TypeScript module's source text. */
export function moduleRefs(source: string): ModuleRefs {
  const runtime: string[] = [];
  const typeOnly: string[] = [];
  const staticForm = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  for (const m of source.matchAll(staticForm))
    if (m[3] !== undefined) (m[2] === undefined ? runtime : typeOnly).push(m[3]);
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) if (m[1] !== undefined) runtime.push(m[1]);
  const byUrl: string[] = [];
  for (const m of source.matchAll(/new URL\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g)) {
    if (m[1] !== undefined) byUrl.push(m[1]);
  }
  return { runtime, typeOnly, byUrl };
}

/** What is wrong with a file the build compiles, given its repository path and source; empty when nothing. */
export function buildInputProblems(file: string, source: string, devOnly: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  if (/\.test\.tsx?$/.test(file)) problems.push('is a test');
  if (file.split('/').includes('test-support')) problems.push('is test support (a test-support folder)');
  for (const spec of moduleRefs(source).runtime) {
    const pkg = packageOf(spec);
    if (pkg !== undefined && devOnly.has(pkg)) problems.push(`imports the devDependency ${pkg}`);
  }
  return problems;
}

/** Repository paths (`src/…`) of the project files tsconfig.build.json compiles. */
function listBuildInputs(): string[] {
  const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--listFilesOnly'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: LIST_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0)
    throw new Error(`tsc --listFilesOnly failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}${r.stderr}`);
  return r.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => path.relative(REPO_ROOT, l).split(path.sep).join('/'))
    .filter((l) => !l.startsWith('..') && !l.startsWith('node_modules/'));
}

/** `./x.js` imported from `src/a/b.ts` → `src/a/x.ts` (the source file tsc compiles to it). */
function resolveRelative(from: string, spec: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, '.ts');
}

describe('what the build compiles into dist/', () => {
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as PackageJson;
  const devOnly = new Set(Object.keys(pkg.devDependencies ?? {}).filter((name) => !(name in (pkg.dependencies ?? {}))));

  it('recognises tests, test support and devDependency imports (the checks below can fail)', () => {
    expect(buildInputProblems('src/core/api.test.ts', '', devOnly)).toEqual(['is a test']);
    expect(buildInputProblems('src/iso/test-support/fixtures.ts', '', devOnly)).toEqual([
      'is test support (a test-support folder)',
    ]);
    const ajvUser =
      "import { Ajv, type ValidateFunction } from 'ajv';\nimport YAML from 'yaml';\nimport type { X } from 'vitest';\n";
    expect(buildInputProblems('src/core/contract-schema.ts', ajvUser, devOnly)).toEqual([
      'imports the devDependency ajv',
    ]);
    expect(moduleRefs("const { PGlite } = await import('@electric-sql/pglite');").runtime).toEqual([
      '@electric-sql/pglite',
    ]);
    expect(moduleRefs("const E = new URL('./parse-worker-entry.js', import.meta.url);").byUrl).toEqual([
      './parse-worker-entry.js',
    ]);
    expect(packageOf('@scope/name/sub')).toBe('@scope/name');
    expect(packageOf('node:fs')).toBeUndefined();
  });

  it(
    'holds no test, no test support and no run-time import of a devDependency, and every module is reachable',
    () => {
      const inputs = listBuildInputs().filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
      expect(inputs).toContain('src/cli/main.ts');

      const problems: string[] = [];
      const edges = new Map<string, string[]>();
      for (const file of inputs) {
        const source = readFileSync(path.join(REPO_ROOT, file), 'utf8');
        for (const p of buildInputProblems(file, source, devOnly)) problems.push(`${file} ${p}`);
        const refs = moduleRefs(source);
        edges.set(
          file,
          [...refs.runtime, ...refs.typeOnly, ...refs.byUrl]
            .filter((s) => s.startsWith('.'))
            .map((s) => resolveRelative(file, s)),
        );
      }

      // Everything the bin reaches, following imports and URL-loaded modules.
      const entries = Object.values(pkg.bin ?? {}).map((bin) => bin.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
      const reached = new Set<string>();
      const queue = [...entries];
      for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
        if (reached.has(next)) continue;
        reached.add(next);
        queue.push(...(edges.get(next) ?? []));
      }
      for (const file of inputs) {
        if (!reached.has(file))
          problems.push(`${file} is reached from no entry point (${entries.join(', ')}): test-only code?`);
      }
      expect(problems).toEqual([]);
    },
    LIST_TIMEOUT_MS + 30_000,
  );
});
