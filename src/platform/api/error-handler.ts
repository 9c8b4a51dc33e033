// Renders errors of the APIs in upstream's body shapes: the assisted API (src/core/) and the BMC
// wing's extension API mounted beside it (src/bmc/api/).
//
// Does: take status, headers and public message from src/error-status.ts (the vocabulary shared
// with the image side) and render 401/403 as `{code, message}` (infra_error); what upstream's
// generated server answers before its handlers run (FrameworkError: binding, schema 6xx → 422,
// unknown route 404, wrong method 405 with `Allow`; and express.json's parse errors) as
// go-openapi's `{code, message}`; everything else as `{kind:"Error", id, href, code, reason}`.
// Database connection failures and pool waits that escaped ../db/sql.ts become its typed 503s with
// Retry-After. Internal errors are logged without request bodies and answered with a generic reason.
// Does NOT: decide statuses (src/error-status.ts does) or import the image side's HTTP tree.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { BootsmithError } from '../../errors.js';
import { errorStatus } from '../../error-status.js';
import { redactedRequestTarget } from '../../redact.js';
import { translateDatabaseError } from '../db/sql.js';
import { FrameworkError } from './framework-error.js';

export function errorBody(status: number, message: string): Record<string, unknown> {
  if (status === 401 || status === 403) return { code: status, message };
  return { kind: 'Error', id: status, href: '', code: String(status), reason: message };
}

/** express.json() failures (malformed JSON, too large): go-openapi's runtime answers these itself. */
function isBodyParserFailure(err: unknown): err is { status: number; type: string } {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { expose?: unknown }).expose === true &&
    typeof (err as { type?: unknown }).type === 'string' &&
    String((err as { type: string }).type).startsWith('entity.')
  );
}

export function sendError(res: Response, status: number, message: string): void {
  res.status(status).json(errorBody(status, message));
}

export function assistedErrorHandler(logger: Logger) {
  return (thrown: unknown, req: Request, res: Response, next: NextFunction): void => {
    void next;
    // the database is down or restarting, or the pool busy: 503 + Retry-After, never a 500 with
    // a stack (sql.ts already types these; this catches any that escaped it)
    const err = thrown instanceof BootsmithError ? thrown : translateDatabaseError(thrown);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const { status, headers, message, typed } = errorStatus(err);
    if (status >= 500 && !typed) {
      logger.error(
        {
          err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err),
          method: req.method,
          path: redactedRequestTarget(req),
        },
        'assisted API internal error',
      );
    }
    if (err instanceof FrameworkError) {
      if (err.allowed.length > 0) res.set('Allow', err.allowed.join(','));
      res.status(status).set(headers).json({ code: err.code, message });
      return;
    }
    if (isBodyParserFailure(err)) {
      res.status(status).set(headers).json({ code: status, message });
      return;
    }
    res.status(status).set(headers).json(errorBody(status, message));
  };
}
