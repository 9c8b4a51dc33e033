// Whether a failed call to a BMC is tried again, and after how long: pure, tested as a table.
//
// Retried: 5xx answers (a BMC busy finishing an eject, restarting its web server, a proxy in front
// of it) except 501 and 505, which say the request can never work; and connection resets (a BMC
// dropping connections under load). Everything else fails at once: 4xx are answers, a refused port
// or a timeout is a BMC that is down or hung — retrying it would only push the failure past the
// bound the caller was promised (limits.ts).
// Does NOT: sleep or call anything. Next: transport.ts applies it.
import type { RedfishFailure } from './errors.js';

/** 5xx statuses that say "never": retrying them cannot help. */
const PERMANENT_5XX: readonly number[] = [501, 505];

export interface AttemptResult {
  /** The HTTP status when the BMC answered. */
  status?: number;
  /** The transport failure when it did not. */
  failure?: RedfishFailure;
}

export function isRetryable(result: AttemptResult): boolean {
  if (result.failure === 'connection-reset') return true;
  if (result.failure !== undefined) return false;
  const status = result.status ?? 0;
  return status >= 500 && status <= 599 && !PERMANENT_5XX.includes(status);
}

/**
 * The delay before attempt `attempt + 1` after `attempt` failed with `result` (attempts count from
 * 1), or undefined when there is no next attempt: not retryable, or `delays` is used up.
 */
export function nextDelayMs(attempt: number, result: AttemptResult, delays: readonly number[]): number | undefined {
  if (!isRetryable(result)) return undefined;
  return delays[attempt - 1];
}
