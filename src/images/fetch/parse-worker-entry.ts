// The body of the parse worker (src/images/fetch/parse-worker.ts): parses one live ISO with
// src/iso/live-layout.ts inside a worker thread and posts back the manifest or the error.
//
// Does: read `workerData` ({ path, limits }), post exactly one message, then let the thread end.
// Does NOT: enforce the heap cap or the wall-clock timeout (the host does), or touch the cache.
import { parentPort, workerData } from 'node:worker_threads';
import { BootsmithError, FormatError } from '../../errors.js';
import { parseLiveIso } from '../../iso/live-layout.js';
import { BudgetExceededError, type ParseBudgetLimits } from '../../iso/parse-budget.js';
import type { ParseWorkerReply } from './parse-worker-protocol.js';

const { path, limits } = workerData as { path: string; limits: Partial<ParseBudgetLimits> };

async function run(): Promise<ParseWorkerReply> {
  try {
    return { ok: true, manifest: await parseLiveIso(path, limits) };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return {
      ok: false,
      error: {
        format: err instanceof FormatError,
        ...(err instanceof BudgetExceededError ? { budget: { name: err.budget, detail: err.detail } } : {}),
        message: e.message,
        // only numbers and strings: the context of parser errors holds paths, sizes and offsets
        context: err instanceof BootsmithError ? plainContext(err.context) : {},
      },
    };
  }
}

function plainContext(context: Readonly<Record<string, unknown>>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(context)) if (typeof v === 'string' || typeof v === 'number') out[k] = v;
  return out;
}

parentPort?.postMessage(await run());
