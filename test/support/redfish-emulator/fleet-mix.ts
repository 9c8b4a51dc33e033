// A fleet of emulated BMCs with virtual guests in which about one BMC in twenty shows each of the
// faults that hold a fleet up in the field (issue 33, deliverable 6); the rest are healthy:
//
//   slow-reader     its virtual CD reads at `slowBytesPerSecond` (50 KB/s: an iLO 4 reads at
//                   ~52 KB/s), so its reads cannot cover the boot files within BMC_BOOT_TIMEOUT
//   never-answers   accepts TCP and never says a word (no TLS ServerHello, no HTTP answer)
//   power-on-409    answers 409 to a power-on for `powerOnConflictMs` after the host was powered
//                   off (iDRAC10, ~60 s); its host is on and its Reset offers only On and
//                   ForceOff, so the client's own ForceOff opens the window just before its On
//                   (whenever the fleet's job queue gets to it)
//   session-limit   at most 8 Redfish sessions open (iDRAC's limit; one more login gets 503
//                   RAC0218): bites only a client that logs in (a client on Basic never does)
//
// Every member's guest registers as the discovery agent would (agent-stand-in.ts) once it read
// its boot files, so a healthy host goes all the way to `registered`. The fleet bench
// (bench/workloads/bmc-fleet-scale.ts, 1,000 BMCs) and its CI version
// (test/e2e/bmc-fleet-virtual.test.ts, 50) share this; what each role must come to is theirs.
// Does NOT: add the BMCs to a service or boot them.
import { randomUUID } from 'node:crypto';
import type { CurlReadOptions } from './curl-read-plan.js';
import type { Faults } from './faults.js';
import { emulatedMacs, startVirtualBmc } from './index.js';
import { emulatorProfile } from './profiles.js';
import type { EmulatedBmc } from './server.js';
import type { VirtualGuest } from './virtual-guest.js';

export type FleetRole = 'healthy' | 'slow-reader' | 'never-answers' | 'power-on-409' | 'session-limit';

/** One BMC in this many shows each fault. */
export const FAULT_EVERY = 20;
/** The faulty roles, by the member's index modulo FAULT_EVERY (0–3); any other index is healthy. */
const FAULTY: readonly FleetRole[] = ['slow-reader', 'never-answers', 'power-on-409', 'session-limit'];

export function fleetRole(index: number): FleetRole {
  return FAULTY[index % FAULT_EVERY] ?? 'healthy';
}

export interface FleetMixOptions {
  /** Emulator profiles, round-robin over the members. */
  profiles: readonly string[];
  username: string;
  password: string;
  tls: { certPem: string; keyPem: string };
  /** CAs the guests' agents trust for the service's https:// URLs. */
  serviceCa?: string;
  read: CurlReadOptions;
  /** Default 50,000 (50 KB/s). */
  slowBytesPerSecond?: number;
  /** Default 60,000 (iDRAC10's minute). */
  powerOnConflictMs?: number;
  /** Default 8 (iDRAC). */
  sessionLimit?: number;
  /** The i-th member's guest reads from this address (one per BMC, as on a real network). */
  localAddress?: (index: number) => string;
}

export interface FleetMember {
  index: number;
  role: FleetRole;
  bmc: EmulatedBmc;
  guest: VirtualGuest;
  uuid: string;
}

export async function startFleetMember(index: number, o: FleetMixOptions): Promise<FleetMember> {
  const role = fleetRole(index);
  const faults: Faults =
    role === 'never-answers'
      ? { tlsNeverCompletes: true }
      : role === 'power-on-409'
        ? { powerOnConflictMs: o.powerOnConflictMs ?? 60_000 }
        : role === 'session-limit'
          ? { sessionLimit: o.sessionLimit ?? 8 }
          : {};
  const uuid = randomUUID();
  const { bmc, guest } = await startVirtualBmc({
    name: `f${String(index + 1).padStart(4, '0')}-${role}`,
    // session-limit: a profile with a SessionService (generic); the others round-robin
    profile:
      role === 'session-limit'
        ? 'generic'
        : role === 'power-on-409'
          ? { ...emulatorProfile('generic'), resetTypes: ['On', 'ForceOff'] }
          : o.profiles[index % o.profiles.length]!,
    ...(role === 'power-on-409' ? { initialPower: 'On' as const } : {}),
    username: o.username,
    password: o.password,
    tls: o.tls,
    ...(o.serviceCa ? { imageCa: o.serviceCa } : {}),
    macs: emulatedMacs(2000 + index),
    uuid,
    read: o.read,
    ...(o.localAddress ? { localAddress: o.localAddress(index) } : {}),
    keepAlive: true,
    agent: true,
    faults,
    ...(role === 'slow-reader' ? { bytesPerSecond: o.slowBytesPerSecond ?? 50_000 } : {}),
  });
  return { index, role, bmc, guest: guest, uuid };
}

/** Every guest closed at once (a slow reader stops at its next paced read, up to seconds away). */
export async function closeGuests(members: readonly FleetMember[]): Promise<void> {
  await Promise.all(members.map((m) => m.guest.close()));
}

/** Sessions open on the members' BMCs now (the never-answering ones hold none). */
export function openSessions(members: readonly FleetMember[]): number {
  return members.reduce((n, m) => n + m.bmc.model.openSessions, 0);
}
