// The one place where errors become HTTP statuses.
//
// Routes throw typed errors (src/errors.ts); this module decides the status code,
// the extra headers (Retry-After, Content-Range) and the JSON body of the image side.
// The assisted API (src/core) renders its own upstream-shaped bodies but takes the
// status from statusForError() here. It never includes secrets or stack traces.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { BootsmithError, RangeNotSatisfiableError, UnavailableError, UpstreamError } from '../errors.js';

const STATUS_BY_KIND: Record<BootsmithError['kind'], number> = {
  'bad-request': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'payload-too-large': 413,
  'range-not-satisfiable': 416,
  unavailable: 503,
  upstream: 502,
  format: 422,
  internal: 500,
};

export function statusForError(err: unknown): number {
  if (err instanceof UpstreamError && err.status !== undefined && [401, 403, 404].includes(err.status)) {
    return err.status;
  }
  if (err instanceof BootsmithError) return STATUS_BY_KIND[err.kind];
  if (isBodyParserError(err)) return err.status;
  return 500;
}

/** Headers that must accompany the status for this error. */
export function headersForError(err: unknown): Record<string, string> {
  if (err instanceof RangeNotSatisfiableError) return { 'Content-Range': `bytes */${err.size}` };
  if (err instanceof UnavailableError) {
    return { 'Retry-After': String(err.retryAfterSeconds), 'Cache-Control': 'no-store' };
  }
  return {};
}

/** The message a client may see: ours for typed errors, a generic one otherwise. */
export function publicMessage(err: unknown): string {
  if (err instanceof BootsmithError) return err.message;
  if (isBodyParserError(err)) return err.message;
  return 'internal server error';
}

function isBodyParserError(err: unknown): err is { status: number; message: string; expose: true } {
  return (
    typeof err === 'object' && err !== null && (err as { expose?: unknown }).expose === true &&
    typeof (err as { status?: unknown }).status === 'number'
  );
}

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
  const status = statusForError(err);
  const body = JSON.stringify({ code: status, message: publicMessage(err) });
  res.writeHead(status, {
    ...headersForError(err),
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
  });
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/** Express error handler for the image side; logs only unexpected (untyped) failures. */
export function imageErrorHandler(onInternal: (err: unknown, req: Request) => void) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (statusForError(err) >= 500 && !(err instanceof BootsmithError)) onInternal(err, req);
    writeErrorResponse(req, res, err);
  };
}
