// The PXE wing's settings, declared once with their defaults and bounds (as src/bmc/settings.ts
// does for the BMC side), and read from the environment by parsePxeSettings, which src/config.ts
// composes (turning a PxeSettingsError into its ConfigError). PXE_INTERFACE unset = the wing is off
// and nothing else is read or checked.
//
// Adding a PXE setting: a field here (its variable in the doc comment), its default in
// DEFAULT_PXE_SETTINGS, its bounds in PXE_BOUNDS when it is a number, its read in
// parsePxeSettings, and its row in docs/operator/pxe.md (the configuration table, once wired).
// Does NOT: open files or sockets (loaders/loader-set.ts and pxe-wing.ts do, at start).
import path from 'node:path';
import { parseDuration } from '../duration.js';

export const EFI_X64_LOADERS = ['ipxe.efi', 'snponly.efi'] as const;
export type EfiX64Loader = (typeof EFI_X64_LOADERS)[number];

export interface PxeSettings {
  /** PXE_INTERFACE: the one interface ProxyDHCP (67, 4011) and TFTP (69) answer on; undefined = off. */
  pxeInterface: string | undefined;
  /** PXE_LOADERS_DIR: a directory holding the loaders under their TFTP names; undefined = Debian's package paths. */
  pxeLoadersDir: string | undefined;
  /** PXE_EFI_LOADER: what x86-64 UEFI PXE clients load: iPXE with its own drivers, or with the firmware's (snponly). */
  pxeEfiLoader: EfiX64Loader;
  /** PXE_ARM64_LOADER: the loader for 64-bit ARM UEFI PXE clients (a name in PXE_LOADERS_DIR, or an absolute path); undefined = no offer. */
  pxeArm64Loader: string | undefined;
  /** PXE_SECURE_BOOT: hosts the front door marks for Secure Boot load shim → signed network GRUB (their files needed at start). */
  pxeSecureBoot: boolean;
  /** PXE_TFTP_MAX_TRANSFERS: TFTP transfers at once, all clients together; an RRQ past it gets a "busy" error. */
  pxeTftpMaxTransfers: number;
  /** PXE_TFTP_MAX_TRANSFERS_PER_ADDRESS: TFTP transfers at once from one client address. */
  pxeTftpMaxTransfersPerAddress: number;
  /** PXE_TFTP_TRANSFER_TIMEOUT: the deadline of one whole TFTP transfer, however it retransmits. */
  pxeTftpTransferTimeoutMs: number;
}

export const DEFAULT_PXE_SETTINGS: Readonly<PxeSettings> = {
  pxeInterface: undefined,
  pxeLoadersDir: undefined,
  // iPXE's own drivers work on the NICs it knows and fall back to SNP; snponly.efi is for NICs iPXE
  // mishandles (smee ships both; Debian's ipxe package has both).
  pxeEfiLoader: 'ipxe.efi',
  // Debian ships no arm64 iPXE (its ipxe package is x86 only); smee builds snp-arm64.efi itself.
  pxeArm64Loader: undefined,
  // RHCOS hosts under Secure Boot PXE-boot only through shim → signed GRUB (issue 32): on by
  // default, so a missing shim is an error at start rather than a host that cannot boot.
  pxeSecureBoot: true,
  // 100 hosts at once each fetching one loader (the fleet), with room for retries and GRUB.
  pxeTftpMaxTransfers: 256,
  // A client fetches one file at a time; 4 covers firmware that restarts an RRQ it gave up on
  // (EDK2 asks the size, aborts, then fetches) while older transfers drain.
  pxeTftpMaxTransfersPerAddress: 4,
  // shim + GRUB (~5 MB) in 512-byte lock-step blocks over a relay at 50 ms round trips is ~8 min
  // at worst; a LAN fetch with 1468-byte blocks takes seconds. 5 min ends a stuck transfer well
  // within a boot's patience.
  pxeTftpTransferTimeoutMs: 5 * 60_000,
};

/** The bounds parsePxeSettings holds numbers to (inclusive), each with its reason. */
export const PXE_BOUNDS = {
  // Each transfer holds a socket (one file descriptor) and a few hundred bytes of state.
  pxeTftpMaxTransfers: [1, 4096],
  pxeTftpMaxTransfersPerAddress: [1, 64],
  // Below 10 s a slow relayed client never finishes; above an hour nothing is bounded.
  pxeTftpTransferTimeoutMs: [10_000, 3_600_000],
} as const satisfies Partial<Record<keyof PxeSettings, readonly [number, number]>>;

