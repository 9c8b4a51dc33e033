// The start-up file-descriptor check for MAX_CONCURRENT_REQUESTS (request-cap-budget.ts): the
// rule itself, and the one warning a real service start logs (the image role, in process).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../logger.js';
import { startService } from '../../service.js';
import { FD_RESERVE_MIN, readOpenFileLimit } from '../transport/open-file-limit.js';
import { fdBudgetProblem, openFilesNeeded } from './request-cap-budget.js';

describe('fdBudgetProblem', () => {
  it('needs one socket per stream plus the file reserve', () => {
    expect(openFilesNeeded(400)).toBe(400 + FD_RESERVE_MIN);
    expect(fdBudgetProblem(400 + FD_RESERVE_MIN, 10_000, 400)).toBeUndefined();
    expect(fdBudgetProblem(undefined, 10_000, 400)).toBeUndefined();
  });

  it('names the open-file limit and what to raise when it is short', () => {
    const problem = fdBudgetProblem(1024, 768, 1000);
    expect(problem).toContain('open-file limit (1024)');
    expect(problem).toContain(String(1000 + FD_RESERVE_MIN));
    expect(problem).toContain('ulimit -n');
    expect(problem).toContain('MAX_CONCURRENT_REQUESTS');
  });

  it('names HTTP_MAX_CONNECTIONS when the connection cap is below the request cap', () => {
    const problem = fdBudgetProblem(1_000_000, 100, 400);
    expect(problem).toContain('connection cap (100)');
    expect(problem).toContain('HTTP_MAX_CONNECTIONS');
  });
});

describe('start-up warning', () => {
  async function startupLogs(env: Record<string, string>): Promise<Array<Record<string, unknown>>> {
    const dir = await mkdtemp(path.join(tmpdir(), 'fd-budget-'));
    const lines: string[] = [];
    const config = loadConfig(
      {
        LISTEN_PORT: '0',
        LISTEN_ADDRESS: '127.0.0.1',
        DATA_DIR: dir,
        ASSISTED_SERVICE_URL: 'http://127.0.0.1:9', // never called: nothing is downloaded here
        ...env,
      },
      ['--role', 'image'],
    );
    const service = await startService(config, createLogger('info', { write: (l: string) => lines.push(l) }), {
      defaultMetrics: false,
    });
    await service.close();
    await rm(dir, { recursive: true, force: true });
    return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  const budgetWarnings = (logs: Array<Record<string, unknown>>) =>
    logs.filter((l) => String(l.msg).includes('file-descriptor budget'));

  it('warns once when the open-file limit is below what the cap needs', async (ctx) => {
    const limit = await readOpenFileLimit();
    // without /proc, or with no hard limit, no cap can exceed the limit the service raises itself to
    if (!limit || !Number.isFinite(limit.hard) || limit.hard >= 1_000_000) ctx.skip();
    const over = String(limit!.hard + 1);
    const warnings = budgetWarnings(await startupLogs({ MAX_CONCURRENT_REQUESTS: over }));
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.problem)).toContain('ulimit -n');
    expect(budgetWarnings(await startupLogs({}))).toHaveLength(0);
  });

  it('warns when HTTP_MAX_CONNECTIONS is below the cap', async () => {
    const warnings = budgetWarnings(await startupLogs({ HTTP_MAX_CONNECTIONS: '50', MAX_CONCURRENT_REQUESTS: '60' }));
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.problem)).toContain('HTTP_MAX_CONNECTIONS');
  });
});
