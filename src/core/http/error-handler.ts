// Renders errors from the assisted API in upstream's body shapes.
//
// The status comes from src/http/error-mapping.ts (statusForError). 401/403 are
// `{code, message}` (infra_error); everything else `{kind:"Error", id, href, code, reason}`.
// Internal errors are logged without request bodies and answered with a generic reason;
// database connection failures are 503 with Retry-After.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { BootsmithError } from '../../errors.js';
import { headersForError, publicMessage, statusForError } from '../../http/error-mapping.js';
import { redactedRequestTarget } from '../../http/redact.js';
import { DatabaseUnavailableError, isConnectionError } from '../db/sql.js';

export function errorBody(status: number, message: string): Record<string, unknown> {
  if (status === 401 || status === 403) return { code: status, message };
  return { kind: 'Error', id: status, href: '', code: String(status), reason: message };
}

export function sendError(res: Response, status: number, message: string): void {
  res.status(status).json(errorBody(status, message));
}

export function assistedErrorHandler(logger: Logger) {
  return (thrown: unknown, req: Request, res: Response, next: NextFunction): void => {
    void next;
    // the database is down or restarting: 503 + Retry-After, never a 500 with a stack
    // (sql.ts already types these; this catches any connection error that escaped it)
    const err = !(thrown instanceof BootsmithError) && isConnectionError(thrown) ? new DatabaseUnavailableError('connection failed') : thrown;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const status = statusForError(err);
    if (status >= 500 && !(err instanceof BootsmithError)) {
      logger.error({ err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err), method: req.method, path: redactedRequestTarget(req) }, 'assisted API internal error');
    }
    res.status(status).set(headersForError(err)).json(errorBody(status, publicMessage(err)));
  };
}
