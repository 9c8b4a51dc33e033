#!/usr/bin/env node
// Runs the Redfish emulator standalone: compiles main.ts and what it imports with the project's
// TypeScript into a directory of its own under .cache/redfish-emulator/ (removed when it exits;
// two runs at once never overwrite each other's output, and dist/ stays the service's build),
// then runs it with the given arguments.
//   node test/support/redfish-emulator/run.mjs CONFIG.yaml     (see README.md)
//   node test/support/redfish-emulator/run.mjs try …           (npm run try:bmc)
//   node test/support/redfish-emulator/run.mjs --help
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const builds = path.join(root, '.cache', 'redfish-emulator');
mkdirSync(builds, { recursive: true });
const out = mkdtempSync(path.join(builds, 'run-'));
const compiled = spawnSync(
  process.execPath,
  [
    tsc,
    '--module',
    'NodeNext',
    '--moduleResolution',
    'NodeNext',
    '--target',
    'ES2022',
    '--strict',
    '--skipLibCheck',
    '--types',
    'node',
    '--rootDir',
    root,
    '--outDir',
    out,
    path.join(here, 'main.ts'),
  ],
  { stdio: 'inherit', cwd: root },
);
if (compiled.status !== 0) {
  rmSync(out, { recursive: true, force: true });
  process.stderr.write('redfish-emulator: tsc failed\n');
  process.exit(compiled.status ?? 1);
}
try {
  const { main } = await import(pathToFileURL(path.join(out, 'test', 'support', 'redfish-emulator', 'main.js')).href);
  process.exitCode = await main(process.argv.slice(2), { root });
} finally {
  rmSync(out, { recursive: true, force: true });
}
