// qemu machines for the discovery guests: firmware (SeaBIOS, OVMF, OVMF with Secure Boot
// enforced), the CD (an ISO file, or an http(s):// URL through qemu's curl block driver, as a BMC
// reads virtual media), a NIC on qemu's user network (the guest reaches the host's loopback as
// 10.0.2.2), a blank disk for the inventory, and the DMI UUID the guest registers with.
// Reusable: each call returns qemu arguments and writes its files to `<runDir>/<name>.*`.
// Does NOT: start qemu (qemu.ts) or check what booted (serial-report.ts, guest-checks.ts).
import { copyFile, truncate, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Debian's OVMF (package ovmf): the Secure Boot build with Microsoft's keys enrolled, and the plain build. */
export const OVMF = {
  secureBootCode: '/usr/share/OVMF/OVMF_CODE_4M.ms.fd',
  secureBootVars: '/usr/share/OVMF/OVMF_VARS_4M.ms.fd',
  code: '/usr/share/OVMF/OVMF_CODE_4M.fd',
  vars: '/usr/share/OVMF/OVMF_VARS_4M.fd',
};
export const HAVE_OVMF = Object.values(OVMF).every((f) => existsSync(f));

export type Firmware = 'bios' | 'uefi' | 'uefi-secure-boot';

/** A CD: an ISO on disk, or a URL qemu's curl driver reads with HEAD and Range GETs. */
export type Cdrom = { file: string } | { url: string; sslverify?: boolean };

export interface MachineOptions {
  firmware: Firmware;
  cdrom?: Cdrom;
  /** A NIC on qemu's user network with this MAC (romfile off: no iPXE option ROM). */
  mac?: string;
  /** A blank disk of this many GiB (a sparse file; nothing is allocated). */
  diskGB?: number;
  /** The DMI system UUID (the guest's host id). */
  uuid?: string;
}

/** The firmware's own arguments; OVMF's variable store is a fresh copy per machine. */
export async function firmwareArgs(runDir: string, name: string, firmware: Firmware): Promise<string[]> {
  if (firmware === 'bios') return [];
  const secure = firmware === 'uefi-secure-boot';
  const vars = path.join(runDir, `${name}.OVMF_VARS.fd`);
  await copyFile(secure ? OVMF.secureBootVars : OVMF.vars, vars);
  return [
    // Secure Boot needs SMM and a flash only SMM may write, or the OS could rewrite the keys.
    ...(secure
      ? ['-machine', 'q35,smm=on', '-global', 'driver=cfi.pflash01,property=secure,value=on']
      : ['-machine', 'q35']),
    '-drive',
    `if=pflash,format=raw,unit=0,readonly=on,file=${secure ? OVMF.secureBootCode : OVMF.code}`,
    '-drive',
    `if=pflash,format=raw,unit=1,file=${vars}`,
  ];
}

/** The -drive value of a CD (id cd0): a file, or a URL through the curl block driver (commas doubled). */
export function cdromDrive(cdrom: Cdrom): string {
  const source =
    'file' in cdrom
      ? `file=${cdrom.file.replaceAll(',', ',,')}`
      : `file.driver=${cdrom.url.startsWith('https:') ? 'https' : 'http'},` +
        (cdrom.url.startsWith('https:') ? `file.sslverify=${cdrom.sslverify === false ? 'off' : 'on'},` : '') +
        `file.url=${cdrom.url.replaceAll(',', ',,')}`;
  return `if=none,id=cd0,media=cdrom,readonly=on,driver=raw,${source}`;
}

/** qemu's -drive and IDE -device for a CD. */
export function cdromArgs(cdrom: Cdrom): string[] {
  return ['-drive', cdromDrive(cdrom), '-device', 'ide-cd,drive=cd0,bootindex=0'];
}

/** Every argument of a discovery guest (see MachineOptions). */
export async function machineArgs(runDir: string, name: string, options: MachineOptions): Promise<string[]> {
  const args = await firmwareArgs(runDir, name, options.firmware);
  if (options.cdrom) args.push(...cdromArgs(options.cdrom));
  if (options.mac) {
    args.push('-netdev', 'user,id=n0', '-device', `virtio-net-pci,netdev=n0,mac=${options.mac},romfile=`);
  } else {
    args.push('-nic', 'none');
  }
  if (options.diskGB) {
    // A sparse raw file: no block is allocated until the guest writes (it never does).
    const disk = path.join(runDir, `${name}.disk.img`);
    await writeFile(disk, '');
    await truncate(disk, options.diskGB * 1024 ** 3);
    args.push('-drive', `if=virtio,format=raw,file=${disk}`);
  }
  if (options.uuid) args.push('-uuid', options.uuid);
  return args;
}
