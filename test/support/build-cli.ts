// Builds the CLI (tsc -p tsconfig.build.json) into a private directory under .cache/, for tests
// that run the real `bootsmith serve` as a child process (kill -9 and restart). A private
// output directory per caller: test files running at once never overwrite each other's build.
// Inside the repository so the build resolves node_modules and the package root as dist/ does.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** tsc of the whole service on a loaded two-core machine. */
const BUILD_TIMEOUT_MS = 240_000;

export interface BuiltCli {
  /** …/src/cli/main.js of the private build */
  cli: string;
  remove(): Promise<void>;
}

export async function buildCli(): Promise<BuiltCli> {
  const parent = path.join(REPO_ROOT, '.cache', 'cli-builds');
  await mkdir(parent, { recursive: true });
  const out = await mkdtemp(path.join(parent, 'build-'));
  const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [tsc, '-p', 'tsconfig.build.json', '--outDir', out, '--tsBuildInfoFile', path.join(out, '.tsbuildinfo')],
      {
        cwd: REPO_ROOT,
        timeout: BUILD_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => (err ? reject(new Error(`tsc failed: ${stdout}${stderr}`)) : resolve()),
    );
  });
  return { cli: path.join(out, 'src', 'cli', 'main.js'), remove: () => rm(out, { recursive: true, force: true }) };
}
