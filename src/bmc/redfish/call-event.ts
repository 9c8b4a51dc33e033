// What one call to a BMC looks like in a log: the BMC, the step, the method and path (redacted),
// the attempt, the status or failure, how long it took. Holds no secrets, ever.
// Does NOT: log anything (the caller's `log` option does). Next: transport.ts, session-auth.ts.

/** One attempt of one call, after it ended. */
export interface RedfishCallEvent {
  bmc: string;
  step: string;
  method: string;
  path: string;
  attempt: number;
  status?: number;
  failure?: string;
  ms: number;
  /** Set when another attempt follows after this many ms. */
  retryInMs?: number;
}
