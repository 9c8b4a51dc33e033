// The configuration a site that keeps its own DHCP server adds so that every host reaches the
// front door: firmware PXE clients are handed iPXE over TFTP (from the site's TFTP server, or the
// PXE wing's), and iPXE's own DHCP request, told apart by its user class `iPXE` (option 77;
// option 175 on dnsmasq as well), is handed boot.ipxe's HTTP URL instead of iPXE again: that is
// what breaks the chain-loading loop. Option 93 picks the loader: 7 and 9 (x86-64 UEFI) →
// ipxe.efi, 11 (arm64 UEFI) → the arm64 loader, anything else → undionly.kpxe (BIOS).
// Rendered for dnsmasq, Kea (a client-classes list for the Dhcp4 object), ISC dhcpd and a
// Tinkerbell Hardware (whose `ipxe.url` smee hands iPXE). `bootsmith pxe dhcp-snippet` prints
// these for the running service's addresses (GET /api/bootsmith/v1/pxe/dhcp-snippet);
// docs/operator/pxe.md shows them; dhcp-snippets.root.test.ts runs the dnsmasq one.
//
// Secure Boot hosts (the front door's assignments with secure_boot, by MAC) get lines of their
// own for dnsmasq, Kea and ISC: shimx64.efi with next-server = the TFTP server. Signed GRUBs
// without Red Hat's ProxyDHCP patch (upstream 2.12 builds, Debian 12's) take their TFTP server for
// grub.cfg from the site server's answer (siaddr), never from a ProxyDHCP's, so beside bootsmith's
// ProxyDHCP the site server must name bootsmith for those hosts: `secureBootOnly` prints just
// those lines (docs/operator/pxe.md, "Secure Boot through PXE").
// Does NOT: configure address pools (the site's own), or HTTP Boot clients (no HTTP loader yet).
import { FrontDoorInputError } from './host-identity.js';

export const DHCP_SERVERS = ['dnsmasq', 'kea', 'isc', 'tinkerbell'] as const;
export type DhcpServer = (typeof DHCP_SERVERS)[number];

export interface SnippetAddresses {
  /** The front door's boot.ipxe URL (plain http: iPXE builds may lack TLS). */
  bootUrl: string;
  /** The TFTP server holding the loaders (an IPv4 address). */
  tftpServer: string;
  /** Loader names on that TFTP server. */
  loaders?: { bios?: string; efiX64?: string; efiArm64?: string; secureBoot?: string };
  /** MACs of the hosts marked for Secure Boot: they get the shim, with next-server = `tftpServer`. */
  secureBootMacs?: readonly string[];
  /** Only the Secure Boot hosts' lines: for a site where bootsmith's ProxyDHCP answers the others. */
  secureBootOnly?: boolean;
}

/** A dnsmasq tag, Kea class and ISC host-name prefix of the Secure Boot hosts' lines. */
const SECURE_BOOT_TAG = 'bootsmith-secure-boot';

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const LOADER = /^[A-Za-z0-9._/-]{1,128}$/;
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;

