// The first-stage loaders the TFTP server hands out: their TFTP names (what the ProxyDHCP puts in
// `file`, and what a loader asks for next: shim loads `grubx64.efi` from beside itself), where
// Debian's packages install them (the default when PXE_LOADERS_DIR is unset), and what RHEL
// calls them (documentation only: an operator on RHEL links them into PXE_LOADERS_DIR under the
// TFTP names, docs/operator/pxe.md). One row per loader.
// Does NOT: read files (loader-set.ts) or decide which client gets which (dhcp/answer-plan.ts).
export type LoaderRole = 'bios' | 'efi-x64' | 'secure-boot-shim' | 'secure-boot-grub' | 'arm64';

export interface LoaderRow {
  /** The name a client asks for over TFTP. */
  tftpName: string;
  role: LoaderRole;
  /** Debian 12's path and package. */
  debianPath: string;
  debianPackage: string;
  /** RHEL 9's path and package (from the RPMs' file lists), for the documentation. */
  rhelPath: string;
  rhelPackage: string;
  why: string;
}

export const LOADER_ROWS: readonly LoaderRow[] = [
  {
    tftpName: 'undionly.kpxe',
    role: 'bios',
    debianPath: '/usr/lib/ipxe/undionly.kpxe',
    debianPackage: 'ipxe',
    rhelPath: '/usr/share/ipxe/undionly.kpxe',
    rhelPackage: 'ipxe-bootimgs-x86',
    why: "BIOS PXE: iPXE over the ROM's UNDI driver (works on any NIC with a PXE ROM)",
  },
  {
    tftpName: 'ipxe.efi',
    role: 'efi-x64',
    debianPath: '/usr/lib/ipxe/ipxe.efi',
    debianPackage: 'ipxe',
    rhelPath: '/usr/share/ipxe/ipxe-x86_64.efi',
    rhelPackage: 'ipxe-bootimgs-x86',
    why: 'x86-64 UEFI PXE: iPXE with its own NIC drivers (PXE_EFI_LOADER=ipxe.efi, the default)',
  },
  {
    tftpName: 'snponly.efi',
    role: 'efi-x64',
    debianPath: '/usr/lib/ipxe/snponly.efi',
    debianPackage: 'ipxe',
    rhelPath: '/usr/share/ipxe/ipxe-snponly-x86_64.efi',
    rhelPackage: 'ipxe-bootimgs-x86',
    why: "x86-64 UEFI PXE: iPXE over the firmware's own network driver (PXE_EFI_LOADER=snponly.efi)",
  },
  {
    tftpName: 'shimx64.efi',
    role: 'secure-boot-shim',
    debianPath: '/usr/lib/shim/shimx64.efi.signed',
    debianPackage: 'shim-signed',
    rhelPath: '/boot/efi/EFI/redhat/shimx64.efi',
    rhelPackage: 'shim-x64',
    why: 'Secure Boot: Microsoft-signed shim; it loads grubx64.efi from the same TFTP directory',
  },
  {
    tftpName: 'grubx64.efi',
    role: 'secure-boot-grub',
    debianPath: '/usr/lib/grub/x86_64-efi-signed/grubnetx64.efi.signed',
    debianPackage: 'grub-efi-amd64-signed',
    rhelPath: '/boot/efi/EFI/redhat/grubx64.efi',
    rhelPackage: 'grub2-efi-x64',
    why: "Secure Boot: the distribution-signed network GRUB shim verifies; it fetches the host's grub.cfg over TFTP",
  },
];

export function loaderRow(tftpName: string): LoaderRow | undefined {
  return LOADER_ROWS.find((r) => r.tftpName === tftpName);
}
