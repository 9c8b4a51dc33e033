// The documentation's links hold (issue 36): every relative link and image in a Markdown file of
// the repository (README.md, CONTRIBUTING.md, docs/, bench/, and the READMEs beside the code)
// names a file or folder that exists, every `#anchor` a heading of the page it points into (as
// GitHub makes anchors of headings), and every page under docs/ is linked from the README or
// from another page, so none is left where nobody finds it.
// Does: read the files. Does NOT: follow http(s) links (the tests run offline).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT as REPO_ROOT } from '../../src/package-root.js';

/** Not the project's documentation: installed, built, cached or generated files. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.cache', 'data', 'work', 'results']);

function markdownFiles(dir = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) found.push(...markdownFiles(rel));
    } else if (entry.name.endsWith('.md')) found.push(rel);
  }
  return found.sort();
}

/** The page without fenced blocks and inline code, where a `[x](y)` is text, not a link. */
function prose(markdown: string): string {
  return markdown
    .replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '')
    .replace(/(`+)[\s\S]*?\1/g, (code) => code.replace(/[[\]()]/g, ' '));
}

/** GitHub's anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6} (.+?)\s*#*$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

interface Link {
  file: string;
  target: string;
}

function linksOf(file: string): Link[] {
  const text = prose(readFileSync(path.join(REPO_ROOT, file), 'utf8'));
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => ({ file, target: m[1]! }))
    .filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l.target));
}

const FILES = markdownFiles();
const LINKS = FILES.flatMap(linksOf);

function broken(link: Link): string | undefined {
  const [pathPart, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const target =
    pathPart === '' ? link.file : path.posix.normalize(path.posix.join(path.posix.dirname(link.file), pathPart));
  if (target.startsWith('..')) return 'points outside the repository';
  if (!existsSync(path.join(REPO_ROOT, target))) return `${target} does not exist`;
  if (anchor !== undefined) {
    if (!target.endsWith('.md')) return `#${anchor} in a file that is not Markdown`;
    if (!anchorsOf(readFileSync(path.join(REPO_ROOT, target), 'utf8')).has(anchor))
      return `${target} has no heading #${anchor}`;
  }
  return undefined;
}

describe('documentation links', () => {
  it('reads the README, the docs and the benchmark log', () => {
    expect(FILES).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'bench/README.md']));
    expect(FILES.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(15);
    expect(LINKS.length).toBeGreaterThan(100);
  });

  it('every relative link names an existing file, and every #anchor a heading there', () => {
    const problems = LINKS.flatMap((l) => {
      const why = broken(l);
      return why ? [`${l.file}: (${l.target}): ${why}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('every page under docs/ is linked from another page', () => {
    const linked = new Set(
      LINKS.filter((l) => !l.target.startsWith('#')).map((l) =>
        path.posix.normalize(path.posix.join(path.posix.dirname(l.file), l.target.split('#')[0]!)),
      ),
    );
    expect(FILES.filter((f) => f.startsWith('docs/') && !linked.has(f))).toEqual([]);
  });

  it('finds anchors as GitHub makes them', () => {
    const anchors = anchorsOf(
      '# Large Ignition overrides and `/live`\n## TLS\n```sh\n# not a heading\n```\n## TLS\n### A, b: c (d)\n',
    );
    expect([...anchors]).toEqual(['large-ignition-overrides-and-live', 'tls', 'tls-1', 'a-b-c-d']);
  });
});
