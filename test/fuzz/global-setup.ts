// Once per fuzz run: builds the CLI once (test/support/build-cli.ts, a private output directory)
// for the categories that run the real `bootsmith` as a child process (BOOTSMITH_FUZZ_CLI names
// its main.js), gives the test files a fresh figures file, and when the run ends prints
// one table of every category's figures and writes them to .cache/fuzz/figures.json (with the
// mode and seed), so `npm run fuzz` reproduces the numbers in its output.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FUZZ_SEED, LONG } from './support/budget.js';
import { buildCli } from '../support/build-cli.js';
import { CLI_ENV } from './support/cli.js';
import { type CategoryFigures, FIGURES_FILE_ENV } from './support/figures.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT_DIR = path.join(REPO_ROOT, '.cache', 'fuzz');

export default async function setup(): Promise<() => Promise<void>> {
  mkdirSync(OUT_DIR, { recursive: true });
  const built = await buildCli();
  process.env[CLI_ENV] = built.cli;
  const linesFile = path.join(OUT_DIR, 'figures.jsonl');
  rmSync(linesFile, { force: true });
  process.env[FIGURES_FILE_ENV] = linesFile;
  return async () => {
    await built.remove();
    let rows: CategoryFigures[] = [];
    try {
      rows = readFileSync(linesFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as CategoryFigures);
    } catch {
      // no category recorded anything
    }
    const header = ['category', 'cases', 'crashes', 'hangs', 'wrong acceptances', 'data lost'];
    const table = rows.map((r) =>
      [r.category, r.cases, r.crashes, r.hangs, r.wrongAcceptances, r.dataLost].map(String),
    );
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
    const line = (cells: string[]) =>
      cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
    console.log(`\nfuzz figures (${LONG ? 'long' : 'CI'} campaign, seed ${FUZZ_SEED}):`);
    console.log(line(header));
    for (const row of table) console.log(line(row));
    for (const r of rows) if (r.notes) console.log(`  ${r.category}: ${r.notes}`);
    writeFileSync(
      path.join(OUT_DIR, 'figures.json'),
      `${JSON.stringify({ mode: LONG ? 'long' : 'ci', seed: FUZZ_SEED, categories: rows }, null, 2)}\n`,
    );
  };
}
