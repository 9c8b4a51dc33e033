// The error response of the representation server (and of every listener that answers a
// refusal before any route runs).
//
// Does: write `{ "code": <status>, "message": "..." }` with the status, headers and message that
// src/error-status.ts decides for a thrown error; destroy the connection instead when headers
// are already out.
// Does NOT: decide statuses itself (src/error-status.ts does, for the assisted API too), log
// anything (the image face's src/http/face/error-mapping.ts decides what to log), or render the
// assisted API's bodies (src/platform/api/error-handler.ts). Never includes secrets or stack traces.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorStatus } from '../../error-status.js';

/**
 * Writes the image side's error response: status and extra headers for `err`, body
 * `{ "code": <status>, "message": "..." }` (none for HEAD). When headers are already out,
 * the connection is destroyed instead, so a client never mistakes a short body for a whole one.
 */
export function writeErrorResponse(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const name of res.getHeaderNames()) res.removeHeader(name); // drop anything half-set
  const { status, headers, message } = errorStatus(err);
  const body = JSON.stringify({ code: status, message });
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
  });
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}
