// Fuzz support: runs the real `bootsmith` command line from the TypeScript sources in a process
// of its own, so a category can kill -9 it or fill its OS_IMAGES with bombs.
// Usage: node cli-child.mjs <args of bootsmith...>   (configuration from the environment)
// `images ...` runs src/cli/images.ts's imagesCommand and exits with its code; anything else
// (`serve`) runs src/cli/main.ts through a Vite module runner that stays open for the life of
// the process (the service imports modules lazily, e.g. the database driver). Vite comes with vitest.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, createServerModuleRunner, runnerImport } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const args = process.argv.slice(2);
if (args[0] === 'images') {
  const { imagesCommand } = (await runnerImport(path.join(root, 'src/cli/images.ts'), { root, configFile: false, logLevel: 'silent' })).module;
  const code = await imagesCommand(args.slice(1), { env: process.env, stdout: process.stdout, stderr: process.stderr });
  process.exit(code);
}
const server = await createServer({ root, configFile: false, logLevel: 'silent', server: { middlewareMode: true, hmr: false, watch: null } });
const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
await runner.import(path.join(root, 'src/cli/main.ts'));
