// Parsing one base image off the main thread: src/iso/live-layout.ts runs in a worker thread with
// a capped heap and a wall-clock timeout, so a hostile or broken ISO can at worst fail its own
// image — it can never exhaust the service's heap or block its event loop (issue 15, finding 2).
//
// Does: start one worker per parse (start-up is milliseconds next to a download), turn its reply
// into the manifest or the parser's FormatError / BudgetExceededError, and turn a worker that runs
// out of heap, crashes or overruns its time into an ImageLoadError of class `never` naming why.
// Does NOT: hash, rename or record anything (src/images/fetch/verify-iso.ts does), or retry.
//
// Compiled builds run parse-worker-entry.js beside this file; from TypeScript sources (tests)
// the worker starts parse-worker-source.mjs, which loads the .ts entry through Vite.
import { Worker } from 'node:worker_threads';
import { FormatError, describeError } from '../../errors.js';
import type { LiveManifest } from '../../iso/manifest.js';
import { BudgetExceededError, PARSE_TIME_BUDGET_MS, type ParseBudgetLimits } from '../../iso/parse-budget.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import type { ParseWorkerReply } from './parse-worker-protocol.js';

/** Old-generation heap of one parse worker. The parse budgets keep a parse under ~100 MB. */
export const PARSE_WORKER_HEAP_MB = 256;
/** A parse worker is stopped after this long: the parser's own time budget plus start-up slack. */
export const PARSE_WORKER_TIMEOUT_MS = PARSE_TIME_BUDGET_MS + 40_000;

export interface ParseWorkerOptions {
  heapMb?: number;
  timeoutMs?: number;
  limits?: Partial<ParseBudgetLimits>;
  signal?: AbortSignal;
}

const FROM_SOURCES = import.meta.url.endsWith('.ts');
const ENTRY = FROM_SOURCES
  ? new URL('./parse-worker-source.mjs', import.meta.url)
  : new URL('./parse-worker-entry.js', import.meta.url);
/** Vite's module runner needs more heap than the parser: only when running from sources. */
const SOURCE_RUNNER_HEAP_MB = 192;

/** Parses the live ISO at `path` in a worker; FormatError for bad bytes, ImageLoadError when the worker dies. */
export function parseLiveIsoInWorker(path: string, options: ParseWorkerOptions = {}): Promise<LiveManifest> {
  const heapMb = (options.heapMb ?? PARSE_WORKER_HEAP_MB) + (FROM_SOURCES ? SOURCE_RUNNER_HEAP_MB : 0);
  const timeoutMs = options.timeoutMs ?? PARSE_WORKER_TIMEOUT_MS;
  return new Promise<LiveManifest>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    const worker = new Worker(ENTRY, {
      workerData: { path, limits: options.limits ?? {} },
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const finish = (outcome: { manifest: LiveManifest } | { error: unknown }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if ('manifest' in outcome) resolve(outcome.manifest);
      else reject(outcome.error);
    };
    const died = (why: string, context: Record<string, unknown> = {}) =>
      finish({ error: new ImageLoadError('format', `parsing ${path}: ${why}`, 'never', { path, ...context }) });
    const timer = setTimeout(() => died(`the parser did not finish within ${timeoutMs} ms`, { timeoutMs }), timeoutMs);
    const onAbort = () => finish({ error: options.signal?.reason });
    options.signal?.addEventListener('abort', onAbort, { once: true });

    worker.on('message', (reply: ParseWorkerReply) => {
      if (reply.ok) finish({ manifest: reply.manifest });
      else finish({ error: errorOf(reply.error) });
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') died(`the parser ran out of its ${heapMb} MB heap`, { heapMb });
      else died(`the parser crashed: ${describeError(err)}`);
    });
    worker.on('exit', (code) => died(`the parser exited (code ${code}) without an answer`, { exitCode: code }));
  });
}

function errorOf(e: Extract<ParseWorkerReply, { ok: false }>['error']): Error {
  const { path, ...rest } = e.context;
  if (e.budget !== undefined) return new BudgetExceededError(e.budget.name, String(path ?? ''), e.budget.detail, rest);
  if (e.format) return new FormatError(e.message, e.context);
  return new ImageLoadError('internal', e.message, 'slow', e.context);
}
