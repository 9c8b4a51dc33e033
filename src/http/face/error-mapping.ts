// The image face's error answers: the representation server's error response
// (src/http/representation/error-response.ts) plus the face's logging rule, for the hot route and
// as express's error handler.
//
// Does: answer a thrown error with writeErrorResponse and hand only unexpected (untyped) failures
// to the caller's log function.
// Does NOT: decide statuses (src/error-status.ts) or write bodies itself. Never logs secrets: the
// caller's log function redacts (src/redact.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { errorStatus } from '../../error-status.js';
import { writeErrorResponse } from '../representation/error-response.js';

/** Answers `err` for the image side; `onInternal` hears only unexpected (untyped) failures. */
export function answerImageError(
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  onInternal: (err: unknown, req: IncomingMessage) => void,
): void {
  const { status, typed } = errorStatus(err);
  if (status >= 500 && !typed) onInternal(err, req);
  writeErrorResponse(req, res, err);
}

/** Express error handler for the image side; logs only unexpected (untyped) failures. */
export function imageErrorHandler(onInternal: (err: unknown, req: IncomingMessage) => void) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void =>
    answerImageError(req, res, err, onInternal);
}
