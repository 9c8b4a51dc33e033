// A minimal newc ("070701") cpio writer for the core's small archives.
//
// Used to size the discovery Ignition as it will be embedded (gzip of a cpio
// holding config.ign) and to build the minimal-initrd with NetworkManager
// keyfiles. Writes regular files and directories only; no hard links, no reading.
import { gzipSync } from 'node:zlib';

export interface CpioEntry {
  name: string;
  /** Undefined for a directory. */
  data?: Buffer;
  mode?: number;
}

function pad4(n: number): number {
  return (4 - (n % 4)) % 4;
}

function header(ino: number, mode: number, size: number, nameLength: number): string {
  const hex = (v: number) => v.toString(16).padStart(8, '0');
  // magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor, rdevminor, namesize, check
  return '070701' + [ino, mode, 0, 0, 1, 0, size, 0, 0, 0, 0, nameLength, 0].map(hex).join('');
}

export function writeNewc(entries: readonly CpioEntry[]): Buffer {
  const parts: Buffer[] = [];
  let ino = 1;
  const push = (name: string, mode: number, data: Buffer) => {
    const nameBuf = Buffer.from(`${name}\0`, 'utf8');
    const head = Buffer.from(header(ino++, mode, data.length, nameBuf.length), 'ascii');
    parts.push(head, nameBuf, Buffer.alloc(pad4(head.length + nameBuf.length)), data, Buffer.alloc(pad4(data.length)));
  };
  for (const e of entries) {
    if (e.data === undefined) push(e.name, 0o040000 | (e.mode ?? 0o755), Buffer.alloc(0));
    else push(e.name, 0o100000 | (e.mode ?? 0o644), e.data);
  }
  push('TRAILER!!!', 0, Buffer.alloc(0));
  return Buffer.concat(parts);
}

/** The bytes an embed area must hold for this Ignition: gzip(newc(config.ign)). */
export function embeddedIgnitionSize(ignition: Buffer): number {
  return gzipSync(writeNewc([{ name: 'config.ign', data: ignition }])).length;
}
