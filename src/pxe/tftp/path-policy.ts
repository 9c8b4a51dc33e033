// Which TFTP file names the server answers, pure. Nothing is looked up on disk by name: the
// loaders are a fixed set held in memory (loaders/loader-set.ts) and GRUB configurations are
// made per request, so a name is matched, never opened. Still, a name that climbs out of the root
// (`..`), carries control characters or is longer than a path a firmware sends is an access
// violation (error 2), as the issue asks of "a path outside the loaders".
//
// Names: a loader by its exact TFTP name, with or without a leading `/` (`\` read as `/`, as
// Windows-era PXE clients send it); a GRUB configuration by its file name in any directory GRUB
// prefixes it with (`/grub/grub.cfg`, `/grub/x86_64-efi/grub.cfg`, RHEL's `grub.cfg` beside
// grubx64.efi):
//   grub.cfg                     → the stub that sends GRUB on to its own file by MAC
//   grub.cfg-<mac with colons>   → that host's grub.cfg (the stub's request: GRUB's ${net_default_mac})
//   grub.cfg-01-<mac with dashes>→ that host's grub.cfg (GRUB's and pxelinux's own per-MAC search)
// Other `grub.cfg-…` names (GRUB's search by the client's address in hex) are not found, quickly,
// so GRUB moves on down its list.
// Does NOT: read files or produce a grub.cfg (tftp-server.ts asks the front door's port).

/** Longer names than a firmware's path field holds (PXE's `file` is 128 bytes; GRUB's paths are short). */
export const MAX_TFTP_NAME_BYTES = 255;
/** Directories deep enough for GRUB's `$prefix/$platform/grub.cfg`; deeper is not a path a loader asks for. */
const MAX_SEGMENTS = 5;

export type NameResolution =
  | { kind: 'loader'; name: string }
  | { kind: 'grub-stub' }
  | { kind: 'grub-host'; mac: string }
  | { kind: 'not-found'; why: string }
  | { kind: 'refused'; why: string };

const MAC_COLONS = /^grub\.cfg-([0-9a-f]{2}(?::[0-9a-f]{2}){5})$/i;
const MAC_PXELINUX = /^grub\.cfg-01-([0-9a-f]{2}(?:-[0-9a-f]{2}){5})$/i;

export function resolveTftpName(fileName: string, loaderNames: ReadonlySet<string>): NameResolution {
  if (fileName.length === 0) return { kind: 'refused', why: 'an empty file name' };
  if (Buffer.byteLength(fileName, 'latin1') > MAX_TFTP_NAME_BYTES)
    return { kind: 'refused', why: `a file name longer than ${MAX_TFTP_NAME_BYTES} bytes` };
  if (/[^\x21-\x7e]/.test(fileName)) return { kind: 'refused', why: 'a file name with spaces or control characters' };
  const segments = fileName.replaceAll('\\', '/').split('/');
  if (segments.includes('..')) return { kind: 'refused', why: 'a path outside the loaders (..)' };
  const path = segments.filter((s) => s !== '' && s !== '.');
  if (path.length === 0) return { kind: 'refused', why: 'a directory, not a file' };
  if (path.length > MAX_SEGMENTS) return { kind: 'not-found', why: `a path of ${path.length} segments` };
  const base = path.at(-1)!;
  if (path.length === 1 && loaderNames.has(base)) return { kind: 'loader', name: base };
  if (base === 'grub.cfg') return { kind: 'grub-stub' };
  const colons = MAC_COLONS.exec(base);
  if (colons) return { kind: 'grub-host', mac: colons[1]!.toLowerCase() };
  const dashes = MAC_PXELINUX.exec(base);
  if (dashes) return { kind: 'grub-host', mac: dashes[1]!.toLowerCase().replaceAll('-', ':') };
  return { kind: 'not-found', why: 'no such loader or GRUB configuration' };
}

/**
 * The generic grub.cfg: GRUB reads `grub.cfg` from its prefix first (Debian's signed network GRUB
 * looks for `$prefix/x86_64-efi/grub.cfg`, then `$prefix/grub.cfg`, with `$prefix` = `/grub` on the
 * TFTP server), and this sends it on to the file named by its own MAC (`net_default_mac`, set by
 * GRUB's network stack on the interface it booted from).
 */
export const GRUB_STUB_CONFIG = [
  '# bootsmith: each host boots from its own grub.cfg, named by its MAC address',
  'configfile "${prefix}/grub.cfg-${net_default_mac}"',
  '',
].join('\n');
