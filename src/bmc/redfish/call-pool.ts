// Redfish calls off the serving thread (issue 33, deliverable 4): each call to a BMC — its
// connection, TLS handshake, request, response and the parsing of the answer — runs in a worker
// thread, so the event loop that serves ISO bytes only posts a message and receives a parsed
// document. Measured before: ~5 ms of CPU per call on the serving loop (TLS included), which put
// the range reads' p99 at 224 ms while 200 jobs ran.
//
//   threads     CALL_WORKER_THREADS, started on the first call, unref'd (they never keep the
//               process alive), each with a capped heap; a BMC's calls always go to the same one
//               (by its address), where its keep-alive sockets and TLS session live
//   slots       MAX_CALLS_IN_FLIGHT calls in the threads at once; the rest wait in line, first come
//               first served (src/semaphore.ts)
//   line        MAX_QUEUED_CALLS; one more fails at once (`busy`). The wait counts as connecting:
//               a call not sent within its connect clock fails as `connect-timeout`
//   deadline    every call in a thread ends by its own clocks (http-call.ts); the main thread
//               gives it connect + TLS + request + CALL_WORKER_GRACE_MS more, then fails it as
//               `request-timeout` (a stuck thread; not expected)
//   a thread that dies (out of heap, a crash) fails its calls as `connection-reset`, naming why;
//               the next call starts a new one
//
// Secrets: the request's headers carry the credentials; they travel only in the call message.
// Does NOT: retry, scrub, or decide what an answer means (transport.ts, session-auth.ts), or know Redfish.
// Next: call-worker-entry.ts, the worker's side.
import { Worker } from 'node:worker_threads';
import { Semaphore, SemaphoreFullError } from '../../semaphore.js';
import type { CallAnswer, CallReply, CallRequest } from './call-worker-protocol.js';
import type { HttpCall } from './http-call.js';
import {
  CALL_WORKER_GRACE_MS,
  CALL_WORKER_HEAP_MB,
  CALL_WORKER_THREADS,
  MAX_CALLS_IN_FLIGHT,
  MAX_QUEUED_CALLS,
} from './limits.js';

const FROM_SOURCES = import.meta.url.endsWith('.ts');
const ENTRY = FROM_SOURCES
  ? new URL('./call-worker-source.mjs', import.meta.url)
  : new URL('./call-worker-entry.js', import.meta.url);
/** Vite's module runner needs more heap than the calls: only when running from sources. */
const SOURCE_RUNNER_HEAP_MB = 192;

export type PooledOutcome = CallAnswer;

export interface CallPoolOptions {
  threads?: number;
  maxInFlight?: number;
  maxQueued?: number;
  heapMb?: number;
}

interface Pending {
  resolve: (outcome: PooledOutcome) => void;
  timer: NodeJS.Timeout;
  thread: Thread;
}

interface Thread {
  worker: Worker;
  calls: Set<number>;
}

export interface CallPoolStats {
  threads: number;
  inFlight: number;
  queued: number;
  /** Calls sent to a thread since the pool was made. */
  calls: number;
}

export class CallPool {
  private readonly threads: (Thread | undefined)[];
  private readonly pending = new Map<number, Pending>();
  /** MAX_CALLS_IN_FLIGHT slots, MAX_QUEUED_CALLS waiting at most. */
  private readonly slots: Semaphore;
  private nextId = 1;
  private sent = 0;
  private readonly heapMb: number;

  constructor(options: CallPoolOptions = {}) {
    this.threads = new Array<Thread | undefined>(Math.max(1, options.threads ?? CALL_WORKER_THREADS)).fill(undefined);
    this.slots = new Semaphore(options.maxInFlight ?? MAX_CALLS_IN_FLIGHT, options.maxQueued ?? MAX_QUEUED_CALLS);
    this.heapMb = (options.heapMb ?? CALL_WORKER_HEAP_MB) + (FROM_SOURCES ? SOURCE_RUNNER_HEAP_MB : 0);
  }

  stats(): CallPoolStats {
    return {
      threads: this.threads.filter((t) => t !== undefined).length,
      inFlight: this.slots.active,
      queued: this.slots.waiting,
      calls: this.sent,
    };
  }