function checked(
  a: SnippetAddresses,
): Required<SnippetAddresses> & { loaders: Required<NonNullable<SnippetAddresses['loaders']>> } {
  let url: URL;
  try {
    url = new URL(a.bootUrl);
  } catch {
    throw new FrontDoorInputError('the boot URL must be an absolute http URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FrontDoorInputError('the boot URL must be http(s)');
  if (/["'\s;\\]/.test(a.bootUrl))
    throw new FrontDoorInputError('the boot URL holds a quote, space, semicolon or backslash');
  if (!IPV4.test(a.tftpServer)) throw new FrontDoorInputError('the TFTP server must be an IPv4 address');
  const loaders = {
    bios: a.loaders?.bios ?? 'undionly.kpxe',
    efiX64: a.loaders?.efiX64 ?? 'ipxe.efi',
    efiArm64: a.loaders?.efiArm64 ?? 'snp-arm64.efi',
    secureBoot: a.loaders?.secureBoot ?? 'shimx64.efi',
  };
  for (const name of Object.values(loaders))
    if (!LOADER.test(name)) throw new FrontDoorInputError(`loader names are file names, not ${JSON.stringify(name)}`);
  const secureBootMacs = [...new Set(a.secureBootMacs ?? [])];
  for (const mac of secureBootMacs)
    if (!MAC.test(mac))
      throw new FrontDoorInputError(`Secure Boot hosts are MACs such as 52:54:00:12:34:56, not ${JSON.stringify(mac)}`);
  return {
    bootUrl: url.href,
    tftpServer: a.tftpServer,
    loaders,
    secureBootMacs,
    secureBootOnly: a.secureBootOnly === true,
  };
}

export function dhcpSnippet(server: DhcpServer, addresses: SnippetAddresses): string {
  const a = checked(addresses);
  switch (server) {
    case 'dnsmasq':
      return dnsmasq(a);
    case 'kea':
      return kea(a);
    case 'isc':
      return isc(a);
    case 'tinkerbell':
      if (a.secureBootOnly)
        throw new FrontDoorInputError('tinkerbell has no Secure Boot lines: its smee hands out iPXE, not shim');
      return tinkerbell(a);
  }
}

/** The comment above the Secure Boot hosts' lines, each line starting with `comment`. */
function secureBootWhy(comment: string, macs: readonly string[]): string[] {
  return [
    "Secure Boot hosts: shim, then signed GRUB, which fetches grub.cfg from this server's next server",
    "(GRUBs without Red Hat's ProxyDHCP patch ignore a ProxyDHCP's), so for them it is bootsmith",
    ...(macs.length > 0
      ? []
      : ['no host is marked for Secure Boot yet (bootsmith pxe assign MAC --infra-env ID --secure-boot)']),
  ].map((line) => `${comment} ${line}`);
}

type Checked = ReturnType<typeof checked>;

function dnsmasq({ bootUrl, tftpServer, loaders, secureBootMacs, secureBootOnly }: Checked): string {
  const sb = secureBootMacs.length > 0;
  const secureBoot = [
    ...secureBootWhy('#', secureBootMacs),
    ...secureBootMacs.map((mac) => `dhcp-mac=set:${SECURE_BOOT_TAG},${mac}`),
    ...(sb ? [`dhcp-boot=tag:${SECURE_BOOT_TAG},tag:efi-x64,tag:!ipxe,${loaders.secureBoot},,${tftpServer}`] : []),
  ].join('\n');
  if (secureBootOnly)
    return `# bootsmith PXE front door, Secure Boot hosts only (beside bootsmith's ProxyDHCP; add to the site's dnsmasq)
dhcp-match=set:efi-x64,option:client-arch,7
dhcp-match=set:efi-x64,option:client-arch,9
${secureBoot}
`;
  const notSb = sb ? `tag:!${SECURE_BOOT_TAG},` : '';
  return `# bootsmith PXE front door (add beside the dhcp-range of the site's dnsmasq)
# iPXE's own request (user class iPXE, or option 175) gets the front door, never the loader again
dhcp-userclass=set:ipxe,iPXE
dhcp-match=set:ipxe,175
dhcp-match=set:efi-x64,option:client-arch,7
dhcp-match=set:efi-x64,option:client-arch,9
dhcp-match=set:efi-arm64,option:client-arch,11
dhcp-boot=tag:ipxe,${bootUrl}
dhcp-boot=tag:!ipxe,${notSb}tag:efi-x64,${loaders.efiX64},,${tftpServer}
dhcp-boot=tag:!ipxe,tag:efi-arm64,${loaders.efiArm64},,${tftpServer}
dhcp-boot=tag:!ipxe,tag:!efi-x64,tag:!efi-arm64,${loaders.bios},,${tftpServer}
${sb ? `${secureBoot}\n` : ''}`;
}

const KEA_EFI_X64 = '(option[93].hex == 0x0007 or option[93].hex == 0x0009)';

function kea({ bootUrl, tftpServer, loaders, secureBootMacs, secureBootOnly }: Checked): string {
  const sb = secureBootMacs.length > 0;
  const secureBoot = sb
    ? [
        {
          name: SECURE_BOOT_TAG,
          test: `${KEA_EFI_X64} and (${secureBootMacs.map((m) => `hexstring(pkt4.mac, ':') == '${m}'`).join(' or ')})`,
          'next-server': tftpServer,
          'boot-file-name': loaders.secureBoot,
        },
      ]
    : [];
  const why = secureBootWhy('//', secureBootMacs).join('\n');
  if (secureBootOnly)
    return `// bootsmith PXE front door, Secure Boot hosts only (beside bootsmith's ProxyDHCP): the site's Kea "client-classes"
${why}
${JSON.stringify({ 'client-classes': secureBoot }, null, 2)}
`;
  const classes = [
    ...secureBoot,
    { name: 'ipxe', test: "substring(option[77].hex,0,4) == 'iPXE'", 'boot-file-name': bootUrl },
    {
      name: 'pxe-efi-x64',
      test: `not member('ipxe') and ${sb ? `not member('${SECURE_BOOT_TAG}') and ` : ''}${KEA_EFI_X64}`,
      'next-server': tftpServer,
      'boot-file-name': loaders.efiX64,
    },
    {
      name: 'pxe-efi-arm64',
      test: "not member('ipxe') and option[93].hex == 0x000b",
      'next-server': tftpServer,
      'boot-file-name': loaders.efiArm64,
    },
    {
      name: 'pxe-bios',
      test: "not member('ipxe') and option[93].hex == 0x0000",
      'next-server': tftpServer,
      'boot-file-name': loaders.bios,
    },
  ];
  return `// bootsmith PXE front door: the "client-classes" of the site's Kea "Dhcp4" object
${sb ? `${why}\n` : ''}${JSON.stringify({ 'client-classes': classes }, null, 2)}
`;
}

function isc({ bootUrl, tftpServer, loaders, secureBootMacs, secureBootOnly }: Checked): string {
  // A host declaration's statements outrank the global and subnet ones below.
  const secureBoot = [
    ...secureBootWhy('#', secureBootMacs),
    ...secureBootMacs.map(
      (mac) => `host ${SECURE_BOOT_TAG}-${mac.replaceAll(':', '')} {
  hardware ethernet ${mac};
  next-server ${tftpServer};
  filename "${loaders.secureBoot}";
}`,
    ),
  ].join('\n');
  if (secureBootOnly)
    return `# bootsmith PXE front door, Secure Boot hosts only (beside bootsmith's ProxyDHCP; ISC dhcpd)
${secureBoot}
`;
  return `# bootsmith PXE front door (ISC dhcpd: top level, or inside the subnet of the PXE hosts)
option client-arch code 93 = unsigned integer 16;
if exists user-class and option user-class = "iPXE" {
  filename "${bootUrl}";
} elsif option client-arch = 7 or option client-arch = 9 {
  next-server ${tftpServer};
  filename "${loaders.efiX64}";
} elsif option client-arch = 11 {
  next-server ${tftpServer};
  filename "${loaders.efiArm64}";
} else {
  next-server ${tftpServer};
  filename "${loaders.bios}";
}
${secureBootMacs.length > 0 ? `${secureBoot}\n` : ''}`;
}

function tinkerbell({ bootUrl }: Checked): string {
  return `# bootsmith PXE front door: in each Tinkerbell Hardware, smee hands iPXE this script
spec:
  interfaces:
    - netboot:
        allowPXE: true
        ipxe:
          url: "${bootUrl}"
`;
}
