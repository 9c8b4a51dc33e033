// The body of a Redfish call worker (call-pool.ts starts it): for each call message, one HTTP(S)
// request to the BMC with its clocks and size cap (http-call.ts, keep-alive per BMC in this
// thread), the answer parsed here (parse-answer.ts), and one reply with the body's bytes
// transferred. Calls run side by side; the thread lives as long as the pool keeps it.
//
// Does NOT: retry, scrub or throw (transport.ts does, on the main thread), or log anything: the
// requests carry credentials, and nothing of a request leaves this file but its outcome.
import { parentPort } from 'node:worker_threads';
import type { AnswerHeaders, CallReply, CallRequest } from './call-worker-protocol.js';
import { httpCall } from './http-call.js';
import { parseAnswer } from './parse-answer.js';

const HEADERS: readonly (keyof AnswerHeaders)[] = ['etag', 'allow', 'location', 'x-auth-token', 'retry-after'];

async function run(request: CallRequest): Promise<CallReply> {
  const outcome = await httpCall({
    method: request.method,
    url: new URL(request.url),
    headers: request.headers,
    ...(request.body
      ? { body: Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength) }
      : {}),
    tls: { ca: request.tls.ca, rejectUnauthorized: request.tls.rejectUnauthorized },
    timeouts: request.timeouts,
    maxBytes: request.maxBytes,
    keepAlive: request.keepAlive,
  });
  if (!outcome.ok) return { id: request.id, ok: false, failure: outcome.failure, detail: outcome.detail };
  const headers: AnswerHeaders = {};
  for (const name of HEADERS) {
    const v = outcome.headers[name];
    const text = typeof v === 'string' ? v : Array.isArray(v) ? v[0] : undefined;
    if (text !== undefined) headers[name] = text;
  }
  // a copy that owns its ArrayBuffer (a small Buffer shares Node's pool), so it can be transferred
  const body = new Uint8Array(outcome.body);
  return {
    id: request.id,
    ok: true,
    status: outcome.status,
    headers,
    body,
    answer: parseAnswer(outcome.status, body),
  };
}

parentPort?.on('message', (request: CallRequest) => {
  void run(request).then(
    (reply) => parentPort?.postMessage(reply, reply.ok ? [reply.body.buffer as ArrayBuffer] : []),
    (err: unknown) =>
      parentPort?.postMessage({
        id: request.id,
        ok: false,
        failure: 'connection-reset',
        detail: `the call failed in its worker: ${err instanceof Error ? err.message : String(err)}`,
      } satisfies CallReply),
  );
});
