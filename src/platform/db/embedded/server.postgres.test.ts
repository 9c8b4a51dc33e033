// The embedded PostgreSQL server on real binaries: layout and password, socket without TCP,
// two instances side by side, the loopback fallback for long paths, a killed postmaster
// (restarted by the supervisor; 503 from the API meanwhile), a dead server's postmaster.pid,
// and clear errors for a read-only or full DATA_DIR (tmpfs mounts; skipped where mount fails)
// or, as root, a DATA_DIR under a 0700 directory the PostgreSQL user cannot pass (the fix that
// works is named: chmod o+x, a DATA_DIR elsewhere, EMBEDDED_POSTGRES_USER only where it helps).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, chown, cp, mkdir, mkdtemp, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { DatabaseUnavailableError, openDatabase, type SqlDatabase } from '../sql.js';
import { http, PULL_SECRET, startHarness } from '../../../core/test-support/harness.js';
import { layoutOf, MAX_SOCKET_PATH_BYTES, startEmbeddedServer } from './server.js';

const silent = pino({ level: 'silent' });
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

async function tempDir(prefix = 'bootsmith-pg-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function open(dataDir: string): Promise<SqlDatabase> {
  const db = await openDatabase({ dataDir, logger: silent });
  cleanups.push(() => db.close());
  return db;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function tryMount(dir: string, options: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
    cleanups.push(async () => execFileSync('umount', ['-l', dir], { stdio: 'ignore' }));
    return true;
  } catch {
    return false;
  }
}

