// What each member of a fault-mixed fleet (fleet-mix.ts) must have come to after one
// `bmc boot --all --wait registered`, judged from the service's own view of its BMCs' last jobs
// (`GET /bmcs`): every problem named, and a line per role for the record.
//
//   healthy, session-limit   the job succeeded with the host registered (a client on Basic never
//                            logs in, so the session limit cannot bite; with sessions it must not
//                            either: one per BMC)
//   never-answers            failed in `discover` on a TLS or connect timeout, the job over within
//                            one call's clocks (connect 10 s + TLS 15 s + request 30 s, never
//                            retried) plus SLACK_MS
//   slow-reader              failed as not booted, within BMC_BOOT_TIMEOUT of its first read plus
//                            the follow interval (2 s) and SLACK_MS
//   power-on-409             failed in `power` on the 409, or (a client that waits the window out)
//                            registered
// Does NOT: boot anything or read the BMCs' own logs (the callers count sessions: fleet-mix.ts).
import type { FleetMember, FleetRole } from './fleet-mix.js';

/** Room for a step boundary, a database write and a loaded machine on top of each bound. */
export const SLACK_MS = 15_000;
/** One Redfish call's clocks at their defaults (src/bmc/redfish/limits.ts): connect + TLS + request. */
export const ONE_CALL_MS = 10_000 + 15_000 + 30_000;
/** How often a following job looks at its reads (src/bmc/jobs/limits.ts FOLLOW_INTERVAL_MS). */
const FOLLOW_INTERVAL_MS = 2_000;

/** What the fleet's service was given. */
export interface RoleBounds {
  bootTimeoutMs: number;
}

/** The part of the API's BMC view this reads (docs/reference/endpoints.md). */
export interface JudgedBmc {
  name: string;
  last_job: {
    state: string;
    error: string | null;
    started_at: string | null;
    finished_at: string | null;
    steps: { name: string; status: string; finished_at?: string }[];
  } | null;
}

export interface RoleLine {
  role: FleetRole;
  count: number;
  summary: string;
}

export interface FleetVerdict {
  problems: string[];
  roles: RoleLine[];
}

export function judgeFleet(
  members: readonly FleetMember[],
  bmcs: readonly JudgedBmc[],
  bounds: RoleBounds,
): FleetVerdict {
  const problems: string[] = [];
  const byRole = new Map<FleetRole, { count: number; ok: number; seconds: number[]; how: Map<string, number> }>();
  for (const m of members) {
    const view = bmcs.find((b) => b.name === m.bmc.name);
    const job = view?.last_job;
    const line = byRole.get(m.role) ?? { count: 0, ok: 0, seconds: [], how: new Map<string, number>() };
    byRole.set(m.role, line);
    line.count++;
    if (!job) {
      problems.push(`${m.bmc.name}: no boot job`);
      continue;
    }
    const ms = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN);
    const lasted = ms(job.finished_at) - ms(job.started_at);
    const step = (name: string) => job.steps.find((s) => s.name === name);
    const failedIn = job.steps.find((s) => s.status === 'failed')?.name;
    const registered = job.state === 'succeeded' && step('registered')?.status === 'done';
    let why: string | undefined;
    let how: string;
    switch (m.role) {
      case 'healthy':
      case 'session-limit':
        how = registered ? 'registered' : `${job.state} in ${failedIn ?? '?'}`;
        if (!registered) why = `not registered: ${job.state}: ${job.error ?? ''}`;
        break;
      case 'never-answers':
        how = `failed in ${failedIn ?? '?'} after ${(lasted / 1000).toFixed(1)} s`;
        if (job.state !== 'failed' || failedIn !== 'discover' || !/timed out/.test(job.error ?? ''))
          why = `expected a discover timeout, got ${job.state}: ${job.error ?? ''}`;
        else if (!(lasted <= ONE_CALL_MS + SLACK_MS)) why = `failed after ${lasted} ms, beyond one call's clocks`;
        break;
      case 'slow-reader': {
        const firstRead = ms(step('iso-read')?.finished_at);
        const after = ms(job.finished_at) - firstRead;
        how = `failed in ${failedIn ?? '?'} ${(after / 1000).toFixed(1)} s after its first read`;
        if (job.state !== 'failed' || failedIn !== 'booted')
          why = `expected a boot timeout, got ${job.state}: ${job.error ?? ''}`;
        else if (!(after <= bounds.bootTimeoutMs + FOLLOW_INTERVAL_MS + SLACK_MS))
          why = `failed ${after} ms after its first read, beyond BMC_BOOT_TIMEOUT`;
        break;
      }
      case 'power-on-409':
        how = registered ? 'registered after the window' : `failed in ${failedIn ?? '?'}`;
        if (!registered && (job.state !== 'failed' || failedIn !== 'power' || !/409/.test(job.error ?? '')))
          why = `expected a 409 at power or a registration, got ${job.state}: ${job.error ?? ''}`;
        break;
    }
    line.how.set(how.replace(/[\d.]+ s/g, 'N s'), (line.how.get(how.replace(/[\d.]+ s/g, 'N s')) ?? 0) + 1);
    if (Number.isFinite(lasted)) line.seconds.push(lasted / 1000);
    if (why) problems.push(`${m.bmc.name}: ${why}`);
    else line.ok++;
  }
  const roles = [...byRole.entries()].map(([role, l]) => {
    const s = [...l.seconds].sort((a, b) => a - b);
    const range = s.length ? `job ${s[0]!.toFixed(1)}–${s.at(-1)!.toFixed(1)} s` : 'no job';
    const hows = [...l.how.entries()].map(([h, c]) => `${c} ${h}`).join(', ');
    return { role, count: l.count, summary: `${role}: ${l.ok}/${l.count} as expected (${hows}; ${range})` };
  });
  return { problems, roles };
}
