// Which admin token generation is current: the record `bootsmith auth rotate-admin` advances
// and every admin request is checked against, so a rotation takes effect at once in every
// running process without a restart.
//
// A generation is a number and a random id (the token's `jti`). Where it lives follows where
// the processes sharing one admin token meet:
//  - with DATABASE_URL (replicas share the database): insert-only rows `admin-token-generation:<n>`
//    in service_keys; generation n is current while row n holds its jti and row n+1 does not
//    exist. Two writers racing for n+1 cannot both win (the insert is ON CONFLICT DO NOTHING).
//  - with the embedded database (one process owns DATA_DIR): DATA_DIR/auth/admin-generation,
//    replaced atomically; the CLI never opens the embedded database under a running service.
// Does not sign or verify tokens (local-keys.ts does).
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic-file.js';
import { ConflictError, FormatError } from '../../errors.js';
import type { Repository } from '../db/repository.js';

export interface AdminGeneration {
  generation: number;
  jti: string;
}

export interface AdminGenerations {
  /** The current generation, creating generation 1 when there is none yet. */
  current(): Promise<AdminGeneration>;
  /** Whether a token of this generation and jti is still the current one. */
  isCurrent(g: AdminGeneration): Promise<boolean>;
  /** Makes a new generation current (the previous one stops verifying) and returns it. */
  advance(): Promise<AdminGeneration>;
}

/** Rotations of one deployment in a lifetime are far fewer; a bound on the probe of service_keys. */
const MAX_GENERATIONS = 100_000;
/** How often advance() retries after losing a race to another rotator. */
const MAX_ADVANCE_ATTEMPTS = 5;

const newJti = (): string => randomBytes(16).toString('base64url');
const rowName = (n: number): string => `admin-token-generation:${n}`;

export function databaseGenerations(repo: Repository): AdminGenerations {
  /** The highest n with a row: gallop up, then bisect (rows are never deleted, so 1..n all exist). */
  async function latest(): Promise<AdminGeneration | undefined> {
    if ((await repo.getServiceKey(rowName(1))) === undefined) return undefined;
    let lo = 1;
    let hi = 2;
    while (hi <= MAX_GENERATIONS && (await repo.getServiceKey(rowName(hi))) !== undefined) {
      lo = hi;
      hi *= 2;
    }
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await repo.getServiceKey(rowName(mid))) !== undefined) lo = mid;
      else hi = mid;
    }
    return { generation: lo, jti: (await repo.getServiceKey(rowName(lo)))! };
  }
  async function claim(n: number): Promise<AdminGeneration | undefined> {
    const jti = newJti();
    const stored = await repo.putServiceKeyIfAbsent(rowName(n), jti);
    return stored === jti ? { generation: n, jti } : undefined;
  }
  return {
    async current() {
      return (await latest()) ?? (await claim(1)) ?? (await latest())!;
    },
    async isCurrent(g) {
      if (!Number.isSafeInteger(g.generation) || g.generation < 1) return false;
      return (
        (await repo.getServiceKey(rowName(g.generation))) === g.jti &&
        (await repo.getServiceKey(rowName(g.generation + 1))) === undefined
      );
    },
    async advance() {
      for (let attempt = 0; attempt < MAX_ADVANCE_ATTEMPTS; attempt++) {
        const next = ((await latest())?.generation ?? 0) + 1;
        const won = await claim(next);
        if (won) return won;
      }
      throw new ConflictError('admin token rotation lost the race to other rotations repeatedly; try again', {
        attempts: MAX_ADVANCE_ATTEMPTS,
      });
    },
  };
}

export function fileGenerations(dataDir: string): AdminGenerations {
  const dir = path.join(dataDir, 'auth');
  const file = path.join(dir, 'admin-generation');
  async function read(): Promise<AdminGeneration | undefined> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    let g: Partial<AdminGeneration> = {};
    try {
      g = JSON.parse(text) as Partial<AdminGeneration>;
    } catch {
      /* reported below */
    }
    if (!Number.isSafeInteger(g.generation) || typeof g.jti !== 'string') {
      throw new FormatError(`${file} is malformed; remove it and run bootsmith auth rotate-admin`, { file });
    }
    return { generation: g.generation!, jti: g.jti };
  }
  async function write(g: AdminGeneration): Promise<AdminGeneration> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(file, `${JSON.stringify(g)}\n`, 0o600);
    return g;
  }
  return {
    async current() {
      return (await read()) ?? (await write({ generation: 1, jti: newJti() }));
    },
    async isCurrent(g) {
      const cur = await read();
      return cur !== undefined && cur.generation === g.generation && cur.jti === g.jti;
    },
    async advance() {
      return write({ generation: ((await read())?.generation ?? 0) + 1, jti: newJti() });
    },
  };
}
