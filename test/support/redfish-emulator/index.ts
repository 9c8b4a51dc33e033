// The Redfish BMC emulator (test support), as a library: emulated BMCs on loopback with TLS, in
// front of real qemu guests (qemu-guest.ts) or virtual ones that read the ISO like qemu's curl
// driver (virtual-guest.ts). See README.md for the profiles, the faults and the standalone script.
export { curlReadPlan, CURL_READAHEAD_BYTES, type CurlReadOptions, type ReadRange } from './curl-read-plan.js';
export type { Faults, RequestMatch } from './faults.js';
export { type EmulatedGuest, GuestMediaError, type GuestPower } from './guest.js';
export { type BootRecord, BmcModel, type SlotState } from './handler.js';
export { type IsoServer, startIsoServer } from './iso-server.js';
export { type IsoSuite, isoSuite } from './iso-suite.js';
export { EMULATOR_PROFILES, emulatorProfile, type EmulatorProfile } from './profiles.js';
export { QemuGuest, type QemuGuestOptions } from './qemu-guest.js';
export { type EmulatedBmc, type EmulatedBmcOptions, type RequestRecord, startEmulatedBmc } from './server.js';
export { makeTestCertificates, type TestCertificates } from './test-ca.js';
export { type VirtualBoot, VirtualGuest, type VirtualGuestOptions } from './virtual-guest.js';
export { type AgentOutcome, registerFromCd } from './agent-stand-in.js';

import type { CurlReadOptions } from './curl-read-plan.js';
import type { Faults } from './faults.js';
import { randomUUID } from 'node:crypto';
import type { GuestPower } from './guest.js';
import type { EmulatorProfile } from './profiles.js';
import { type EmulatedBmc, startEmulatedBmc } from './server.js';
import { VirtualGuest } from './virtual-guest.js';

/** MACs for the n-th emulated host: locally administered, stable per index. */
export function emulatedMacs(index: number, count = 2): string[] {
  return Array.from({ length: count }, (_v, nic) => {
    const bytes = [0x52, 0x54, 0x00, (index >> 8) & 0xff, index & 0xff, nic];
    return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
  });
}

/** One BMC with a virtual guest: the common case of unit tests and fleet benches. */
export async function startVirtualBmc(options: {
  name: string;
  /** A row of profiles.ts, or its id. */
  profile: string | EmulatorProfile;
  username?: string;
  password?: string;
  tls?: { certPem: string; keyPem: string };
  /** CAs the virtual guest trusts for https:// images. */
  imageCa?: string;
  initialPower?: GuestPower;
  macs?: string[];
  uuid?: string;
  faults?: Faults;
  /** Shortens the profile's power-on 409 window after a power-off (tests). */
  powerOnConflictAfterOffMs?: number;
  maxBytes?: number;
  /** How the guest reads at a boot from CD (overrides `maxBytes`). */
  read?: CurlReadOptions;
  /** Source address of the guest's reads (one per BMC, as on a real network). */
  localAddress?: string;
  /** A boot's reads on one keep-alive connection, as qemu's curl driver (default: one per read). */
  keepAlive?: boolean;
  /** After a boot from the CD, the host registers as the discovery agent would (./agent-stand-in.ts). */
  agent?: boolean;
  /** The guest's reads average at most this many bytes a second (a slow virtual CD). */
  bytesPerSecond?: number;
}): Promise<{ bmc: EmulatedBmc; guest: VirtualGuest }> {
  const read = options.read ?? (options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : undefined);
  const uuid = options.uuid ?? randomUUID();
  const guest = new VirtualGuest({
    ...(options.agent ? { agent: { hostId: uuid } } : {}),
    initialPower: options.initialPower ?? 'Off',
    ...(options.imageCa ? { ca: options.imageCa } : {}),
    ...(read ? { read } : {}),
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    ...(options.keepAlive ? { keepAlive: true } : {}),
    ...(options.bytesPerSecond !== undefined ? { bytesPerSecond: options.bytesPerSecond } : {}),
  });
  const bmc = await startEmulatedBmc({
    name: options.name,
    profile: options.profile,
    username: options.username ?? 'admin',
    password: options.password ?? 'emulator-password',
    guest,
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.macs ? { macs: options.macs } : {}),
    ...(options.powerOnConflictAfterOffMs !== undefined
      ? { powerOnConflictAfterOffMs: options.powerOnConflictAfterOffMs }
      : {}),
    uuid,
    ...(options.faults ? { faults: options.faults } : {}),
  });
  return { bmc, guest };
}
