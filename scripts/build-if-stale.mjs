#!/usr/bin/env node
// `npm start`'s build step: compiles `dist/` (`tsc -p tsconfig.build.json`, incremental) only when
// something it is built from changed since the last build this script made, so a warm start does
// not spend seconds in the compiler (issue 37: 11-20 s on a busy machine, every start).
//
// "Built from": every file under src/ (a test file too: a superset of what tsc compiles, so a
// change there costs one incremental build, never a stale dist), tsconfig.json, tsconfig.build.json
// and package-lock.json (the dependencies' types), as paths, sizes and modification times; an added
// or removed file changes it as well. The fingerprint is stored in dist/.build-inputs after a
// successful build; dist/ without it (built by `npm run build`, or never) is built again.
//
// Does: fingerprint, compare, say on stderr when it compiles and why, run tsc, record.
// Does NOT: start the service (package.json's `start` does), delete files of removed sources from
// dist/ (tsc never did either), or look at node_modules.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = path.join(ROOT, 'dist', '.build-inputs');
const ENTRY = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** Every regular file under `dir`, as paths relative to ROOT. */
function filesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(rel));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

/** The fingerprint of what dist/ is built from: each input's path, size and modification time. */
function inputsFingerprint() {
  const hash = createHash('sha256');
  const files = [...filesUnder('src'), ...CONFIG_FILES.filter((f) => existsSync(path.join(ROOT, f)))].sort();
  for (const file of files) {
    const st = statSync(path.join(ROOT, file));
    hash.update(`${file}\t${st.size}\t${st.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

const fingerprint = inputsFingerprint();
const recorded = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : undefined;
if (recorded === fingerprint && existsSync(ENTRY)) process.exit(0);

process.stderr.write(
  recorded === undefined
    ? 'bootsmith: compiling dist/ (no record of an earlier build)\n'
    : 'bootsmith: compiling dist/ (src/ or the TypeScript configuration changed since the last build)\n',
);
const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
writeFileSync(STAMP, `${fingerprint}\n`);
