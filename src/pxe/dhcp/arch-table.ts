// Client system architectures (DHCP option 93, RFC 4578 §2.1; values from IANA's "Processor
// Architecture Types" registry) and what bootsmith's front door does for each: one row per code,
// citing where the fact comes from, never an if-chain in the planner. A code with no row is an
// unknown architecture: no offer, and a log line naming the code.
// Does NOT: pick a file name (answer-plan.ts maps a row's `boot` to the configured loader).
export type ArchBoot =
  /** PC BIOS PXE: the UNDI iPXE (`undionly.kpxe`). */
  | 'bios-loader'
  /** x86-64 UEFI PXE: iPXE's EFI build, or shim → signed GRUB under Secure Boot. */
  | 'efi-x64-loader'
  /** 64-bit ARM UEFI PXE: the configured arm64 loader. */
  | 'efi-arm64-loader'
  /** UEFI HTTP Boot (x86-64 or 64-bit ARM): the URL the front door gives the host. */
  | 'http-boot'
  /** Known, but nothing to offer it (no loader exists for it here). */
  | 'unsupported';

export interface ArchRow {
  code: number;
  name: string;
  boot: ArchBoot;
  /** The CPU of the OS it boots, as bootsmith's images spell it (undefined for unsupported rows). */
  cpu: 'x86_64' | 'aarch64' | undefined;
  /** The firmware: PC BIOS or UEFI (undefined: neither, e.g. U-Boot). */
  platform: 'bios' | 'efi' | undefined;
  /** Which vendor class (option 60) a client of this architecture sends. */
  vendorClass: 'PXEClient' | 'HTTPClient';
  source: string;
}

const IANA = 'IANA Processor Architecture Types registry';

/** One row per code bootsmith names. Order does not matter. */
export const ARCH_ROWS: readonly ArchRow[] = [
  { code: 0, name: 'x86 BIOS', boot: 'bios-loader', cpu: 'x86_64', platform: 'bios', vendorClass: 'PXEClient', source: `RFC 4578 §2.1 ("Intel x86PC"); ${IANA}` },
  { code: 6, name: 'x86 (32-bit) UEFI', boot: 'unsupported', cpu: undefined, platform: 'efi', vendorClass: 'PXEClient', source: `${IANA}; no 32-bit loader ships with Debian's or RHEL's iPXE` },
  { code: 7, name: 'x86-64 UEFI', boot: 'efi-x64-loader', cpu: 'x86_64', platform: 'efi', vendorClass: 'PXEClient', source: `${IANA} (x64 UEFI); EDK2 (OVMF) X64 sends 7; RFC 4578 erratum 4624 swaps the labels of 7 and 9` },
  { code: 9, name: 'x86-64 UEFI (EFI BC)', boot: 'efi-x64-loader', cpu: 'x86_64', platform: 'efi', vendorClass: 'PXEClient', source: `RFC 4578 §2.1 ("EFI x86-64"); older x64 firmware sends 9; pixiecore and smee map it to the x64 EFI loader` },
  { code: 10, name: '32-bit ARM UEFI', boot: 'unsupported', cpu: undefined, platform: 'efi', vendorClass: 'PXEClient', source: IANA },
  { code: 11, name: '64-bit ARM UEFI', boot: 'efi-arm64-loader', cpu: 'aarch64', platform: 'efi', vendorClass: 'PXEClient', source: `${IANA}; smee maps it to snp-arm64.efi` },
  { code: 15, name: 'x86 (32-bit) UEFI HTTP', boot: 'unsupported', cpu: undefined, platform: 'efi', vendorClass: 'HTTPClient', source: IANA },
  { code: 16, name: 'x86-64 UEFI HTTP', boot: 'http-boot', cpu: 'x86_64', platform: 'efi', vendorClass: 'HTTPClient', source: `${IANA}; UEFI 2.5 §24.7 (HTTP Boot sends HTTPClient); EDK2 HttpBootDxe on X64` },
  { code: 18, name: '32-bit ARM UEFI HTTP', boot: 'unsupported', cpu: undefined, platform: 'efi', vendorClass: 'HTTPClient', source: IANA },
  { code: 19, name: '64-bit ARM UEFI HTTP', boot: 'http-boot', cpu: 'aarch64', platform: 'efi', vendorClass: 'HTTPClient', source: `${IANA}; EDK2 HttpBootDxe on AArch64` },
  { code: 20, name: 'PC/AT BIOS HTTP', boot: 'unsupported', cpu: undefined, platform: 'bios', vendorClass: 'HTTPClient', source: IANA },
  { code: 22, name: '64-bit ARM U-Boot', boot: 'unsupported', cpu: undefined, platform: undefined, vendorClass: 'PXEClient', source: IANA },
  { code: 27, name: 'RISC-V 64-bit UEFI', boot: 'unsupported', cpu: undefined, platform: 'efi', vendorClass: 'PXEClient', source: IANA },
  { code: 39, name: 'LoongArch 64-bit UEFI', boot: 'unsupported', cpu: undefined, platform: 'efi', vendorClass: 'PXEClient', source: IANA },
]; // prettier-ignore

const BY_CODE = new Map(ARCH_ROWS.map((r) => [r.code, r]));

export function archRow(code: number): ArchRow | undefined {
  return BY_CODE.get(code);
}

/** The first code of a list that has a row. */
export function firstKnownArch(codes: readonly number[]): ArchRow | undefined {
  return codes.map(archRow).find((row) => row !== undefined);
}

/** How a log line names an option-93 code: the row's name, or "unknown". */
export function archName(code: number): string {
  return `${BY_CODE.get(code)?.name ?? 'unknown architecture'} (${code})`;
}
