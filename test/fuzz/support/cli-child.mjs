// Fuzz support: runs the real `bootsmith` command line (src/cli/main.ts) from the TypeScript
// sources in a process of its own, so a category can kill -9 it or fill its OS_IMAGES with bombs.
// Usage: node cli-child.mjs <args of bootsmith...>   (configuration from the environment)
// Loaded through Vite's module runner (Vite comes with vitest), like
// src/images/test-support/store-child.mjs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
await runnerImport(path.join(root, 'src/cli/main.ts'), { root, configFile: false, logLevel: 'silent' });
