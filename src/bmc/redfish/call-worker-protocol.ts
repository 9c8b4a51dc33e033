// The messages between the main thread and a Redfish call worker (call-pool.ts ⇄
// call-worker-entry.ts): a call goes out as plain data (the URL as text, the body as bytes), its
// outcome comes back with the body's bytes transferred and its document already parsed.
// The headers of a request carry the BMC's credentials (Authorization, X-Auth-Token): they travel
// only inside these messages (never workerData, argv or the environment) and nothing logs them.
// Does NOT: do anything (types only).
import type { RedfishFailure } from './errors.js';
import type { CallTimeouts } from './http-call.js';
import type { ParsedAnswer } from './parse-answer.js';

export interface CallRequest {
  id: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  tls: { ca?: string; rejectUnauthorized: boolean };
  timeouts: CallTimeouts;
  maxBytes: number;
  keepAlive: boolean;
}

/** Response headers the transport reads, as text (the rest of a BMC's headers stays in the worker). */
export interface AnswerHeaders {
  etag?: string;
  allow?: string;
  location?: string;
  'x-auth-token'?: string;
  'retry-after'?: string;
}

/** What one attempt came to: the answer with its parsed body, or the failure. */
export type CallAnswer =
  | {
      ok: true;
      status: number;
      headers: AnswerHeaders;
      /** The body as received (at most maxBytes), its buffer transferred. */
      body: Uint8Array;
      answer: ParsedAnswer;
    }
  | { ok: false; failure: RedfishFailure; detail: string };

export type CallReply = CallAnswer & { id: number };
