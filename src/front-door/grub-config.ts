// The grub.cfg a host's signed network GRUB loads (over TFTP through the PXE wing's port, or over
// HTTP from /pxe/grub.cfg): its InfraEnv's kernel and Ignition-carrying pxe-initrd over HTTP from
// the plain listener, the live boot's kernel arguments (rootfs URL, the fixed ones, the
// InfraEnv's), as the image's own PXE boot has them. GRUB reads files over HTTP as
// `(http,HOST:PORT)/path` (its network drive syntax); each path is double-quoted, since a query
// holds `&`, which GRUB's lexer takes for syntax outside quotes. The kernel and initrd names are
// the image side's URLs (/boot-artifacts/kernel serves whatever file the image's layout names
// for its architecture: src/iso/live-layout.ts), not assumed here.
// Also: the config of a host that must not boot discovery (exit: firmware boots its next device)
// and of an unmatched one (says why, waits, reboots to ask again: never a tight loop).
// Does NOT: decide (./front-door.ts) or check kernel arguments (the core refused unsafe ones).
import { FrontDoorInputError } from './host-identity.js';

export interface GrubBoot {
  title: string;
  kernel: string;
  initrd: string;
  kernelArguments: string;
}

/** `(http,HOST:PORT)/path?query` of an http URL (GRUB has no https); a FrontDoorInputError for anything else. */
export function grubHttpPath(url: string): string {
  const u = new URL(url);
  if (u.protocol !== 'http:') throw new FrontDoorInputError(`GRUB fetches over plain HTTP only, not ${u.protocol}`);
  const port = u.port === '' ? '80' : u.port;
  return `(http,${u.hostname}:${port})${u.pathname}${u.search}`;
}

/** Text inside a GRUB single-quoted word: no quote, printable ASCII. */
function grubLiteral(text: string): string {
  return text.replace(/[^\x20-\x7e]|'/g, ' ').slice(0, 120);
}

function quoted(path: string): string {
  if (/["\\$]/.test(path)) throw new FrontDoorInputError('a boot URL holds a character GRUB would interpret');
  return `"${path}"`;
}

export function grubBootConfig(boot: GrubBoot): string {
  return [
    'set timeout=0',
    'set default=0',
    `menuentry '${grubLiteral(boot.title)}' {`,
    `  echo '${grubLiteral(`bootsmith: loading ${boot.title}`)}'`,
    `  linux ${quoted(grubHttpPath(boot.kernel))} ${boot.kernelArguments}`,
    `  initrd ${quoted(grubHttpPath(boot.initrd))}`,
    '}',
    '',
  ].join('\n');
}

export function grubSkipConfig(reason: string): string {
  return [
    `echo '${grubLiteral(`bootsmith: ${reason}`)}'`,
    "echo 'bootsmith: continuing with the next boot device'",
    'exit',
    '',
  ].join('\n');
}

export function grubWaitConfig(reason: string, retrySeconds: number): string {
  return [
    `echo '${grubLiteral(`bootsmith: ${reason}`)}'`,
    `echo 'bootsmith: rebooting to ask again in ${retrySeconds} seconds'`,
    `sleep ${retrySeconds}`,
    'reboot',
    '',
  ].join('\n');
}
