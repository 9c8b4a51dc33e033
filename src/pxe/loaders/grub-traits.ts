// What the Secure Boot GRUB in the loaders can do on a PXE network, read from its bytes (pure), so
// the start can say at once what would otherwise show only as a host stopped at a GRUB prompt:
//   - whose GRUB it is: the vendor entry of its SBAT section (`.sbat`, shim's revocation CSV:
//     `grub.debian,5,Debian,grub2,2.12-9+deb13u4,…`), for the log line;
//   - whether it reads a ProxyDHCP's answer: upstream GRUB (2.12 too: efinet.c configures the
//     network from the firmware's cached DhcpAck only) takes its TFTP server for grub.cfg from the
//     site DHCP server's next server. Red Hat's patch "efinet: Add DHCP proxy support" (Fedora's and
//     RHEL's grub2) takes server and boot file from the ProxyOffer when the site's answer names no
//     boot file; Debian 13's grub-efi-amd64-signed carries it too (measured 2026-11-28: 2.12-9+deb13u4
//     fetched grub.cfg from bootsmith beside a dnsmasq naming itself; Debian 12's 2.06-13+deb12u2
//     asked the dnsmasq). Found by the patch's debug message in the image, whoever built it;
//   - whether its HTTP module is built in (its request line ` HTTP/1.1\r\nHost: `): under Secure
//     Boot a signed GRUB loads no module from the network (Debian's: "prohibited by secure boot
//     policy"), and the front door's grub.cfg fetches kernel and initrd over HTTP. Debian 12's
//     grubnetx64.efi.signed has none; Debian 13's has it.
// Does NOT: read files (loader-set.ts) or log (pxe-wing.ts says what these mean at start).

/** The debug message of Red Hat's "efinet: Add DHCP proxy support", in every GRUB built with it. */
const PROXY_OFFER_MESSAGE = Buffer.from('setting values from proxy offer', 'latin1');
const HTTP_REQUEST_LINE = Buffer.from(' HTTP/1.1\r\nHost: ', 'latin1');
/** A PE section table entry's size, and the bounds an SBAT section is read within. */
const SECTION_ENTRY_BYTES = 40;
const MAX_SBAT_BYTES = 64 * 1024;

export interface SbatEntry {
  component: string;
  vendorVersion: string;
}

export interface GrubTraits {
  /** The SBAT entries (empty: no readable .sbat section, e.g. an unsigned or pre-2021 GRUB). */
  sbat: SbatEntry[];
  /** The vendor entry, e.g. `grub.debian 2.06-13+deb12u2`, or `grub <version>` when there is only upstream's. */
  vendor: string | undefined;
  readsProxyOffer: boolean;
  hasHttp: boolean;
}

/** The raw bytes of the PE section named `name` (at most MAX_SBAT_BYTES), or undefined. */
function peSection(image: Buffer, name: string): Buffer | undefined {
  if (image.length < 0x40 || image.toString('latin1', 0, 2) !== 'MZ') return undefined;
  const pe = image.readUInt32LE(0x3c);
  if (pe + 24 > image.length || image.toString('latin1', pe, pe + 4) !== 'PE\0\0') return undefined;
  const sections = image.readUInt16LE(pe + 6);
  const table = pe + 24 + image.readUInt16LE(pe + 20);
  for (let i = 0; i < sections; i++) {
    const at = table + i * SECTION_ENTRY_BYTES;
    if (at + SECTION_ENTRY_BYTES > image.length) return undefined;
    if (image.toString('latin1', at, at + 8).replace(/\0+$/, '') !== name) continue;
    const virtualSize = image.readUInt32LE(at + 8);
    const rawSize = image.readUInt32LE(at + 16);
    const offset = image.readUInt32LE(at + 20);
    const size = Math.min(virtualSize || rawSize, rawSize, MAX_SBAT_BYTES);
    return offset + size <= image.length ? image.subarray(offset, offset + size) : undefined;
  }
  return undefined;
}

export function sbatEntries(image: Buffer): SbatEntry[] {
  const section = peSection(image, '.sbat');
  if (!section) return [];
  return section
    .toString('latin1')
    .replace(/\0[\s\S]*$/, '')
    .split('\n')
    .map((line) => line.trim().split(','))
    .filter((f) => f.length >= 5 && /^[\w.-]+$/.test(f[0]!) && f[0] !== 'sbat')
    .map((f) => ({ component: f[0]!, vendorVersion: f[4]! }));
}

export function grubTraits(image: Buffer): GrubTraits {
  const sbat = sbatEntries(image);
  const vendorEntry = sbat.find((e) => e.component.startsWith('grub.')) ?? sbat.find((e) => e.component === 'grub');
  return {
    sbat,
    vendor: vendorEntry && `${vendorEntry.component} ${vendorEntry.vendorVersion}`,
    readsProxyOffer: image.includes(PROXY_OFFER_MESSAGE),
    hasHttp: image.includes(HTTP_REQUEST_LINE),
  };
}

/**
 * What an operator must know about this Secure Boot GRUB, one sentence per problem (none: it
 * reads the ProxyOffer and has HTTP). `name` is how the loader is named in the sentence.
 */
export function grubWarnings(traits: GrubTraits, name: string): string[] {
  const who = traits.vendor ? `${name} (${traits.vendor})` : name;
  const warnings: string[] = [];
  if (!traits.hasHttp)
    warnings.push(
      `${who} has no HTTP module built in and, under Secure Boot, may load none: it cannot fetch the kernel and initrd its grub.cfg names over HTTP. ` +
        "Use a GRUB with http built in: Debian 13's grub-efi-amd64-signed or RHEL's grub2-efi-x64 (docs/operator/pxe.md, Secure Boot through PXE)",
    );
  if (!traits.readsProxyOffer)
    warnings.push(
      `${who} takes its TFTP server from the site DHCP server's answer (next server), not from this ProxyDHCP's: ` +
        "use Debian 13's or RHEL's GRUB, or point the site DHCP server at this server for Secure Boot hosts (bootsmith pxe dhcp-snippet --server dnsmasq|kea|isc --secure-boot-only)",
    );
  if (warnings.length > 0)
    warnings[warnings.length - 1] +=
      '; a site without Secure Boot hosts on PXE sets PXE_SECURE_BOOT=false, which leaves shim and GRUB out';
  return warnings;
}
