// Typed errors shared by every part of bootsmith.
//
// Each error names what went wrong and carries the context needed to act on it
// (file names, sizes, ids). They say nothing about HTTP: the mapping from error
// kind to status code lives in one place, src/error-status.ts.
// Never put secrets (pull secrets, tokens, Ignition contents) into messages or context.

export type ErrorKind =
  | 'bad-request'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'conflict'
  | 'payload-too-large'
  | 'range-not-satisfiable'
  | 'too-many-requests'
  | 'unavailable'
  | 'upstream'
  | 'format'
  | 'unprocessable'
  | 'internal';

export class BootsmithError extends Error {
  readonly kind: ErrorKind;
  readonly context: Readonly<Record<string, unknown>>;

  constructor(kind: ErrorKind, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.kind = kind;
    this.context = context;
  }
}

/** The caller sent something malformed: unknown arch, bad id, bad parameter. */
export class BadRequestError extends BootsmithError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('bad-request', message, context);
  }
}

export class NotFoundError extends BootsmithError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('not-found', message, context);
  }
}

export class UnauthorizedError extends BootsmithError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('unauthorized', message, context);
  }
}

export class ForbiddenError extends BootsmithError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('forbidden', message, context);
  }
}

export class ConflictError extends BootsmithError {
  constructor(message: string, context: Record<string, unknown> = {}) {
    super('conflict', message, context);
  }
}

/** A file is not what it claims to be: not an ISO, no CoreOS layout, corrupt archive. */
export class FormatError extends BootsmithError {
  constructor(message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super('format', message, context, options);
  }
}

/** A payload does not fit the area reserved for it (Ignition embed area, kargs area). */
export class PayloadTooLargeError extends BootsmithError {
  readonly payloadSize: number;
  readonly capacity: number;

  constructor(what: string, payloadSize: number, capacity: number, context: Record<string, unknown> = {}) {
    super('payload-too-large', `${what} is ${payloadSize} bytes but only ${capacity} bytes are available`, {
      ...context,
      payloadSize,
      capacity,
    });
    this.payloadSize = payloadSize;
    this.capacity = capacity;
  }
}

/** A byte range lies wholly outside a representation of `size` bytes. */
export class RangeNotSatisfiableError extends BootsmithError {
  readonly size: number;

  constructor(size: number, range: string) {
    super('range-not-satisfiable', `range ${JSON.stringify(range)} is outside the ${size}-byte representation`, {
      size,
    });
    this.size = size;
  }
}

/** Something we depend on is not ready yet (an image still downloading); retrying later helps. */
export class UnavailableError extends BootsmithError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, context: Record<string, unknown> = {}) {
    super('unavailable', message, context);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A client sent more than its share (agent-posted events per host or InfraEnv); retrying later helps. */
export class TooManyRequestsError extends BootsmithError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, context: Record<string, unknown> = {}) {
    super('too-many-requests', message, context);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * An upstream service failed. `status` is the upstream HTTP status when it answered
 * (401/403/404 pass through to our caller), undefined when it could not be reached.
 */
export class UpstreamError extends BootsmithError {
  readonly status: number | undefined;

  constructor(
    message: string,
    status: number | undefined,
    context: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super('upstream', message, { ...context, upstreamStatus: status }, options);
    this.status = status;
  }
}

export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Builds the typed error `withContext` throws from its message and the error it replaces. */
export type ContextErrorFactory = (message: string, cause: unknown) => Error;

/**
 * Runs one fallible step and names it when it fails (coreos-installer's `.with_context`): when
 * `fn` throws, or the promise it returns rejects, the error becomes `as(`${doing}: ${reason}`,
 * cause)`, where `reason` is the cause's message (describeError) and the cause is kept. Returns
 * what `fn` returns. `as` picks the typed error, e.g. `(m, cause) => new FormatError(m, { path }, { cause })`.
 */
export function withContext<T>(doing: string, fn: () => T, as: ContextErrorFactory): T {
  const rethrow = (cause: unknown): never => {
    throw as(`${doing}: ${describeError(cause)}`, cause);
  };
  let result: T;
  try {
    result = fn();
  } catch (cause) {
    return rethrow(cause);
  }
  return result instanceof Promise ? (result.catch(rethrow) as T) : result;
}
