// Faults an emulated BMC can be told to show, per BMC, changeable while it runs:
//
//   serverErrors       answer N matching requests (or all) with a 5xx Redfish error, then normally
//   resetConnections   destroy the connection of N matching requests (the client sees ECONNRESET)
//   hang               accept N matching requests and never answer
//   malformedJson      answer matching GETs with 200 and a body that is not JSON
//   hugeJson           answer matching GETs with 200 and a JSON body of `bytes` bytes, streamed
//   endlessBody        answer matching GETs with 200 and a chunked body that never ends
//   rewrite            a hostile BMC's documents: the answer to matching requests passed through
//                      `body` (the model's document in, any JSON or `{ raw }` text out), with
//                      `status` instead of the model's when given (test/fuzz/bmc-documents uses it)
//   tlsNeverCompletes  (server start only) accept TCP and never answer the TLS ClientHello
//   neverReadsIso      accept inserts (Inserted: true) but never attach the image to the guest
//   session            a broken session POST: 201 without X-Auth-Token (no session made), or a
//                      session whose Location names another host (the session exists here)
//   slowPatch          PATCHes answered only after `ms` (iDRAC 10 holds some open over 60 s)
//   sessionLimit       at most N sessions open at once (over the profile's own sessionLimit); one
//                      more login answers 503 with iDRAC's RAC0218 (gofish #75, check_redfish #89)
//   powerOnConflictMs  a power-on answers 409 for this long after the host was powered off (over
//                      the profile's powerOnConflictAfterOffMs); the BMC's start counts as a power-off
// Wrong passwords need no fault: give the client another password.
// Does NOT: apply them (server.ts and handler.ts do).

export interface RequestMatch {
  method?: string;
  /** Substring of the path, or a pattern. */
  path?: string | RegExp;
}

export interface CountedFault {
  /** How many matching requests get the fault; 'always' for every one. */
  times: number | 'always';
  match?: RequestMatch;
}

/** A body sent as this text, as is (a document JSON.stringify cannot make: nested 100,000 deep). */
export interface RawBody {
  raw: string;
}

export interface Rewrite {
  match?: RequestMatch;
  status?: number;
  body: (doc: unknown) => unknown;
}

export interface Faults {
  serverErrors?: CountedFault & { status?: number };
  resetConnections?: CountedFault;
  hang?: CountedFault;
  malformedJson?: { match?: RequestMatch };
  hugeJson?: { bytes: number; match?: RequestMatch };
  endlessBody?: { match?: RequestMatch };
  /** Applied in order; the first that matches a request rewrites its answer. */
  rewrite?: Rewrite[];
  tlsNeverCompletes?: boolean;
  neverReadsIso?: boolean;
  session?: 'no-token' | 'foreign-location';
  slowPatch?: { ms: number; match?: RequestMatch };
  sessionLimit?: number;
  powerOnConflictMs?: number;
}

export function isRawBody(body: unknown): body is RawBody {
  return typeof body === 'object' && body !== null && typeof (body as RawBody).raw === 'string';
}

export function matches(match: RequestMatch | undefined, method: string, path: string): boolean {
  if (!match) return true;
  if (match.method && match.method.toUpperCase() !== method.toUpperCase()) return false;
  if (match.path === undefined) return true;
  return typeof match.path === 'string' ? path.includes(match.path) : match.path.test(path);
}

/** Counts uses of each counted fault; `take` says whether this request gets it. */
export class FaultCounter {
  private used = new Map<string, number>();

  take(name: string, fault: CountedFault | undefined, method: string, path: string): boolean {
    if (!fault || !matches(fault.match, method, path)) return false;
    const used = this.used.get(name) ?? 0;
    if (fault.times !== 'always' && used >= fault.times) return false;
    this.used.set(name, used + 1);
    return true;
  }

  count(name: string): number {
    return this.used.get(name) ?? 0;
  }

  reset(): void {
    this.used.clear();
  }
}
