// Worker entry used when bootsmith runs from its TypeScript sources (vitest, the test children):
// loads src/bmc/redfish/call-worker-entry.ts through Vite's module runner (Vite comes with vitest),
// as src/core/discovery-ignition/render-worker-source.mjs does for the Ignition render. Compiled
// builds (dist/) start call-worker-entry.js directly and never load this file.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
await runnerImport(path.join(root, 'src/bmc/redfish/call-worker-entry.ts'), {
  root,
  configFile: false,
  logLevel: 'silent',
});
