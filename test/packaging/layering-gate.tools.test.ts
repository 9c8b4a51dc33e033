// The layering gate (scripts/check-import-cycles.mjs, part of `npm run check`) on small trees
// written for each case: it passes a layered tree and fails, naming the culprit, on a folder
// cycle, a test helper above its folder, a product module importing a test helper, and a room
// importing beyond its rule; `--layers` prints the order leaves first, or names the cycle that has none.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/package-root.js';

const GATE = path.join(PACKAGE_ROOT, 'scripts/check-import-cycles.mjs');
let tree: string | undefined;

afterEach(async () => {
  if (tree) await rm(tree, { recursive: true, force: true });
  tree = undefined;
});

/** Writes `files` (path → imported specifiers) under a fresh folder and runs the gate there. */
async function gate(files: Record<string, string[]>, args: string[] = ['src']) {
  tree = await mkdtemp(path.join(tmpdir(), 'layering-gate-'));
  for (const [file, imports] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(tree, file)), { recursive: true });
    const body = imports.map((spec, i) => `import * as m${i} from '${spec}';\nvoid m${i};\n`).join('');
    await writeFile(path.join(tree, file), `${body}export const here = 1;\n`);
  }
  const run = spawnSync(process.execPath, [GATE, ...args], { cwd: tree, encoding: 'utf8' });
  return { status: run.status, out: run.stdout + run.stderr };
}

const LAYERED = {
  'src/leaf.ts': [],
  'src/a/low.ts': ['../leaf.js'],
  'src/b/high.ts': ['../a/low.js', '../leaf.js'],
  'src/b/test-support/helper.ts': ['../high.js', '../../a/low.js'],
  'src/a/low.test.ts': ['../b/high.js', '../b/test-support/helper.js'],
};

describe('the layering gate', () => {
  it('passes a layered tree, tests importing anything', async () => {
    const { status, out } = await gate(LAYERED);
    expect(out).toContain('no import cycles');
    expect(status).toBe(0);
  });

  it('prints the layer order, leaves first', async () => {
    const { status, out } = await gate(LAYERED, ['--layers', 'src']);
    expect(status).toBe(0);
    expect(out).toBe('0: leaf.ts\n1: a/\n2: b/\n');
  });

  it('names the cycle, without a stack trace, when asked for the layers of a tangled folder', async () => {
    const { status, out } = await gate({ ...LAYERED, 'src/a/other.ts': ['../b/high.js'] }, ['--layers', 'src']);
    expect(status).toBe(1);
    expect(out).toMatch(/^src: (a\/ → b\/ → a\/|b\/ → a\/ → b\/) is a cycle; no layer order\n$/);
  });

  it('fails on a folder cycle that no module cycle shows', async () => {
    const { status, out } = await gate({ ...LAYERED, 'src/a/other.ts': ['../b/high.js'] });
    expect(status).toBe(1);
    expect(out).toContain('folder cycle in src/ between a/, b/');
    expect(out).toContain('src/a/other.ts → src/b/high.ts');
    expect(out).not.toContain('import cycle:');
  });

  it('fails on a test helper that reaches above its folder, also through another helper', async () => {
    const direct = await gate({ ...LAYERED, 'src/a/test-support/helper.ts': ['../../b/high.js'] });
    expect(direct.status).toBe(1);
    expect(direct.out).toContain(
      'test helper src/a/test-support/helper.ts reaches src/b/high.ts, above its folder src/a/',
    );
    const through = await gate(
      {
        ...LAYERED,
        'test/support/harness.ts': ['../../src/b/high.js'],
        'src/a/test-support/helper.ts': ['../../../test/support/harness.js'],
      },
      ['src', 'test'],
    );
    expect(through.status).toBe(1);
    expect(through.out).toContain('reaches test/support/harness.ts → src/b/high.ts');
  });

  it('fails on a product module importing a test helper', async () => {
    const { status, out } = await gate({ ...LAYERED, 'src/b/high.ts': ['./test-support/helper.js'] });
    expect(status).toBe(1);
    expect(out).toContain('product module src/b/high.ts imports src/b/test-support/helper.ts');
  });

  it('fails on a room importing beyond its rule', async () => {
    const { status, out } = await gate({
      ...LAYERED,
      'src/errors.ts': [],
      'src/http/representation/range.ts': ['../../errors.js'],
      'src/http/representation/plan.ts': ['./range.js', '../../leaf.js'],
    });
    expect(status).toBe(1);
    expect(out).toContain('src/http/representation/plan.ts imports src/leaf.ts');
    expect(out).not.toContain('range.ts imports');
  });
});
