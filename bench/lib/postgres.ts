// A throwaway PostgreSQL database for the heartbeat workload on PostgreSQL: either the URL
// the caller gave (--database-url, used as is), or a database and role created for this run
// in the machine's first Debian cluster, which is started if it was down and then stopped
// again afterwards. Everything created here is dropped by cleanup().
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { run } from './proc.js';

export interface PgDatabase {
  url: string;
  note: string;
  cleanup(): Promise<void>;
}

const ROLE = 'bootsmith_bench';

async function psql(port: string, sql: string): Promise<void> {
  await run('runuser', [
    '-u',
    'postgres',
    '--',
    'psql',
    '-p',
    port,
    '-X',
    '-q',
    '-v',
    'ON_ERROR_STOP=1',
    '-d',
    'postgres',
    '-c',
    sql,
  ]);
}

export async function benchDatabase(
  given: string | undefined,
  log: (l: string) => void,
): Promise<PgDatabase | { skipped: string }> {
  if (given) return { url: given, note: 'given with --database-url', cleanup: async () => undefined };
  if (!existsSync('/usr/bin/pg_lsclusters'))
    return { skipped: 'PostgreSQL is not installed (Debian package postgresql); pass --database-url' };
  if (process.getuid?.() !== 0) return { skipped: 'creating a throwaway database needs root; pass --database-url' };
  const list = await run('pg_lsclusters', ['--no-header']);
  const [version, cluster, port, status] = (list.stdout.trim().split('\n')[0] ?? '').trim().split(/\s+/);
  if (!version || !cluster || !port) return { skipped: 'no PostgreSQL cluster (pg_lsclusters is empty)' };
  let startedHere = false;
  if (status !== 'online') {
    log(`starting PostgreSQL cluster ${version}/${cluster}`);
    await run('pg_ctlcluster', [version, cluster, 'start']);
    startedHere = true;
  }
  const password = randomBytes(12).toString('hex');
  const database = `bootsmith_bench_${process.pid}_${Date.now()}`;
  try {
    await psql(
      port,
      `DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${ROLE}') THEN CREATE ROLE ${ROLE} LOGIN PASSWORD '${password}';
      ELSE ALTER ROLE ${ROLE} LOGIN PASSWORD '${password}'; END IF; END $$;`,
    );
    await psql(port, `CREATE DATABASE ${database} OWNER ${ROLE}`);
  } catch (err) {
    if (startedHere) await run('pg_ctlcluster', [version, cluster, 'stop'], { allowFail: true });
    throw err;
  }
  return {
    url: `postgres://${ROLE}:${password}@127.0.0.1:${port}/${database}`,
    note: `PostgreSQL ${version}/${cluster} on port ${port}, throwaway database${startedHere ? ', cluster started for this run' : ''}`,
    cleanup: async () => {
      await psql(port, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
      await psql(port, `DROP ROLE IF EXISTS ${ROLE}`).catch(() => undefined);
      if (startedHere) {
        log(`stopping PostgreSQL cluster ${version}/${cluster}`);
        await run('pg_ctlcluster', [version, cluster, 'stop'], { allowFail: true });
      }
    },
  };
}
