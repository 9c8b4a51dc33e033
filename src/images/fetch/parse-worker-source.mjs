// Worker entry used when bootsmith runs from its TypeScript sources (vitest, the test children):
// loads src/images/fetch/parse-worker-entry.ts through Vite's module runner (Vite comes with vitest),
// as src/images/test-support/store-child.mjs does for whole processes. Compiled builds (dist/)
// start parse-worker-entry.js directly and never load this file.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
await runnerImport(path.join(root, 'src/images/fetch/parse-worker-entry.ts'), {
  root,
  configFile: false,
  logLevel: 'silent',
});
