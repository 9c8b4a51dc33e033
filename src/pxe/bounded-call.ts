// A call into the front door's port with a clock (every network-facing wait has one): it settles
// with the call's result, or rejects with a PortTimeoutError when the call has not settled in
// time; a late result is then ignored. Callers bound how many calls are in flight themselves.
// Does NOT: retry (the firmware retransmits its request) or cancel the call (the port's own
// lookups are bounded by their implementation).

/** A DHCP client retransmits after 4 s (PXE 2.1's first interval; iPXE: 1 s); an answer later than that is wasted. */
export const PORT_CALL_TIMEOUT_MS = 2_000;

/** Front-door calls in flight at once, per server; a flood of made-up MACs waits on no more than this. */
export const MAX_PORT_CALLS_IN_FLIGHT = 64;

export class PortTimeoutError extends Error {}

export function boundedCall<T>(call: () => Promise<T> | T, timeoutMs: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new PortTimeoutError(`${what} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    timer.unref();
    Promise.resolve()
      .then(call)
      .then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
  });
}
