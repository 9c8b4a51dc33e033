// `bootsmith db export|import` end to end: InfraEnvs and hosts created through the API on the
// embedded server, exported, written into a real PGlite cluster laid out as a PGlite-era
// DATA_DIR/db (which the service then reports in /health), exported from there with --pglite,
// imported into a fresh DATA_DIR, and served again by the API with the same answers.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { migrate } from '../platform/db/migration-runner.js';
import { SERVICE_DUMP_TABLES, SERVICE_MIGRATIONS } from '../service-database.js';
import { importDump, parseDump } from '../platform/db/dump.js';
import type { SqlDatabase, SqlExecutor } from '../platform/db/sql.js';
import { http, inventory, PULL_SECRET, sshKey, startHarness } from '../core/test-support/harness.js';
import { API, DEMO_VERSION, PULL_SECRET as DEMO_PULL_SECRET, startAllInOne } from '../../test/support/all-in-one.js';
import { dbCommand } from './db.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-dbcli-'));
  dirs.push(d);
  return d;
}

async function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await dbCommand(args, {
    env: { LOG_LEVEL: 'silent', ...env },
    stdout: { write: (t: string) => void (stdout += t), isTTY: false } as never,
    stderr: { write: (t: string) => (stderr += t) },
  });
  return { code, stdout, stderr };
}

/** A PGlite database as a SqlDatabase (only for building the PGlite-era fixture). */
async function pgliteDatabase(dir: string): Promise<SqlDatabase & { closeNow(): Promise<void> }> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dir);
  const exec = (x: { query: typeof db.query; exec: typeof db.exec }): SqlExecutor => ({
    query: async <T>(sql: string, params?: unknown[]) => (await x.query<T>(sql, params)).rows,
    exec: async (sql: string) => void (await x.exec(sql)),
  });
  return {
    ...exec(db),
    transaction: (fn) => db.transaction((tx) => fn(exec(tx as never))),
    close: () => db.close(),
    closeNow: () => db.close(),
  };
}

