// Start-up check of the file-descriptor budget against MAX_CONCURRENT_REQUESTS.
//
// Does: say, as one message for a warning, when the open-file limit or the connection cap is
// below what the request cap needs (each artifact stream holds one socket; image files are
// shared, so they come out of the reserve), and which setting to raise.
// Does NOT: read or change the limit (src/http/transport/open-file-limit.ts), log, or enforce anything.
import { FD_RESERVE_MIN } from '../transport/open-file-limit.js';

/** Open files the request cap needs: one socket per stream plus the reserve for files, the database and logs. */
export function openFilesNeeded(maxConcurrentRequests: number): number {
  return maxConcurrentRequests + FD_RESERVE_MIN;
}

/** A warning when the budget is short; undefined when it suffices (or the limit is unknown). */
export function fdBudgetProblem(
  softLimit: number | undefined,
  connectionCap: number,
  maxConcurrentRequests: number,
): string | undefined {
  const needed = openFilesNeeded(maxConcurrentRequests);
  if (softLimit !== undefined && softLimit < needed) {
    return (
      `the open-file limit (${softLimit}) is below the ${needed} that MAX_CONCURRENT_REQUESTS=${maxConcurrentRequests} ` +
      `needs (one socket per stream plus ${FD_RESERVE_MIN} for files): raise the limit (ulimit -n, systemd ` +
      `LimitNOFILE=, container --ulimit nofile=) or lower MAX_CONCURRENT_REQUESTS`
    );
  }
  if (connectionCap < maxConcurrentRequests) {
    return (
      `the connection cap (${connectionCap}) is below MAX_CONCURRENT_REQUESTS=${maxConcurrentRequests}, so ` +
      `connections run out first: raise HTTP_MAX_CONNECTIONS or the open-file limit, or lower MAX_CONCURRENT_REQUESTS`
    );
  }
  return undefined;
}
