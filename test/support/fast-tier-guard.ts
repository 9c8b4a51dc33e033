// Vitest setup file of the fast tier (vitest.config.ts, project `fast`: every unit test file named
// `name.test.ts`, without a real part in its name): before a fast test file runs, every way of
// starting a child process (node:child_process spawn/exec/execFile/fork and their Sync forms) and
// of opening PostgreSQL (pg's Client, which its Pool uses; PGlite.create) is replaced by a
// function that throws FastTierViolation naming what was tried. So a fast-named file that starts
// using an external tool or the database fails — in `npm run test:fast` and in `npm test`, which
// runs the same project — instead of quietly making the fast tier slow.
//
// Does NOT: forbid worker threads, loopback sockets or temp files (in-process, allowed in the
// fast tier); decide which files are fast (their names do) or check their imports
// (test/packaging/test-tiers.test.ts).
import childProcess from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { PGlite } from '@electric-sql/pglite';

export class FastTierViolation extends Error {
  override readonly name = 'FastTierViolation';
}

/** The child_process functions that start a process (every other one builds on these). */
export const GUARDED_CHILD_PROCESS = [
  'spawn',
  'spawnSync',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
  'fork',
] as const;

function refuse(what: string): never {
  throw new FastTierViolation(
    `${what}: a fast test (name.test.ts) runs no child process and no database; ` +
      'name the file name.<needs>.test.ts (docs/developer/testing.md) or run the work in-process',
  );
}

const mutable = childProcess as unknown as Record<string, unknown>;
for (const name of GUARDED_CHILD_PROCESS) {
  mutable[name] = (command: unknown): never => refuse(`child_process.${name}(${JSON.stringify(command)})`);
}
// `import { spawn } from 'node:child_process'` binds to the ES module's exports: copy the
// replacements there too.
syncBuiltinESMExports();

const pg = createRequire(import.meta.url)('pg') as { Client: { prototype: { connect: unknown } } };
pg.Client.prototype.connect = (): never => refuse('pg.Client.connect');
(PGlite as unknown as { create: unknown }).create = (): never => refuse('PGlite.create');
