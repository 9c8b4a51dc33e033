// The code blocks of the documentation (README.md, docs/**/*.md) that the doc tests run: every
// fenced block whose nearest non-blank line above is a doc-test mark, with its page, the heading
// (`# ` or `## `) it sits under and its line. `<!-- doc-test -->` marks a block that
// test/docs/examples.tools.test.ts runs against a started service; `<!-- doc-test: NAME -->` one that
// test/docs/NAME.test.ts (NAME.<needs>.test.ts when it needs real parts) runs in a setting of its
// own (a network namespace, an emulated BMC).
// Does: find the pages, parse Markdown fences and headings (fences inside fences do not nest;
// headings inside a fence are code). Does NOT: run anything.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT as REPO_ROOT } from '../../../src/package-root.js';

/** The runner of a block marked `<!-- doc-test -->`: test/docs/examples.tools.test.ts. */
export const EXAMPLES_RUNNER = 'examples';

const MARK = /^<!-- doc-test(?::\s*([a-z0-9-]+))? -->$/;

export interface DocBlock {
  /** The page, relative to the repository root (`README.md`, `docs/reference/cli.md`). */
  page: string;
  /** The nearest `# ` or `## ` heading above it, without the hashes. */
  section: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string (`sh`, `text`, …). */
  lang: string;
  code: string;
  /** The test that runs it (`examples`, or NAME of `<!-- doc-test: NAME -->`); undefined: not run. */
  runner: string | undefined;
}

export function docBlocks(markdown: string, page: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let section = '';
  let lastText = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^```(\S*)\s*$/.exec(line);
    if (fence) {
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
      const mark = MARK.exec(lastText.trim());
      blocks.push({
        page,
        section,
        line: start + 1,
        lang: fence[1] ?? '',
        code: `${body.join('\n')}\n`,
        runner: mark ? (mark[1] ?? EXAMPLES_RUNNER) : undefined,
      });
      lastText = '';
      continue;
    }
    const heading = /^##? (.+)$/.exec(line);
    if (heading) section = heading[1]!.trim();
    if (line.trim() !== '') lastText = line;
  }
  return blocks;
}

/** README.md, then every Markdown page under docs/, in path order. */
export function docPages(): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) pages.push(rel);
    }
  };
  walk('docs');
  return ['README.md', ...pages.sort()];
}

/** Every block of every page, pages in docPages() order. */
export function allDocBlocks(): DocBlock[] {
  return docPages().flatMap((page) => docBlocks(readFileSync(path.join(REPO_ROOT, page), 'utf8'), page));
}

/** The blocks one runner runs, in page order. */
export function blocksRunBy(runner: string): DocBlock[] {
  return allDocBlocks().filter((b) => b.runner === runner);
}
