// Reading ISOs with xorriso, a reader independent of bootsmith's own, so expectations do not
// come from the code under test; and the small disk the iPXE case falls through to.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

function xorriso(args: string[]): string {
  const r = spawnSync('xorriso', ['-abort_on', 'FAILURE', ...args], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`xorriso ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  return r.stdout;
}

/** The bytes of one file of an ISO (`/images/pxeboot/rootfs.img`), or undefined when absent. */
export async function isoExtract(iso: string, file: string): Promise<Buffer | undefined> {
  if (isoExtent(iso, file) === undefined) return undefined;
  const dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-e2e-extract-'));
  try {
    const out = path.join(dir, 'out');
    xorriso(['-osirrox', 'on', '-indev', iso, '-extract', file, out]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Byte offset and size of one file's data in the ISO, from xorriso's `report_lba`. */
export function isoExtent(iso: string, file: string): { offset: number; size: number } | undefined {
  const r = spawnSync('xorriso', ['-indev', iso, '-find', file, '-exec', 'report_lba', '--'], { encoding: 'utf8' });
  // File data lba:  0 ,       64 ,      128 ,   262144 , '/images/ignition.img'
  const m = /File data lba:\s*\d+\s*,\s*(\d+)\s*,\s*\d+\s*,\s*(\d+)\s*,\s*'([^']*)'/.exec(r.stdout);
  if (!m || m[3] !== file) return undefined;
  return { offset: Number(m[1]) * 2048, size: Number(m[2]) };
}

/** The ISO path of the file whose data holds byte `offset`, or undefined (free space, metadata). */
export function isoFileAt(iso: string, offset: number): string | undefined {
  const r = spawnSync('xorriso', ['-indev', iso, '-find', '/', '-type', 'f', '-exec', 'report_lba', '--'], {
    encoding: 'utf8',
  });
  for (const m of r.stdout.matchAll(/File data lba:\s*\d+\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*\d+\s*,\s*'([^']*)'/g)) {
    const start = Number(m[1]) * 2048;
    if (offset >= start && offset < start + Number(m[2]) * 2048) return m[3];
  }
  return undefined;
}

/**
 * A 1 MiB raw disk whose MBR boot code prints `BOOTSMITH-E2E DISK ...` on COM1 and leaves qemu
 * through isa-debug-exit (port 0xf4, value 0x2a: qemu exits with status 0x2a * 2 + 1 = 85).
 * 16-bit code: xor ax,ax; mov ds,ax; cld; mov si,msg; mov dx,0x3f8;
 *   l: lodsb; test al,al; jz d; out dx,al; jmp l;  d: mov dx,0xf4; mov al,0x2a; out dx,al; hlt; jmp $-1
 */
export const DISK_MARKER = 'BOOTSMITH-E2E DISK booted from the local disk';
export const DISK_EXIT_STATUS = 85;
export function diskImage(): Buffer {
  const code = Buffer.from('31c08ed8fcbe1c7cbaf803ac84c07403eeebf8baf400b02aeef4ebfd', 'hex');
  const msg = Buffer.from(`\r\n${DISK_MARKER}\r\n\0`, 'latin1');
  const disk = Buffer.alloc(1024 * 1024);
  code.copy(disk, 0);
  msg.copy(disk, code.length); // code.length = 0x1c, the `mov si` target 0x7c1c
  disk[510] = 0x55;
  disk[511] = 0xaa;
  return disk;
}