  /** One call in a worker thread: its outcome, never a throw. */
  async call(call: HttpCall & { keepAlive: boolean }): Promise<PooledOutcome> {
    const connectMs = call.timeouts.connectMs;
    let release: () => void;
    try {
      release = await this.slots.acquire(AbortSignal.timeout(connectMs));
    } catch (err) {
      const under = `${this.slots.active} Redfish calls are under way`;
      return err instanceof SemaphoreFullError
        ? { ok: false, failure: 'busy', detail: `${under} and ${this.slots.waiting} wait; not sent` }
        : {
            ok: false,
            failure: 'connect-timeout',
            detail: `not sent within ${connectMs} ms: ${under} (the wait counts as connecting)`,
          };
    }
    try {
      return await this.send(call);
    } finally {
      release();
    }
  }

  /** Ends the threads (tests, service shutdown); calls in them fail as `connection-reset`. */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t?.worker.terminate()));
  }

  private send(call: HttpCall & { keepAlive: boolean }): Promise<PooledOutcome> {
    const thread = this.threadFor(call.url.origin);
    const id = this.nextId++;
    this.sent++;
    const request: CallRequest = {
      id,
      method: call.method,
      url: call.url.href,
      headers: call.headers,
      tls: {
        ...(call.tls.ca !== undefined ? { ca: call.tls.ca } : {}),
        rejectUnauthorized: call.tls.rejectUnauthorized,
      },
      timeouts: call.timeouts,
      maxBytes: call.maxBytes,
      keepAlive: call.keepAlive,
    };
    const transfer: ArrayBuffer[] = [];
    if (call.body) {
      const body = new Uint8Array(call.body);
      request.body = body;
      transfer.push(body.buffer as ArrayBuffer);
    }
    const deadlineMs = call.timeouts.connectMs + call.timeouts.tlsMs + call.timeouts.requestMs + CALL_WORKER_GRACE_MS;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.settle(id, {
          ok: false,
          failure: 'request-timeout',
          detail: `the call's worker gave no outcome within ${deadlineMs} ms`,
        });
      }, deadlineMs);
      this.pending.set(id, { resolve, timer, thread });
      thread.calls.add(id);
      thread.worker.postMessage(request, transfer);
    });
  }

  private settle(id: number, outcome: PooledOutcome): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.thread.calls.delete(id);
    clearTimeout(p.timer);
    p.resolve(outcome);
  }

  private threadFor(origin: string): Thread {
    let hash = 0;
    for (let i = 0; i < origin.length; i++) hash = (hash * 31 + origin.charCodeAt(i)) >>> 0;
    const index = hash % this.threads.length;
    let thread = this.threads[index];
    if (!thread) {
      thread = this.start(index);
      this.threads[index] = thread;
    }
    return thread;
  }

  private start(index: number): Thread {
    const worker = new Worker(ENTRY, {
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    const thread: Thread = { worker, calls: new Set() };
    worker.on('message', (reply: CallReply) => {
      this.settle(reply.id, reply);
    });
    const died = (why: string): void => {
      if (this.threads[index] === thread) this.threads[index] = undefined;
      for (const id of [...thread.calls])
        this.settle(id, { ok: false, failure: 'connection-reset', detail: `the Redfish call worker ${why}` });
    };
    worker.on('error', (err: Error & { code?: string }) =>
      died(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `ran out of its ${this.heapMb} MB heap` : `crashed: ${err.message}`,
      ),
    );
    worker.on('exit', (code) => died(`exited (code ${code})`));
    return thread;
  }
}

let shared: CallPool | undefined;

/** The process's pool, made on first use. */
export function sharedCallPool(): CallPool {
  shared ??= new CallPool();
  return shared;
}

/** One attempt of a Redfish call: the request in, the status, headers and parsed body (or the failure) out. */
export type RawCaller = (call: HttpCall) => Promise<PooledOutcome>;

/**
 * The default caller of every Redfish call (transport.ts) and session call (session-auth.ts): the
 * process's pool, keep-alive per BMC.
 */
export const offThreadCaller: RawCaller = (call) => sharedCallPool().call({ ...call, keepAlive: true });
