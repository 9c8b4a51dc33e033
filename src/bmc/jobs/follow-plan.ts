// The boot followed to the end, as one pure decision: given where a boot job stands and what the
// database shows now (the reads of its ISO URL, the hosts registered), what happens next.
// Tested as a table (follow-plan.test.ts); ./job-runner.ts applies each decision and asks again.
//
//   power done ─► iso-read ─► booted ─► registered ─► eject-media ─► done
//
//   iso-read     the first GET of bytes of the job's own URL (a HEAD alone is a BMC opening the
//                image, not reading it). Fails when none came within isoReadTimeoutMs of the power
//                step: "the BMC never read the ISO within 10 min of powering the host".
//   booted       the reads covered the boot files (read-coverage.ts), or a matching host registered
//                first (it booted, whatever the reads showed); skipped when the ISO names no boot
//                file. Fails when neither happened within bootTimeoutMs of the first read.
//   registered   a host matching the BMC (host-match.ts) registered since the insert. Fails when
//                none did within registerTimeoutMs of `booted`.
//   eject-media  eject when the policy says so (eject-policy.ts), else skipped with the reason.
// While it waits, the decision says for what and until when, in words that stay the same from one
// round to the next (the runner writes them once, as the waiting step's detail: `bmc boot` and
// `bmc show` say why a boot waits instead of sitting silent).
// Does NOT: read the database or call the BMC.
import type { JobStep } from '../store/records.js';
import type { EjectDecision } from './eject-policy.js';
import type { FollowStep } from './job-steps.js';
import type { HostMatch } from './host-match.js';
import type { BootCoverage } from './read-coverage.js';

export interface FollowTimeouts {
  isoReadMs: number;
  bootMs: number;
  registerMs: number;
}

export interface FollowObservation {
  now: Date;
  /** When the power step finished (the host was told to boot). */
  poweredAt: Date;
  /** The followed steps as the job has them. */
  steps: Readonly<Record<FollowStep, JobStep | undefined>>;
  reads: {
    firstReadAt: Date | undefined;
    requests: number;
    heads: number;
    bytes: number;
    addresses: readonly string[];
    coverage: BootCoverage;
  };
  host: HostMatch | undefined;
  /** What the BMC reported to match a host by (for the failure message). */
  bmcIdentity: { systemUuid: string | undefined; macs: readonly string[] };
  eject: EjectDecision;
  timeouts: FollowTimeouts;
}

export type FollowDecision =
  /** Mark `step` done (then decide again at once). */
  | { kind: 'mark'; step: FollowStep; detail: string; data?: Record<string, unknown>; hostId?: string }
  /** Mark `step` skipped with the reason. */
  | { kind: 'skip'; step: FollowStep; detail: string }
  /** Eject every slot now (eject-media). */
  | { kind: 'eject'; why: string }
  /** Nothing to do yet: `detail` says what the job waits for and when it gives up. */
  | { kind: 'wait'; for: FollowStep; detail: string }
  | { kind: 'fail'; step: FollowStep; reason: string }
  | { kind: 'done' };

/** "10 min", "90 s", "1 h 30 min": how long a timeout was, in the words of a failure. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 120) return `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function settled(step: JobStep | undefined): boolean {
  return step?.status === 'done' || step?.status === 'skipped';
}

function finishedAt(step: JobStep | undefined, fallback: Date): Date {
  return step?.finishedAt ? new Date(step.finishedAt) : fallback;
}

/** "it fails at 2026-11-28T07:40:12Z, 10 min after the power step" */
function deadline(from: Date, ms: number, after: string): string {
  return `it fails at ${new Date(from.getTime() + ms).toISOString().replace(/\.\d{3}Z$/, 'Z')}, ${formatDuration(ms)} after ${after}`;
}

/** The BMC's System UUID and MACs, as a host would show them: what a registration is matched by. */
function identityWords(id: FollowObservation['bmcIdentity']): string[] {
  return [
    ...(id.systemUuid ? [`System UUID ${id.systemUuid}`] : []),
    ...(id.macs.length > 0 ? [`MACs ${id.macs.join(', ')}`] : []),
  ];
}

