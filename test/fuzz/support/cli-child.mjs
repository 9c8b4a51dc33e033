// Fuzz support: runs the real `bootsmith` command line (src/cli/main.ts) from the TypeScript
// sources in a process of its own, so a category can kill -9 it or fill its OS_IMAGES with bombs.
// Usage: node cli-child.mjs <args of bootsmith...>   (configuration from the environment)
// Loaded through a Vite module runner that stays open for the life of the process (the service
// imports modules lazily, e.g. the database driver); Vite comes with vitest.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, createServerModuleRunner } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const server = await createServer({ root, configFile: false, logLevel: 'silent', server: { middlewareMode: true, hmr: false, watch: null } });
const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
await runner.import(path.join(root, 'src/cli/main.ts'));
