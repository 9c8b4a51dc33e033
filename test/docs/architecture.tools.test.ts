// docs/developer/architecture.md stays true: its layer lists are what the import gate derives from the code
// (`scripts/check-import-cycles.mjs --layers`), as is the house rules' one-line order
// (docs/developer/house-rules.md), every repository path it names exists, and the README links it.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/package-root.js';

const DOC = readFileSync(path.join(PACKAGE_ROOT, 'docs/developer/architecture.md'), 'utf8');

function layers(folder: string): string {
  return execFileSync(process.execPath, ['scripts/check-import-cycles.mjs', '--layers', folder], {
    cwd: PACKAGE_ROOT,
    encoding: 'utf8',
  });
}

describe('docs/developer/architecture.md', () => {
  it.each(['src', 'src/http', 'src/images', 'src/platform'])(
    'shows the layer order of %s as the import gate derives it',
    (folder) => {
      expect(DOC).toContain(`\`\`\`\n${layers(folder)}\`\`\``);
    },
  );

  it("matches the house rules' layer order", () => {
    const order = layers('src')
      .trim()
      .split('\n')
      .map((line) => `\`${line.replace(/^\d+: /, '')}\``)
      .join(' → ');
    const rules = readFileSync(path.join(PACKAGE_ROOT, 'docs/developer/house-rules.md'), 'utf8').replace(/\s+/g, ' ');
    expect(rules).toContain(order);
  });

  it('names only files and folders that exist', () => {
    const named = [...DOC.matchAll(/`((?:src|test|scripts|docs)\/[A-Za-z0-9_./-]+)`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(30);
    const patterns = named.filter((p) => p.includes('/X/')); // a rule's placeholder, not a path
    expect(named.filter((p) => !patterns.includes(p) && !existsSync(path.join(PACKAGE_ROOT, p)))).toEqual([]);
  });

  it('is linked from the README', () => {
    expect(readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8')).toContain('(docs/developer/architecture.md)');
  });
});
