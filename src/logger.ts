// The process logger (pino, JSON lines) with redaction of every field that could carry a
// secret, as a second line of defence: code must not log secrets in the first place.
//
// Two layers: pino's own `redact` paths (exact, case-sensitive) and a log formatter that walks
// every log object and message through src/redact.ts (credential-named fields in any case
// or spelling, URLs and request targets in any string, errors' messages and stacks).
import { pino, type DestinationStream, type Logger } from 'pino';
import { redactLogValue, redactText, redactUrl } from './redact.js';

export const REDACTED_PATHS = [
  'pull_secret',
  '*.pull_secret',
  'token',
  '*.token',
  'api_key',
  '*.api_key',
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'req.headers["image-token"]',
  'req.headers["x-secret-key"]',
  'ignition',
  '*.ignition',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'bootsmith' },
    formatters: {
      log: (object: Record<string, unknown>) => redactLogValue(object) as Record<string, unknown>,
      bindings: (bindings: Record<string, unknown>) => redactLogValue(bindings) as Record<string, unknown>,
    },
    hooks: {
      // Runs before pino derives a message from an error, so that message is redacted too.
      logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
        const [first, ...rest] = args;
        if (first instanceof Error) {
          const err = redactLogValue(first) as { message: string };
          method.apply(this, [{ err }, ...(typeof rest[0] === 'string' ? redactArgs(rest) : [err.message])]);
          return;
        }
        method.apply(this, [
          first !== null && typeof first === 'object'
            ? redactLogValue(first)
            : typeof first === 'string'
              ? redactText(first)
              : first,
          ...redactArgs(rest),
        ]);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

function redactArgs(args: unknown[]): unknown[] {
  return args.map((arg) => (typeof arg === 'string' ? redactText(arg) : arg));
}

/** A request path or URL with credentials removed (see src/redact.ts: decoded, case-insensitive). */
export function redactRequestPath(url: string): string {
  return redactUrl(url);
}