export function decideFollow(o: FollowObservation): FollowDecision {
  const { steps, reads, now, timeouts } = o;
  const since = (t: Date): number => now.getTime() - t.getTime();

  if (!settled(steps['iso-read'])) {
    if (reads.firstReadAt) {
      return {
        kind: 'mark',
        step: 'iso-read',
        detail: `the BMC read the ISO (first read ${reads.firstReadAt.toISOString()}${
          reads.addresses.length > 0 ? ` from ${reads.addresses.join(', ')}` : ''
        })`,
        data: { firstReadAt: reads.firstReadAt.toISOString(), addresses: [...reads.addresses] },
      };
    }
    if (since(o.poweredAt) > timeouts.isoReadMs) {
      const opened =
        reads.heads > 0 ? ` (it opened the image with ${reads.heads} HEAD request(s) but read no byte)` : '';
      return {
        kind: 'fail',
        step: 'iso-read',
        reason: `the BMC never read the ISO within ${formatDuration(timeouts.isoReadMs)} of powering the host${opened}`,
      };
    }
    return {
      kind: 'wait',
      for: 'iso-read',
      detail: `waiting for the BMC to read the ISO (${deadline(o.poweredAt, timeouts.isoReadMs, 'the power step')})`,
    };
  }

  if (!settled(steps.booted)) {
    const { coverage } = reads;
    const readWords = `${mib(coverage.covered)} of the ${mib(coverage.total)} of boot files (kernel, initramfs, Ignition area) read`;
    if (coverage.booted === true) {
      return {
        kind: 'mark',
        step: 'booted',
        detail: `the reads covered the boot files (${mib(coverage.total)}; ${reads.requests} requests, ${mib(reads.bytes)} in all)`,
        data: { ...coverage, requests: reads.requests, bytes: reads.bytes },
      };
    }
    if (o.host) {
      return {
        kind: 'mark',
        step: 'booted',
        detail: `host ${o.host.hostId} registered (${readWords} by then)`,
        data: { ...coverage, requests: reads.requests, bytes: reads.bytes },
      };
    }
    if (coverage.booted === undefined) {
      return { kind: 'skip', step: 'booted', detail: 'not judged by reads: the served ISO names no boot file' };
    }
    const firstRead = finishedAt(steps['iso-read'], now);
    if (since(firstRead) > timeouts.bootMs) {
      return {
        kind: 'fail',
        step: 'booted',
        reason: `the host did not boot from the ISO within ${formatDuration(timeouts.bootMs)} of the first read: ${readWords}`,
      };
    }
    return {
      kind: 'wait',
      for: 'booted',
      detail:
        'the BMC is reading the ISO; waiting for its reads to cover the boot files (kernel, initramfs, Ignition area) ' +
        `(${deadline(firstRead, timeouts.bootMs, 'the first read')})`,
    };
  }

  if (!settled(steps.registered)) {
    if (o.host) {
      const by = o.host.matchedBy === 'system-uuid' ? 'its id is the System UUID' : `MAC ${o.host.mac ?? ''}`;
      return {
        kind: 'mark',
        step: 'registered',
        detail: `host ${o.host.hostId} registered (matched by ${by})`,
        data: { ...o.host },
        hostId: o.host.hostId,
      };
    }
    const booted = finishedAt(steps.booted, now);
    const known = identityWords(o.bmcIdentity);
    if (since(booted) > timeouts.registerMs) {
      return {
        kind: 'fail',
        step: 'registered',
        reason:
          known.length > 0
            ? `no host with the BMC's ${known.join(' or ')} registered within ${formatDuration(timeouts.registerMs)} of the boot`
            : `no host could be matched within ${formatDuration(timeouts.registerMs)} of the boot: the BMC reports neither a System UUID nor MACs`,
      };
    }
    return {
      kind: 'wait',
      for: 'registered',
      detail:
        known.length > 0
          ? `booted; waiting for the discovery agent on the host to register a host with the BMC's ${known.join(' or ')} ` +
            `(${deadline(booted, timeouts.registerMs, 'the boot')})`
          : 'booted; no host can be matched: the BMC reports neither a System UUID nor MACs ' +
            `(${deadline(booted, timeouts.registerMs, 'the boot')})`,
    };
  }

  if (!settled(steps['eject-media'])) {
    return o.eject.eject
      ? { kind: 'eject', why: o.eject.why }
      : { kind: 'skip', step: 'eject-media', detail: o.eject.why };
  }
  return { kind: 'done' };
}
