// The embedded server's cluster on disk: DATA_DIR/postgres laid out (password 0600, data/,
// run/), initdb on first start (into data.init/, renamed when complete, so a half-initialised
// cluster is never used), and, as root, the unprivileged user PostgreSQL runs as and its
// access to DATA_DIR and the binaries. Does not start or stop servers (./server.ts).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chmod, chown, cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { PostgresBinaries } from './binaries.js';
import { EmbeddedPostgresError, explainFsError } from './errors.js';

/** initdb of an empty cluster takes ~1 s here; a slow disk gets far more before we give up. */
const INITDB_TIMEOUT_MS = 120_000;

export interface Layout {
  home: string;
  data: string;
  run: string;
  passwordFile: string;
}
export function layoutOf(dataDir: string): Layout {
  const home = path.join(dataDir, 'postgres');
  return {
    home,
    data: path.join(home, 'data'),
    run: path.join(home, 'run'),
    passwordFile: path.join(home, 'password'),
  };
}
export interface Owner {
  uid: number;
  gid: number;
  name: string;
}
/** Who PostgreSQL runs as: ourselves, or (as root, which PostgreSQL refuses) another user. */
export function runAsIds(requested: string | undefined): Owner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const candidates = requested ? [requested] : ['postgres', 'nobody'];
  for (const name of candidates) {
    try {
      const uid = Number(
        execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
      );
      const gid = Number(
        execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
      );
      if (uid !== 0) return { uid, gid, name };
    } catch {
      // no such user: try the next one
    }
  }
  throw new EmbeddedPostgresError(
    `bootsmith runs as root and PostgreSQL refuses to: no unprivileged user to run it as (${candidates.join(', ')}); set EMBEDDED_POSTGRES_USER to an existing user, or run bootsmith as a non-root user`,
    { candidates },
  );
}
export async function prepareHome(layout: Layout, owner: Owner | undefined): Promise<void> {
  try {
    const dataDir = path.dirname(layout.home);
    await mkdir(dataDir, { recursive: true });
    await access(dataDir, constants.W_OK); // EROFS/EACCES said plainly (a recursive mkdir would say ENOENT)
    await mkdir(layout.home, { recursive: true, mode: 0o711 });
    if (owner) await ensureTraversable(path.dirname(layout.home), owner);
    await access(layout.home, constants.W_OK);
    await mkdir(layout.run, { recursive: true, mode: 0o700 });
    if (owner) await chown(layout.run, owner.uid, owner.gid);
    await chmod(layout.run, 0o700);
  } catch (err) {
    throw explainFsError(err, `prepare the embedded PostgreSQL directory ${layout.home}`);
  }
}
/**
 * As root, PostgreSQL runs as another user, who must be able to reach DATA_DIR/postgres.
 * DATA_DIR itself is bootsmith's and gets search permission for others (x only: nothing in
 * it can be listed); a parent that does not allow it is reported, not changed, with the fixes
 * that work: search permission on that directory, a DATA_DIR elsewhere, and EMBEDDED_POSTGRES_USER
 * only when some other user could get through (the directory's own, non-root owner).
 */
async function ensureTraversable(dataDir: string, owner: Owner): Promise<void> {
  const st = await stat(dataDir);
  if ((st.mode & 0o001) === 0 && st.uid !== owner.uid) await chmod(dataDir, (st.mode & 0o7777) | 0o001);
  const dir = await firstUnsearchable(path.dirname(dataDir), owner);
  if (dir !== undefined) throw await unreachableError(dataDir, dir, owner);
}

async function unreachableError(dataDir: string, dir: string, owner: Owner): Promise<EmbeddedPostgresError> {
  const st = await stat(dir);
  const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
  // Group bits apply to a member of the directory's group, the "others" bits to everyone else.
  const bit = st.gid === owner.gid && st.uid !== owner.uid ? 'g+x' : 'o+x';
  const fixes = [
    `let it pass through with \`chmod ${bit} ${dir}\` (search only: nothing in it becomes listable)`,
    `set DATA_DIR to a directory outside ${dir} (e.g. /var/lib/bootsmith)`,
  ];
  const dirOwner = st.uid === 0 ? undefined : userById(st.uid);
  if (
    dirOwner &&
    dirOwner.uid !== owner.uid &&
    (await firstUnsearchable(path.dirname(dataDir), dirOwner)) === undefined
  )
    fixes.push(`set EMBEDDED_POSTGRES_USER=${dirOwner.name} (the owner of ${dir}, who can reach it)`);
  return new EmbeddedPostgresError(
    `PostgreSQL runs as user ${owner.name} (bootsmith runs as root, which PostgreSQL refuses) and cannot reach DATA_DIR ${dataDir}: ${dir} (mode ${mode}) does not let it through. Either ${fixes.slice(0, -1).join(', ')}${fixes.length > 1 ? ', or ' : ''}${fixes[fixes.length - 1]!}`,
    { dir, user: owner.name },
  );
}

