// The process logger (pino, JSON lines) with redaction of every field that could carry a
// secret, as a second line of defence: code must not log secrets in the first place.
import { pino, type DestinationStream, type Logger } from 'pino';

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
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'bootsmith' } };
  return destination ? pino(options, destination) : pino(options);
}

/** A request path with credentials removed: /bytoken/<token>/..., /byapikey/<key>/..., ?api_key=, ?image_token=. */
export function redactRequestPath(url: string): string {
  return url
    .replace(/^\/(bytoken|byapikey)\/[^/]+/, '/$1/[redacted]')
    .replace(/([?&](?:api_key|image_token)=)[^&]*/g, '$1[redacted]');
}
