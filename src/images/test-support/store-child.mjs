// Test support: runs the image store in a process of its own so a test can SIGKILL it mid-download.
// Usage: node store-child.mjs <repo root> <DATA_DIR> <OS image entries as JSON>
// Prints one JSON line per state change of the first image, then "loaded".
// TypeScript sources are loaded through Vite's module runner (Vite comes with vitest).
import path from 'node:path';
import { runnerImport } from 'vite';

const [root, dataDir, entries] = process.argv.slice(2);
const load = async (file) =>
  (await runnerImport(path.join(root, file), { root, configFile: false, logLevel: 'silent' })).module;
const { ManagedImageStore } = await load('src/images/managed-image-store.ts');
const { createLogger } = await load('src/logger.ts');

const imageStore = new ManagedImageStore(JSON.parse(entries), [], createLogger('silent'), { dataDir });
imageStore.subscribe(() => {
  const image = imageStore.health().images[0];
  process.stdout.write(`${JSON.stringify({ state: image.state, bytes: image.bytes })}\n`);
});
await imageStore.loadAll();
process.stdout.write('loaded\n');
await imageStore.close();
