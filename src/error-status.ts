// The error vocabulary below both HTTP faces: typed error → status, extra headers, public message.
//
// Does: decide, for any thrown value, the HTTP status (from the error kind of src/errors.ts,
// upstream 401/403/404 passing through, body-parser errors keeping theirs, 500 otherwise), the
// headers that must accompany it (Content-Range for 416, Retry-After for 429 and 503) and the message a
// client may see (ours for typed errors, a generic one for anything else).
// Does NOT: render bodies or write responses. The image side (src/http/representation/error-response.ts) and the
// assisted API (src/platform/api/error-handler.ts) each render their own body shape from this, and
// neither imports the other. Never includes secrets or stack traces.
import {
  BootsmithError,
  type ErrorKind,
  RangeNotSatisfiableError,
  TooManyRequestsError,
  UnavailableError,
  UpstreamError,
} from './errors.js';

const STATUS_BY_KIND: Record<ErrorKind, number> = {
  'bad-request': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  'method-not-allowed': 405,
  conflict: 409,
  'payload-too-large': 413,
  'range-not-satisfiable': 416,
  'too-many-requests': 429,
  unavailable: 503,
  upstream: 502,
  format: 422,
  unprocessable: 422,
  internal: 500,
};

/** Upstream statuses our caller sees as they are (their credential or id was wrong, not our side). */
const PASS_THROUGH_UPSTREAM_STATUSES: readonly number[] = [401, 403, 404];

/** What a client is told for anything that is not a typed error. */
export const GENERIC_INTERNAL_MESSAGE = 'internal server error';

/** Status, headers and message for one error; `typed` is false for untyped failures (log those when 5xx). */
export interface ErrorStatus {
  status: number;
  headers: Record<string, string>;
  message: string;
  typed: boolean;
}

export function errorStatus(err: unknown): ErrorStatus {
  return {
    status: statusForError(err),
    headers: headersForError(err),
    message: publicMessage(err),
    typed: err instanceof BootsmithError,
  };
}

export function statusForError(err: unknown): number {
  if (err instanceof UpstreamError && err.status !== undefined && PASS_THROUGH_UPSTREAM_STATUSES.includes(err.status)) {
    return err.status;
  }
  if (err instanceof BootsmithError) return STATUS_BY_KIND[err.kind];
  if (isBodyParserError(err)) return err.status;
  return 500;
}

/** Headers that must accompany the status for this error. */
export function headersForError(err: unknown): Record<string, string> {
  if (err instanceof RangeNotSatisfiableError) return { 'Content-Range': `bytes */${err.size}` };
  if (err instanceof UnavailableError || err instanceof TooManyRequestsError) {
    return { 'Retry-After': String(err.retryAfterSeconds), 'Cache-Control': 'no-store' };
  }
  return {};
}

/** The message a client may see: ours for typed errors, a generic one otherwise. */
export function publicMessage(err: unknown): string {
  if (err instanceof BootsmithError) return err.message;
  if (isBodyParserError(err)) return err.message;
  return GENERIC_INTERNAL_MESSAGE;
}

/** Errors from express.json() (http-errors): they carry a client status and a safe message. */
function isBodyParserError(err: unknown): err is { status: number; message: string; expose: true } {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { expose?: unknown }).expose === true &&
    typeof (err as { status?: unknown }).status === 'number'
  );
}
