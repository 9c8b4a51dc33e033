// The front door's Prometheus instruments, registered on the registry it is given (the service's,
// src/metrics.ts's `Metrics.registry`, handed over by src/assembly/front-door-wing.ts; a fresh
// one in tests), so this room imports nothing of the HTTP side (as src/pxe/pxe-metrics.ts):
//   bootsmith_pxe_front_door_answers_total{kind, outcome}    every per-host answer, by what asked
//     and what the host was told;
//   bootsmith_pxe_front_door_match_duration_seconds{source}  how long matching took (the lookups
//     of ./host-match.ts), by the source that answered.
// Label values are the fixed words below: never a MAC, UUID, serial or InfraEnv id.
// Does NOT: decide what an answer's outcome is (./front-door.ts does) or count /boot.ipxe (the
// same script for everyone: bootsmith_http_requests_total{route="front-door-boot"} counts it).
import { Counter, Histogram, type Registry } from 'prom-client';
import type { MatchVia } from './host-match.js';

/**
 * What asked: `ipxe` (/pxe/host.ipxe), `grub` (/pxe/grub.cfg), `pixiecore` (/pxe/v1/boot/{mac}),
 * `tftp_grub` (the PXE wing's TFTP `grub.cfg-01-<mac>`), `dhcp` (the PXE wing's ProxyDHCP asking
 * whether a host boots through shim and GRUB).
 */
export type AnswerKind = 'ipxe' | 'grub' | 'pixiecore' | 'tftp_grub' | 'dhcp';
/** The kinds a booting host asks over HTTP (the ones that can be malformed). */
export type HttpAnswerKind = Extract<AnswerKind, 'ipxe' | 'grub' | 'pixiecore'>;

/** The match's source as a label: the words an operator configured, not the code's. */
export type MatchSource = 'assignment' | 'bmc' | 'mac_interface_map' | 'registration' | 'default';

/**
 * What the host was told: its InfraEnv's boot, matched by a source; `unmatched` (wait and ask
 * again; pixiecore: 404); `skipped` (installed under boot-order-control: boot the disk); `gone`
 * (its InfraEnv was deleted between the match and the answer); `busy` (503 at
 * MAX_DECISIONS_IN_FLIGHT); `invalid` (400: a malformed MAC, UUID or request); `error` (a lookup
 * failed).
 */
export type AnswerOutcome = MatchSource | 'unmatched' | 'skipped' | 'gone' | 'busy' | 'invalid' | 'error';

const SOURCE_OF: Readonly<Record<MatchVia, MatchSource>> = {
  assignment: 'assignment',
  bmc: 'bmc',
  'static-network': 'mac_interface_map',
  registration: 'registration',
  default: 'default',
};

export function matchSource(via: MatchVia): MatchSource {
  return SOURCE_OF[via];
}

export class FrontDoorMetrics {
  private readonly answers: Counter<'kind' | 'outcome'>;
  private readonly matchDuration: Histogram<'source'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.answers = new Counter({
      name: 'bootsmith_pxe_front_door_answers_total',
      help: "Per-host answers of the PXE front door, by kind (ipxe, grub, pixiecore, tftp_grub: the PXE wing's TFTP grub.cfg, dhcp: its ProxyDHCP's Secure Boot choice) and outcome: the source that matched the host (assignment, bmc, mac_interface_map, registration, default), unmatched (told to wait and ask again; pixiecore: 404), skipped (installed: boot the disk), gone (its InfraEnv was deleted meanwhile), busy (503), invalid (400), error",
      labelNames: ['kind', 'outcome'] as const,
      registers,
    });
    this.matchDuration = new Histogram({
      name: 'bootsmith_pxe_front_door_match_duration_seconds',
      help: 'Time the front door took to match a host to an InfraEnv (its lookups), by the source that answered: assignment, bmc, mac_interface_map, registration, default, none (no match), error (a lookup failed)',
      labelNames: ['source'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
  }

  answered(kind: AnswerKind, outcome: AnswerOutcome): void {
    this.answers.inc({ kind, outcome });
  }

  matched(source: MatchSource | 'none' | 'error', seconds: number): void {
    this.matchDuration.observe({ source }, seconds);
  }
}
