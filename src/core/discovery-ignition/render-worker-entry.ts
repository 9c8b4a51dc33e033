// The body of a render worker (render-worker.ts): merges one ignition_config_override into its
// discovery config inside a worker thread, with the same code as the main thread
// (discovery.ts mergeOverride), and posts back the JSON bytes or the refusal.
//
// Does: read `workerData` (RenderWorkerRequest), post exactly one message, then let the thread end.
// Does NOT: bound its time or heap (the host does) or cache anything (render-cache.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { BootsmithError, PayloadTooLargeError } from '../../errors.js';
import { mergeOverride, renderIgnition } from './discovery.js';
import type { RenderWorkerReply, RenderWorkerRequest } from './render-worker-protocol.js';

const request = workerData as RenderWorkerRequest;

function run(): RenderWorkerReply {
  try {
    // a copy that owns its ArrayBuffer (a small Buffer shares Node's pool), so it can be transferred
    const bytes = new Uint8Array(renderIgnition(mergeOverride(request.base, request.overrideText)));
    return { ok: true, bytes };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return {
      ok: false,
      error: {
        kind: err instanceof BootsmithError ? err.kind : 'internal',
        message: e.message,
        context: err instanceof BootsmithError ? plainContext(err.context) : {},
        ...(err instanceof PayloadTooLargeError ? { payloadSize: err.payloadSize, capacity: err.capacity } : {}),
      },
    };
  }
}

function plainContext(context: Readonly<Record<string, unknown>>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(context)) if (typeof v === 'string' || typeof v === 'number') out[k] = v;
  return out;
}

const reply = run();
parentPort?.postMessage(reply, reply.ok ? [reply.bytes.buffer as ArrayBuffer] : []);
