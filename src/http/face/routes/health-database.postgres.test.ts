// /health of the all-in-one service reports its storage: the embedded PostgreSQL server and
// its state, and, on a DATA_DIR from the PGlite era (a real PGlite cluster in DATA_DIR/db),
// how to move it; the service says the same once in its log.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { loadConfig } from '../../../config.js';
import { createLogger } from '../../../logger.js';
import { startService } from '../../../service.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

test('/health names the embedded server and tells how to move a PGlite-era DATA_DIR', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-health-'));
  dirs.push(dir);
  const { PGlite } = await import('@electric-sql/pglite');
  await (await PGlite.create(path.join(dir, 'db'))).close();

  const logs: string[] = [];
  const config = loadConfig({ LISTEN_PORT: '0', LISTEN_ADDRESS: '127.0.0.1', DATA_DIR: dir });
  const service = await startService(config, createLogger('info', { write: (line: string) => void logs.push(line) }), {
    defaultMetrics: false,
  });
  try {
    await service.imagesLoaded;
    const health = (await (await fetch(`${service.url}/health`)).json()) as {
      database: { engine: string; state: string; notices: string[] };
    };
    expect(health.database.engine).toBe('embedded');
    expect(health.database.state).toBe('running');
    expect(health.database.notices).toHaveLength(1);
    expect(health.database.notices[0]).toContain(path.join(dir, 'db'));
    expect(health.database.notices[0]).toMatch(
      /bootsmith db export --pglite --out dump\.json && bootsmith db import dump\.json/,
    );
    expect(logs.filter((l) => l.includes('PGlite-era'))).toHaveLength(1);
  } finally {
    await service.close();
  }
});