describe('embedded PostgreSQL server', () => {
  test('first start: cluster, 0600 password and a Unix socket in DATA_DIR/postgres, no TCP listener; data survives a restart', async () => {
    const dataDir = await tempDir();
    const db = await open(dataDir);
    const layout = layoutOf(dataDir);
    expect(db.embedded?.target.via).toBe('socket');
    expect(db.embedded?.target.host).toBe(layout.run);
    expect((await stat(layout.passwordFile)).mode & 0o777).toBe(0o600);
    expect((await readFile(layout.passwordFile, 'utf8')).trim()).toBe(db.embedded?.target.password);
    await stat(path.join(layout.run, '.s.PGSQL.5432'));
    const [settings] = await db.query<{ listen: string; sb: string; fsync: string }>(
      "SELECT current_setting('listen_addresses') AS listen, current_setting('shared_buffers') AS sb, current_setting('fsync') AS fsync",
    );
    expect(settings).toEqual({ listen: '', sb: '16MB', fsync: 'on' });
    await db.exec('CREATE TABLE kept (v text)');
    await db.query('INSERT INTO kept VALUES ($1)', ['before restart']);
    const pid = db.embedded!.pid()!;
    await db.close();
    expect(alive(pid)).toBe(false);

    const again = await open(dataDir);
    expect(await again.query('SELECT v FROM kept')).toEqual([{ v: 'before restart' }]);
  });

  test('two instances with different DATA_DIRs run side by side without colliding', async () => {
    const [a, b] = await Promise.all([tempDir(), tempDir()]);
    const [dbA, dbB] = await Promise.all([open(a), open(b)]);
    await dbA.exec('CREATE TABLE who (name text)');
    await dbB.exec('CREATE TABLE who (name text)');
    await dbA.query("INSERT INTO who VALUES ('a')");
    await dbB.query("INSERT INTO who VALUES ('b')");
    expect(await dbA.query('SELECT name FROM who')).toEqual([{ name: 'a' }]);
    expect(await dbB.query('SELECT name FROM who')).toEqual([{ name: 'b' }]);
    expect(dbA.embedded!.pid()).not.toBe(dbB.embedded!.pid());
  });

  test('a second instance on a DATA_DIR in use is refused, and the first keeps running', async () => {
    const dataDir = await tempDir();
    const db = await open(dataDir);
    await expect(startEmbeddedServer({ dataDir, logger: silent })).rejects.toThrow(/DATA_DIR is in use/);
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  test('a socket path over the kernel limit falls back to a free loopback port', async () => {
    const base = await tempDir();
    await chmod(base, 0o711); // PostgreSQL may run as another user (bootsmith as root) and must reach DATA_DIR
    const deep = path.join(base, 'x'.repeat(Math.max(1, MAX_SOCKET_PATH_BYTES - base.length - 10)));
    await mkdir(deep, { recursive: true });
    const db = await open(deep);
    expect(db.embedded?.target.via).toBe('tcp');
    expect(db.embedded?.target.host).toBe('127.0.0.1');
    const [row] = await db.query<{ listen: string }>("SELECT current_setting('listen_addresses') AS listen");
    expect(row!.listen).toBe('127.0.0.1');
  });

  test('kill -9 of the postmaster: queries fail as DatabaseUnavailableError, the server comes back with the committed rows', async () => {
    const dataDir = await tempDir();
    const db = await open(dataDir);
    await db.exec('CREATE TABLE t (n int)');
    for (let i = 0; i < 20; i++) await db.query('INSERT INTO t VALUES ($1)', [i]);
    const first = db.embedded!.pid()!;
    process.kill(first, 'SIGKILL');
    const failure = await until(async () => {
      try {
        await db.query('SELECT 1');
        return undefined;
      } catch (err) {
        return err;
      }
    }, 'a failing query');
    expect(failure).toBeInstanceOf(DatabaseUnavailableError);
    const rows = await until(
      async () => db.query<{ c: string }>('SELECT count(*)::text AS c FROM t'),
      'the restarted server',
    );
    expect(rows).toEqual([{ c: '20' }]);
    expect(db.embedded!.restarts()).toBeGreaterThanOrEqual(1);
    expect(db.embedded!.pid()).not.toBe(first);
  });

  test('the API answers 503 with Retry-After while the server is down, then serves again', async () => {
    const dataDir = await tempDir();
    const h = await startHarness({ dataDir });
    cleanups.push(() => h.close());
    const created = await http('POST', `${h.api}/infra-envs`, {
      name: 'x',
      openshift_version: '4.16',
      pull_secret: PULL_SECRET,
    });
    expect(created.status).toBe(201);
    // the harness's core owns the embedded server; find its postmaster through postmaster.pid
    const pid = Number((await readFile(path.join(layoutOf(dataDir).data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    process.kill(pid, 'SIGKILL');
    const down = await until(
      async () => {
        const r = await http('GET', `${h.api}/infra-envs`);
        return r.status === 200 ? undefined : r;
      },
      'a 503',
      10_000,
    );
    expect(down.status).toBe(503);
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(down.text).not.toMatch(/at .*\.js|stack/i);
    const back = await until(async () => {
      const r = await http('GET', `${h.api}/infra-envs`);
      return r.status === 200 ? r : undefined;
    }, 'the API back');
    expect(back.json.map((e: { id: string }) => e.id)).toEqual([created.json.id]);
  });

  test('a stale postmaster.pid naming a dead process is removed and the server starts', async () => {
    const dataDir = await tempDir();
    await (await open(dataDir)).close();
    await cleanups.pop()!();
    const pidFile = path.join(layoutOf(dataDir).data, 'postmaster.pid');
    // a pid that is certainly not running: a child that has exited
    const dead = Number(
      execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }),
    );
    await writeFile(pidFile, `${dead}\n${layoutOf(dataDir).data}\n0\n5432\n\n\n\n`);
    const db = await open(dataDir);
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  test('as root, binaries the PostgreSQL user cannot reach are copied into DATA_DIR once', async () => {
    if (process.getuid?.() !== 0) {
      console.warn('skipped: only root runs PostgreSQL as another user');
      return;
    }
    const { findPostgresBinaries } = await import('./binaries.js');
    const real = await findPostgresBinaries();
    const hidden = await tempDir(); // 0700, root's: the postgres user cannot enter it
    await cp(path.dirname(path.dirname(real.postgres)), path.join(hidden, 'native'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    const binaries = {
      ...real,
      initdb: path.join(hidden, 'native', 'bin', 'initdb'),
      postgres: path.join(hidden, 'native', 'bin', 'postgres'),
    };
    const dataDir = await tempDir();
    const server = await startEmbeddedServer({ dataDir, logger: silent, binaries });
    cleanups.push(() => server.stop());
    expect(server.state()).toBe('running');
    const exe = await readlink(`/proc/${server.pid()}/exe`);
    expect(exe.startsWith(path.join(layoutOf(dataDir).home, `native-${real.version}`))).toBe(true);
  });

  test('as root, a DATA_DIR under a 0700 directory is refused naming the fix that works', async () => {
    if (process.getuid?.() !== 0) {
      console.warn('skipped: only root runs PostgreSQL as another user');
      return;
    }
    // root's 0700 home, as when a checkout in /root runs `npm start` with DATA_DIR ./data
    const home = await tempDir('bootsmith-roothome-');
    await chmod(home, 0o700);
    const dataDir = path.join(home, 'checkout', 'data');
    const refused = startEmbeddedServer({ dataDir, logger: silent });
    await expect(refused).rejects.toThrow(
      `cannot reach DATA_DIR ${dataDir}: ${home} (mode 0700) does not let it through. Either let it pass through with \`chmod o+x ${home}\` (search only: nothing in it becomes listable), or set DATA_DIR to a directory outside ${home} (e.g. /var/lib/bootsmith)`,
    );
    await expect(refused).rejects.not.toThrow(/EMBEDDED_POSTGRES_USER/); // no other user gets through root's 0700
    // the fix works as said
    await chmod(home, 0o701);
    const server = await startEmbeddedServer({ dataDir, logger: silent });
    cleanups.push(() => server.stop());
    expect(server.state()).toBe('running');

    // a 0700 home of an ordinary user (nobody here): that user gets through, so it is suggested
    // (PostgreSQL runs as the postgres user, installed with Debian's postgresql as .ci/run does)
    if (spawnSync('id', ['-u', 'postgres']).status !== 0) {
      console.warn('skipped the EMBEDDED_POSTGRES_USER case: no postgres user here');
      return;
    }
    const nobody = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
    const userHome = await tempDir('bootsmith-userhome-');
    await chown(userHome, nobody, -1);
    await chmod(userHome, 0o700);
    await expect(startEmbeddedServer({ dataDir: path.join(userHome, 'data'), logger: silent })).rejects.toThrow(
      `, or set EMBEDDED_POSTGRES_USER=nobody (the owner of ${userHome}, who can reach it)`,
    );
  });

  test('missing binaries, read-only and full DATA_DIRs give clear errors', async () => {
    await expect(
      startEmbeddedServer({
        dataDir: await tempDir(),
        logger: silent,
        binaries: { initdb: '/nonexistent/initdb', postgres: '/nonexistent/postgres', version: 'x' },
      }),
    ).rejects.toThrow(/initdb|nonexistent|ENOENT/);

    const ro = await tempDir();
    if (!tryMount(ro, 'size=4m,ro')) {
      console.warn('skipped read-only and full DATA_DIR cases: cannot mount tmpfs here (needs root)');
      return;
    }
    await expect(openDatabase({ dataDir: ro, logger: silent })).rejects.toThrow(/read-only/);

    const full = await tempDir();
    expect(tryMount(full, 'size=6m')).toBe(true);
    await expect(openDatabase({ dataDir: full, logger: silent })).rejects.toThrow(/no space left/i);
    // nothing half-written: no cluster directory that a later start could mistake for a real one
    await expect(stat(path.join(layoutOf(full).data, 'PG_VERSION'))).rejects.toThrow();
  });
});
