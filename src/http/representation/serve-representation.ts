// The one place where a Representation becomes an HTTP response: conditional requests,
// byte ranges (single and multipart/byteranges), HEAD, and streaming with backpressure.
//
// Every artifact route (spliced ISO, PXE initrd, boot artifacts, small text files) ends in
// serveRepresentation(). It answers GET and HEAD only; other methods get 405. Headers are
// written with one writeHead() call and always carry an exact Content-Length, so responses
// are never chunked. It does not authenticate, choose representations, compress, or log:
// callers do that, and observe streaming and failures through the optional hooks.
//
// This file only composes the parts: ./response-plan.ts decides status, headers and body
// segments (with preconditions.ts and content-disposition.ts), ./body-pump.ts writes the body
// (stream-copier.ts, positional-copier.ts, buffer-pool.ts).
//
// It never rejects, so callers may fire and forget it. Errors raised before the headers go
// out (an unsatisfiable Range, rep.stream() throwing) are answered here with the status,
// headers and `{ code, message }` body of ./error-response.ts, exactly as the image face's
// imageErrorHandler (src/http/face/error-mapping.ts) would. A source failing after the headers
// went out destroys the connection: the client sees a truncated response, never a clean short one.
//
// Room rule (src/http/representation/, this file is its entry): a generic RFC 9110 representation
// server. Its modules know no route, no InfraEnv, no image and no listener; they import only
// each other, node, and the leaves src/errors.ts and src/error-status.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RangeNotSatisfiableError } from '../../errors.js';
import { pumpBody, type ServeHooks } from './body-pump.js';
import { writeErrorResponse } from './error-response.js';
import type { Representation } from './representation.js';
import { planResponse } from './response-plan.js';

export type { ServeHooks, StreamOutcome } from './body-pump.js';

const DONE: Promise<void> = Promise.resolve();

/**
 * Answers a GET or HEAD for `rep` (RFC 9110 §13.2.2 conditionals, then Range/If-Range).
 *
 * The promise settles once the response is complete, was answered without a body (HEAD,
 * 304, 412, 416, an empty representation) or the connection is gone; it never rejects.
 * HEAD gets exactly the headers of the equivalent GET (206 and Content-Range included, like
 * nginx and Apache httpd) and never calls rep.stream().
 */
export function serveRepresentation(
  req: IncomingMessage,
  res: ServerResponse,
  rep: Representation,
  hooks?: ServeHooks,
): Promise<void> {
  try {
    const plan = planResponse(req.method, req.headers, rep);
    hooks?.onPlan?.(plan);
    if (plan.error !== undefined) {
      writeErrorResponse(req, res, plan.error);
      return DONE;
    }
    const first = plan.segments[0];
    if (first === undefined) {
      res.writeHead(plan.status, plan.headers);
      res.end();
      return DONE;
    }
    if (res.destroyed) return DONE; // the client left while the representation was being prepared

    // Open the first source before writing anything, so that a synchronous failure can still
    // be answered with a proper error response.
    const source = rep.readInto ? undefined : rep.stream(first.start, first.end);
    try {
      res.writeHead(plan.status, plan.headers);
    } catch (err) {
      source?.destroy();
      throw err;
    }
    hooks?.onStreamStart?.();
    return pumpBody(res, rep, plan.segments, plan.trailer, source, hooks);
  } catch (err) {
    if (!(err instanceof RangeNotSatisfiableError)) hooks?.onError?.(err);
    writeErrorResponse(req, res, err);
    return DONE;
  }
}
