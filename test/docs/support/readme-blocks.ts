// The code blocks of README.md that the doc test runs: every fenced block whose nearest
// non-blank line above is `<!-- doc-test -->`, with the `## ` section it sits in and its line.
// Does: parse Markdown fences and headings (fences inside fences do not nest; headings inside a
// fence are code). Does NOT: run anything (readme-examples.test.ts does).

export const DOC_TEST_MARK = '<!-- doc-test -->';

export interface ReadmeBlock {
  /** The `## ` heading above it, without the hashes. */
  section: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string (`sh`, `text`, …). */
  lang: string;
  code: string;
  /** Preceded by DOC_TEST_MARK: the doc test runs it. */
  marked: boolean;
}

export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  let section = '';
  let lastText = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^```(\S*)\s*$/.exec(line);
    if (fence) {
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
      blocks.push({
        section,
        line: start + 1,
        lang: fence[1] ?? '',
        code: `${body.join('\n')}\n`,
        marked: lastText.trim() === DOC_TEST_MARK,
      });
      lastText = '';
      continue;
    }
    const heading = /^## (.+)$/.exec(line);
    if (heading) section = heading[1]!.trim();
    if (line.trim() !== '') lastText = line;
  }
  return blocks;
}