/** The user with this uid (name and primary group), when `id` knows one. */
function userById(uid: number): Owner | undefined {
  try {
    const name = execFileSync('id', ['-nu', String(uid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const gid = Number(
      execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
    );
    return name && Number.isInteger(gid) ? { uid, gid, name } : undefined;
  } catch {
    return undefined; // a uid without a passwd entry: no one to suggest
  }
}
/**
 * As root, the binaries are executed as another user, who may not be able to reach
 * node_modules (a checkout under /root). Then the package's `native/` tree (binaries, libraries,
 * share/, found relative to each other) is copied once into DATA_DIR/postgres/native-<version>.
 */
export async function binariesRunnableBy(
  binaries: PostgresBinaries,
  owner: Owner,
  layout: Layout,
  logger: Logger,
): Promise<PostgresBinaries> {
  const native = path.dirname(path.dirname(binaries.postgres));
  if ((await firstUnsearchable(path.dirname(binaries.postgres), owner)) === undefined) return binaries;
  const copy = path.join(layout.home, `native-${binaries.version}`);
  const copied: PostgresBinaries = {
    ...binaries,
    initdb: path.join(copy, 'bin', 'initdb'),
    postgres: path.join(copy, 'bin', 'postgres'),
  };
  if (await exists(copied.postgres)) return copied;
  logger.info(
    { from: native, to: copy, user: owner.name },
    'the PostgreSQL binaries are not reachable by the user PostgreSQL runs as: copying them into DATA_DIR',
  );
  try {
    await rm(`${copy}.tmp`, { recursive: true, force: true });
    await cp(native, `${copy}.tmp`, { recursive: true, verbatimSymlinks: true });
    await rename(`${copy}.tmp`, copy);
  } catch (err) {
    await rm(`${copy}.tmp`, { recursive: true, force: true }).catch(() => undefined);
    throw explainFsError(err, `copy the PostgreSQL binaries into ${copy}`);
  }
  return copied;
}
/**
 * The first of `dir` and its parents that `owner` cannot search (mode bits; root bypasses them,
 * owner does not), or undefined when all of them can be searched.
 */
async function firstUnsearchable(dir: string, owner: Owner): Promise<string | undefined> {
  for (let d = dir; ; d = path.dirname(d)) {
    const s = await stat(d);
    const searchable =
      s.uid === owner.uid
        ? (s.mode & 0o100) !== 0
        : s.gid === owner.gid
          ? (s.mode & 0o010) !== 0
          : (s.mode & 0o001) !== 0;
    if (!searchable) return d;
    if (d === path.dirname(d)) return undefined;
  }
}
export async function loadPassword(file: string): Promise<string> {
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw explainFsError(err, `read ${file}`);
  }
  const password = randomBytes(24).toString('base64url');
  try {
    await writeFile(`${file}.tmp`, `${password}\n`, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  } catch (err) {
    await rm(`${file}.tmp`, { force: true });
    throw explainFsError(err, `write ${file}`);
  }
  return password;
}
export async function initCluster(
  binaries: PostgresBinaries,
  layout: Layout,
  owner: Owner | undefined,
  password: string,
  logger: Logger,
): Promise<void> {
  const staging = `${layout.data}.init`;
  const pwfile = path.join(layout.run, '.initdb-pw');
  try {
    await rm(staging, { recursive: true, force: true });
    if (await exists(layout.data)) {
      // a directory without PG_VERSION never held a started cluster: nothing committed is in it
      logger.warn({ dir: layout.data }, 'removing an incomplete PostgreSQL data directory');
      await rm(layout.data, { recursive: true, force: true });
    }
    await mkdir(staging, { mode: 0o700 });
    await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (owner) await Promise.all([chown(staging, owner.uid, owner.gid), chown(pwfile, owner.uid, owner.gid)]);
  } catch (err) {
    await rm(pwfile, { force: true });
    throw explainFsError(err, `create ${staging}`);
  }
  const started = Date.now();
  try {
    const out = await runToEnd(
      binaries.initdb,
      [
        `--pgdata=${staging}`,
        '--username=postgres',
        '--auth=scram-sha-256',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--locale=C',
        '--no-instructions',
      ],
      owner,
      INITDB_TIMEOUT_MS,
    );
    if (out.code !== 0) {
      throw new EmbeddedPostgresError(`initdb failed for ${layout.data}: ${lastLines(out.output)}`, {
        code: out.code,
        signal: out.signal,
      });
    }
    await rename(staging, layout.data);
  } catch (err) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    if (err instanceof EmbeddedPostgresError) throw err;
    throw explainFsError(err, `initialise ${layout.data}`);
  } finally {
    await rm(pwfile, { force: true }).catch(() => undefined);
  }
  logger.info({ dir: layout.data, ms: Date.now() - started }, 'embedded PostgreSQL cluster created');
}
/** The server's own reason, with a plain-words prefix for the failures operators meet most. */
export function explainServerLog(tail: string[]): string {
  const text = tail.join(' | ');
  if (/No space left on device/i.test(text)) return `no space left in DATA_DIR: ${text}`;
  if (/Read-only file system/i.test(text)) return `DATA_DIR is read-only: ${text}`;
  if (/Permission denied/i.test(text)) return `permission denied in DATA_DIR: ${text}`;
  return text;
}
function runToEnd(
  file: string,
  args: string[],
  owner: Owner | undefined,
  timeoutMs: number,
): Promise<{ code: number | null; signal: string | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    });
    let output = '';
    const take = (b: Buffer) => {
      output = (output + b.toString('utf8')).slice(-8_192);
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}
function lastLines(output: string): string {
  return explainServerLog(output.trim().split('\n').slice(-5));
}
export async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