describe('bootsmith db export|import', () => {
  test('moves InfraEnvs, hosts and events out of a PGlite-era DATA_DIR into the embedded server', async () => {
    // 1. real rows, made through the API
    const source = await tempDir();
    const h = await startHarness({ dataDir: source });
    const env1 = await http('POST', `${h.api}/infra-envs`, {
      name: 'lab',
      openshift_version: '4.16',
      pull_secret: PULL_SECRET,
      ssh_authorized_key: sshKey(),
      kernel_arguments: [{ operation: 'append', value: 'console=ttyS0' }],
    });
    expect(env1.status).toBe(201);
    const hostId = '2b1a0f7e-4c4e-4b8e-9a55-0d6a3f1c2b11';
    expect(
      (
        await http('POST', `${h.api}/infra-envs/${env1.json.id}/hosts`, {
          host_id: hostId,
          discovery_agent_version: 'v1',
        })
      ).status,
    ).toBe(201);
    const inv = await http('POST', `${h.api}/infra-envs/${env1.json.id}/hosts/${hostId}/instructions`, {
      step_id: 'inventory-1',
      step_type: 'inventory',
      exit_code: 0,
      output: JSON.stringify(inventory({ hostname: 'w0' })),
    });
    expect(inv.status).toBeLessThan(300);
    const beforeEnv = (await http('GET', `${h.api}/infra-envs/${env1.json.id}`)).json;
    const beforeHost = (await http('GET', `${h.api}/infra-envs/${env1.json.id}/hosts/${hostId}`)).json;
    const beforeEvents = (await http('GET', `${h.api}/events?infra_env_id=${env1.json.id}`)).json;
    await h.close();

    const exported = await run(['export'], { DATA_DIR: source });
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    const dump = parseDump(exported.stdout, SERVICE_DUMP_TABLES);
    expect(dump.tables.infra_envs).toHaveLength(1);
    expect(dump.tables.hosts).toHaveLength(1);
    expect(dump.tables.events.length).toBeGreaterThan(0);

    // 2. those rows in a real PGlite cluster, where bootsmith ≤ 0.1 kept them
    const old = await tempDir();
    const pglite = await pgliteDatabase(path.join(old, 'db'));
    await migrate(pglite, SERVICE_MIGRATIONS);
    await importDump(pglite, SERVICE_DUMP_TABLES, dump);
    await pglite.closeNow();

    // the service on that DATA_DIR says how to move, in /health
    const oldService = await startHarness({ dataDir: old });
    const health = oldService.core.databaseHealth();
    expect(health.engine).toBe('embedded');
    expect(health.notices.join()).toMatch(/PGlite-era.*bootsmith db export --pglite/);
    await oldService.close();

    // 3. export --pglite to a 0600 file, import into a fresh DATA_DIR
    const file = path.join(await tempDir(), 'dump.json');
    const fromPglite = await run(['export', '--pglite', '--out', file], { DATA_DIR: old });
    expect(fromPglite.stderr).toBe('');
    expect(fromPglite.code).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const target = await tempDir();
    const imported = await run(['import', file], { DATA_DIR: target });
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toMatch(
      /infra_envs: 1 added, bmcs: 0 added, image_url_tokens: 0 added, hosts: 1 added, events: \d+ added/,
    );
    // importing again adds no InfraEnv or host twice
    expect((await run(['import', file], { DATA_DIR: target })).stdout).toMatch(
      /infra_envs: 0 added, bmcs: 0 added, image_url_tokens: 0 added, hosts: 0 added/,
    );

    const moved = await startHarness({ dataDir: target });
    try {
      expect((await http('GET', `${moved.api}/infra-envs/${env1.json.id}`)).json).toEqual(beforeEnv);
      expect((await http('GET', `${moved.api}/infra-envs/${env1.json.id}/hosts/${hostId}`)).json).toEqual(beforeHost);
      const events = (await http('GET', `${moved.api}/events?infra_env_id=${env1.json.id}`)).json;
      expect(events.slice(0, beforeEvents.length)).toEqual(beforeEvents);
    } finally {
      await moved.close();
    }
  });

  test('carries the short BMC URLs handed out (their hashes only) into the new database', async () => {
    const s = await startAllInOne({ AUTH_TYPE: 'local' });
    let id: string;
    let token: string;
    let exported: Awaited<ReturnType<typeof run>>;
    try {
      const created = await s.call('POST', `${API}/infra-envs`, {
        name: 'bmc',
        pull_secret: DEMO_PULL_SECRET,
        openshift_version: DEMO_VERSION,
      });
      expect(created.status).toBe(201);
      id = ((await created.json()) as { id: string }).id;
      const minted = (await (await s.call('GET', `${API}/infra-envs/${id}/downloads/image-url`)).json()) as {
        url: string;
      };
      token = /\/bytoken\/([^/]+)\//.exec(minted.url)![1]!;
      exported = await run(['export'], { DATABASE_URL: s.databaseUrl, DATA_DIR: s.dir });
    } finally {
      await s.close();
    }
    expect(exported.code).toBe(0);
    expect(parseDump(exported.stdout, SERVICE_DUMP_TABLES).tables.image_url_tokens.length).toBeGreaterThan(0);
    expect(exported.stdout).not.toContain(token);

    const target = await tempDir();
    const file = path.join(target, 'dump.json');
    await import('node:fs/promises').then((fs) => fs.writeFile(file, exported.stdout));
    const imported = await run(['import', file], { DATA_DIR: target });
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toMatch(/image_url_tokens: [1-9]\d* added/);
    const moved = await startHarness({ dataDir: target });
    try {
      expect(await moved.core.urlTokenResolver.infraEnvOf(token)).toBe(id);
      await expect(moved.core.urlTokenResolver.infraEnvOf('A'.repeat(token.length))).rejects.toThrow();
    } finally {
      await moved.close();
    }
  });

  test('bad input: a file that is not an export is refused with a reason and nothing is written', async () => {
    const target = await tempDir();
    const file = path.join(target, 'not-a-dump.json');
    await import('node:fs/promises').then((fs) => fs.writeFile(file, '{"format":"something-else"}'));
    const r = await run(['import', file], { DATA_DIR: target });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not a bootsmith-db-export document/);
    await expect(readFile(path.join(target, 'postgres', 'password'))).rejects.toThrow();
    expect((await run(['export', '--bogus'], { DATA_DIR: target })).code).toBe(2);
  });
});