export class PxeSettingsError extends Error {}

/** Linux interface names: 1–15 bytes, no `/`, whitespace or `:` (IFNAMSIZ and dev_valid_name). */
const INTERFACE_NAME = /^[A-Za-z0-9_.-]{1,15}$/;
/** A loader's TFTP name: one path segment a firmware can ask for. */
const LOADER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}$/;

function text(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, [min, max]: readonly [number, number]) {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max))
    throw new PxeSettingsError(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

function durationMs(env: NodeJS.ProcessEnv, name: string, fallback: number, [min, max]: readonly [number, number]) {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = parseDuration(raw);
  if (value === undefined || value < min || value > max)
    throw new PxeSettingsError(
      `${name} must be a duration from ${min / 1000}s to ${max / 60_000}m such as 5m, not ${JSON.stringify(raw)}`,
    );
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'on', 'yes'].includes(raw)) return true;
  if (['false', '0', 'off', 'no'].includes(raw)) return false;
  throw new PxeSettingsError(`${name} must be true or false, not ${JSON.stringify(env[name])}`);
}

/** The PXE settings from `env`; with PXE_INTERFACE unset, the defaults (the wing is off). */
export function parsePxeSettings(env: NodeJS.ProcessEnv): PxeSettings {
  const pxeInterface = text(env, 'PXE_INTERFACE');
  if (pxeInterface === undefined) return { ...DEFAULT_PXE_SETTINGS };
  if (!INTERFACE_NAME.test(pxeInterface))
    throw new PxeSettingsError(
      `PXE_INTERFACE must be an interface name such as eth1, not ${JSON.stringify(pxeInterface)}`,
    );
  const pxeLoadersDir = text(env, 'PXE_LOADERS_DIR');
  if (pxeLoadersDir !== undefined && !path.isAbsolute(pxeLoadersDir))
    throw new PxeSettingsError(`PXE_LOADERS_DIR must be an absolute path, not ${JSON.stringify(pxeLoadersDir)}`);
  const efi = text(env, 'PXE_EFI_LOADER') ?? DEFAULT_PXE_SETTINGS.pxeEfiLoader;
  if (!(EFI_X64_LOADERS as readonly string[]).includes(efi))
    throw new PxeSettingsError(
      `PXE_EFI_LOADER must be one of ${EFI_X64_LOADERS.join(', ')}, not ${JSON.stringify(efi)}`,
    );
  const pxeArm64Loader = text(env, 'PXE_ARM64_LOADER');
  if (pxeArm64Loader !== undefined) {
    if (
      path.isAbsolute(pxeArm64Loader)
        ? !LOADER_NAME.test(path.basename(pxeArm64Loader))
        : !LOADER_NAME.test(pxeArm64Loader)
    )
      throw new PxeSettingsError(
        `PXE_ARM64_LOADER must be a file name in PXE_LOADERS_DIR or an absolute path to one, not ${JSON.stringify(pxeArm64Loader)}`,
      );
    if (!path.isAbsolute(pxeArm64Loader) && pxeLoadersDir === undefined)
      throw new PxeSettingsError(
        `PXE_ARM64_LOADER=${pxeArm64Loader} names a file in PXE_LOADERS_DIR, which is not set`,
      );
  }
  return {
    pxeInterface,
    pxeLoadersDir,
    pxeEfiLoader: efi as EfiX64Loader,
    pxeArm64Loader,
    pxeSecureBoot: flag(env, 'PXE_SECURE_BOOT', DEFAULT_PXE_SETTINGS.pxeSecureBoot),
    pxeTftpMaxTransfers: wholeNumber(
      env,
      'PXE_TFTP_MAX_TRANSFERS',
      DEFAULT_PXE_SETTINGS.pxeTftpMaxTransfers,
      PXE_BOUNDS.pxeTftpMaxTransfers,
    ),
    pxeTftpMaxTransfersPerAddress: wholeNumber(
      env,
      'PXE_TFTP_MAX_TRANSFERS_PER_ADDRESS',
      DEFAULT_PXE_SETTINGS.pxeTftpMaxTransfersPerAddress,
      PXE_BOUNDS.pxeTftpMaxTransfersPerAddress,
    ),
    pxeTftpTransferTimeoutMs: durationMs(
      env,
      'PXE_TFTP_TRANSFER_TIMEOUT',
      DEFAULT_PXE_SETTINGS.pxeTftpTransferTimeoutMs,
      PXE_BOUNDS.pxeTftpTransferTimeoutMs,
    ),
  };
}
