// Cost of parsing base images in a worker thread (issue 15) against parsing them in-process,
// on the compiled build: `npm run build && node bench/parse-worker.mjs [iso ...]`.
// Defaults to fixtures/iso/*.iso and the coreos-installer fixtures in ../shared (decompressed
// into a temp dir). Prints the median of 15 runs per image and mode, in milliseconds.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { parseLiveIso } = await import(path.join(root, 'dist/src/iso/live-layout.js'));
const { parseLiveIsoInWorker } = await import(path.join(root, 'dist/src/images/fetch/parse-worker.js'));
const RUNS = 15;

let scratch;
let isos = process.argv.slice(2);
if (isos.length === 0) {
  const local = path.join(root, 'fixtures/iso');
  isos = readdirSync(local)
    .filter((f) => f.endsWith('.iso'))
    .map((f) => path.join(local, f));
  const shared = path.resolve(root, '../shared/fixtures/coreos-installer');
  if (existsSync(shared)) {
    scratch = mkdtempSync(path.join(tmpdir(), 'bootsmith-parse-bench-'));
    for (const f of readdirSync(shared).filter((n) => n.endsWith('.iso.xz'))) {
      const out = path.join(scratch, f.slice(0, -3));
      writeFileSync(out, execFileSync('xz', ['-dc', path.join(shared, f)], { maxBuffer: 1 << 28 }));
      isos.push(out);
    }
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function time(fn) {
  const out = [];
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    try {
      await fn();
    } catch {
      /* a fixture that is not a live ISO costs the same to refuse */
    }
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(out);
}

console.log(['image', 'in-process ms', 'worker ms', 'worker overhead ms'].join('\t'));
for (const iso of isos) {
  const inProcess = await time(() => parseLiveIso(iso));
  const inWorker = await time(() => parseLiveIsoInWorker(iso));
  console.log(
    [path.basename(iso), inProcess.toFixed(2), inWorker.toFixed(2), (inWorker - inProcess).toFixed(2)].join('\t'),
  );
}
if (scratch) rmSync(scratch, { recursive: true, force: true });
