// Merging a large ignition_config_override off the main thread: the parse, validation, merge and
// serialization of an override of up to MAX_OVERRIDE_BYTES run in a worker thread with a capped
// heap and a wall-clock timeout, so no override, however built, holds the event loop (issue 23,
// finding 3: an 80k-file override stalled /live for 27 s).
//
// Does: start one worker per render (start-up is milliseconds next to a render that is then
// cached per content, render-cache.ts), at most MAX_RENDER_WORKERS at once with at most
// MAX_QUEUED_RENDERS waiting (beyond: 503 with Retry-After), and turn the reply into the bytes or
// the same typed error the main thread would have thrown (400, 413). A worker that runs out of
// heap, crashes or overruns its time is an internal error naming why; this process carries on.
// Does NOT: decide which renders need a worker (discovery.ts does, by size) or cache anything.
//
// Compiled builds run render-worker-entry.js beside this file; from TypeScript sources (tests)
// the worker starts render-worker-source.mjs, which loads the .ts entry through Vite.
import { Worker } from 'node:worker_threads';
import {
  BadRequestError,
  BootsmithError,
  PayloadTooLargeError,
  UnavailableError,
  describeError,
} from '../../errors.js';
import type { RenderWorkerReply, RenderWorkerRequest } from './render-worker-protocol.js';

/** Old-generation heap of one render worker: a 1 MiB override parses into ~30 MB of objects. */
export const RENDER_WORKER_HEAP_MB = 128;
/** A render is stopped after this long: a 1 MiB override renders in well under a second, loaded. */
export const RENDER_WORKER_TIMEOUT_MS = 30_000;
/** Renders running at once: each holds a thread and up to RENDER_WORKER_HEAP_MB. */
export const MAX_RENDER_WORKERS = 2;
/** Renders waiting for a worker; beyond this a request gets 503 and retries. */
export const MAX_QUEUED_RENDERS = 32;
const RETRY_AFTER_SECONDS = 2;

const FROM_SOURCES = import.meta.url.endsWith('.ts');
const ENTRY = FROM_SOURCES
  ? new URL('./render-worker-source.mjs', import.meta.url)
  : new URL('./render-worker-entry.js', import.meta.url);
/** Vite's module runner needs more heap than the render: only when running from sources. */
const SOURCE_RUNNER_HEAP_MB = 192;

export interface RenderWorkerOptions {
  heapMb?: number;
  timeoutMs?: number;
}

let running = 0;
const waiting: (() => void)[] = [];

async function slot(): Promise<() => void> {
  if (running >= MAX_RENDER_WORKERS) {
    if (waiting.length >= MAX_QUEUED_RENDERS)
      throw new UnavailableError(
        `${MAX_RENDER_WORKERS + MAX_QUEUED_RENDERS} large discovery Ignition renders are already under way; retry shortly`,
        RETRY_AFTER_SECONDS,
      );
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  return () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
}

/** Renders base + override in a worker; the bytes, or the error the main thread would have thrown. */
export async function renderOverrideInWorker(
  request: RenderWorkerRequest,
  options: RenderWorkerOptions = {},
): Promise<Buffer> {
  const release = await slot();
  try {
    return await runWorker(request, options);
  } finally {
    release();
  }
}

function runWorker(request: RenderWorkerRequest, options: RenderWorkerOptions): Promise<Buffer> {
  const heapMb = (options.heapMb ?? RENDER_WORKER_HEAP_MB) + (FROM_SOURCES ? SOURCE_RUNNER_HEAP_MB : 0);
  const timeoutMs = options.timeoutMs ?? RENDER_WORKER_TIMEOUT_MS;
  return new Promise<Buffer>((resolve, reject) => {
    const worker = new Worker(ENTRY, {
      workerData: request,
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const finish = (outcome: { bytes: Buffer } | { error: unknown }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if ('bytes' in outcome) resolve(outcome.bytes);
      else reject(outcome.error);
    };
    const died = (why: string) =>
      finish({ error: new BootsmithError('internal', `rendering the discovery Ignition: ${why}`) });
    const timer = setTimeout(() => died(`the render did not finish within ${timeoutMs} ms`), timeoutMs);
    worker.on('message', (reply: RenderWorkerReply) => {
      if (reply.ok) finish({ bytes: Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength) });
      else finish({ error: errorOf(reply.error) });
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') died(`the render ran out of its ${heapMb} MB heap`);
      else died(`the render crashed: ${describeError(err)}`);
    });
    worker.on('exit', (code) => died(`the render exited (code ${code}) without an answer`));
  });
}

function errorOf(e: Extract<RenderWorkerReply, { ok: false }>['error']): Error {
  if (e.kind === 'payload-too-large' && e.payloadSize !== undefined && e.capacity !== undefined) {
    const { field, ...rest } = e.context;
    return new PayloadTooLargeError(String(field ?? 'ignition_config_override'), e.payloadSize, e.capacity, {
      field: field ?? 'ignition_config_override',
      ...rest,
    });
  }
  if (e.kind === 'bad-request') return new BadRequestError(e.message, e.context);
  return new BootsmithError('internal', e.message, e.context);
}
