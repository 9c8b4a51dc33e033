// Test support for the documentation's examples: a fresh directory set up like a checkout after
// `npm ci && npm start`, as the examples assume — `fixtures/` of the repository, a package.json
// with the checkout's name and `bin`, and dist/ as the built CLI, so `npx bootsmith` resolves the
// command as it does in a checkout (nothing is linked onto PATH). Readable by the embedded
// PostgreSQL's user when the tests run as root. Does NOT: start anything or run the blocks.
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BuiltCli } from '../../support/build-cli.js';
import { REPO_ROOT } from '../../support/probes.js';

export async function checkoutDir(built: BuiltCli, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  await chmod(dir, 0o711); // as root the embedded PostgreSQL (user postgres) must pass through to ./data
  await symlink(path.join(REPO_ROOT, 'fixtures'), path.join(dir, 'fixtures'));
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const { name, version, type, bin } = pkg;
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name, version, type, private: true, bin }));
  // built.cli is <out>/src/cli/main.js: dist/ is <out>, as package.json's bin expects
  await symlink(path.dirname(path.dirname(path.dirname(built.cli))), path.join(dir, 'dist'));
  return dir;
}
