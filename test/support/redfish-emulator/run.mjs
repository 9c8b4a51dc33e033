#!/usr/bin/env node
// Runs the Redfish emulator standalone: compiles main.ts and what it imports with the project's
// TypeScript into dist/test/support/redfish-emulator/, then runs it with the given arguments.
//   node test/support/redfish-emulator/run.mjs CONFIG.yaml     (see README.md)
//   node test/support/redfish-emulator/run.mjs --help
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
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
    path.join(root, 'dist'),
    path.join(here, 'main.ts'),
  ],
  { stdio: 'inherit', cwd: root },
);
if (compiled.status !== 0) {
  process.stderr.write('redfish-emulator: tsc failed\n');
  process.exit(compiled.status ?? 1);
}
await import(pathToFileURL(path.join(root, 'dist', 'test', 'support', 'redfish-emulator', 'main.js')).href);
