// The non-x86 discovery guests (issue 34): per architecture, the qemu program, its firmware, the
// machine, how the CD, NIC and disk attach, the console the fixture's /init reports on, and the
// bootable fixture (fixtures/build-arch-iso.sh, built once per content into .cache/e2e/arch/<arch>).
//
//   aarch64  qemu-system-aarch64 -M virt, AAVMF (qemu-efi-aarch64: AAVMF_CODE.fd + a fresh copy of
//            AAVMF_VARS.fd), virtio-scsi CD, virtio-net-pci, virtio-blk-pci; console ttyAMA0
//   ppc64le  qemu-system-ppc64 -M pseries, SLOF (qemu's slof.bin), the same PCI devices; hvc0
//   s390x    qemu-system-s390x -M s390-ccw-virtio, qemu's s390-ccw BIOS, virtio-scsi-ccw CD,
//            virtio-net-ccw, virtio-blk-ccw; ttysclp0
// Does NOT: start qemu (qemu.ts), start the service (service.ts) or check what booted
// (serial-report.ts, guest-checks.ts).
import { spawnSync } from 'node:child_process';
import { copyFile, truncate, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Cdrom, cdromDrive } from './machine.js';
import { REPO_ROOT } from './paths.js';

export type GuestArch = 'aarch64' | 'ppc64le' | 's390x';

interface ArchMachine {
  qemu: string;
  /** The Debian package that ships `qemu` and the firmware (for messages). */
  packages: string;
  firmwareFiles: string[];
  /** Machine and firmware arguments. */
  machine: (runDir: string, name: string) => Promise<string[]>;
  /** Device models: PCI on aarch64 and ppc64le, channel I/O on s390x. */
  bus: 'pci' | 'ccw';
  /** The kernel's name for the serial console /init reports on. */
  console: string;
}

const AAVMF_CODE = '/usr/share/AAVMF/AAVMF_CODE.fd';
const AAVMF_VARS = '/usr/share/AAVMF/AAVMF_VARS.fd';

export const ARCH_MACHINES: Record<GuestArch, ArchMachine> = {
  aarch64: {
    qemu: 'qemu-system-aarch64',
    packages: 'qemu-system-arm qemu-efi-aarch64',
    firmwareFiles: [AAVMF_CODE, AAVMF_VARS],
    machine: async (runDir, name) => {
      const vars = path.join(runDir, `${name}.AAVMF_VARS.fd`);
      await copyFile(AAVMF_VARS, vars);
      return [
        '-machine',
        'virt',
        '-cpu',
        'cortex-a57',
        '-drive',
        `if=pflash,format=raw,unit=0,readonly=on,file=${AAVMF_CODE}`,
        '-drive',
        `if=pflash,format=raw,unit=1,file=${vars}`,
      ];
    },
    bus: 'pci',
    console: 'ttyAMA0',
  },
  ppc64le: {
    qemu: 'qemu-system-ppc64',
    packages: 'qemu-system-ppc',
    firmwareFiles: ['/usr/share/qemu/slof.bin'],
    machine: () => Promise.resolve(['-machine', 'pseries']),
    bus: 'pci',
    console: 'hvc0',
  },
  s390x: {
    qemu: 'qemu-system-s390x',
    packages: 'qemu-system-misc',
    firmwareFiles: ['/usr/share/qemu/s390-ccw.img'],
    machine: () => Promise.resolve(['-machine', 's390-ccw-virtio']),
    bus: 'ccw',
    console: 'ttysclp0',
  },
};

/** Memory of every arch guest: the fixture initrds unpack to ~60 MiB, the kernels are larger than x86_64's. */
const MEMORY_MIB = 1024;

/** What is missing on this machine to boot `arch` (empty: nothing). */
export function archMissing(arch: GuestArch): Record<string, boolean> {
  const m = ARCH_MACHINES[arch];
  const qemu = spawnSync(m.qemu, ['--version'], { stdio: 'ignore' }).status === 0;
  return {
    [`${m.qemu} (apt-get install ${m.packages})`]: qemu,
    ...Object.fromEntries(m.firmwareFiles.map((f) => [`${f} (apt-get install ${m.packages})`, existsSync(f)])),
  };
}

export interface ArchFixture {
  dir: string;
  iso: string;
  minimalIso: string;
  pxeDir: string;
  buildSeconds: number;
  /** The script's last line (built, or up to date). */
  outcome: string;
}

/** Builds (or finds up to date) the bootable fixture of `arch`: fixtures/build-arch-iso.sh. */
export function buildArchFixture(arch: GuestArch): ArchFixture {
  const dir = path.join(REPO_ROOT, '.cache', 'e2e', 'arch', arch);
  const started = Date.now();
  const r = spawnSync('bash', [path.join(REPO_ROOT, 'fixtures', 'build-arch-iso.sh'), '--arch', arch], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 900_000,
  });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) throw new Error(`fixtures/build-arch-iso.sh --arch ${arch} failed:\n${out}`);
  return {
    dir,
    iso: path.join(dir, `${arch}.iso`),
    minimalIso: path.join(dir, 'minimal.iso'),
    pxeDir: path.join(dir, 'pxe'),
    buildSeconds: (Date.now() - started) / 1000,
    outcome: (r.stdout ?? '').trim().split('\n').at(-1) ?? '',
  };
}

export interface ArchGuestOptions {
  cdrom?: Cdrom;
  /** A NIC on qemu's user network with this MAC. */
  mac?: string;
  /**
   * Network boot from that NIC (needs `mac`): qemu's user network answers DHCP with `bootfile`
   * and serves `dir` over TFTP at 10.0.2.2, where the firmware's PXE fetches the loader.
   */
  tftp?: { dir: string; bootfile: string };
  /** A blank sparse disk of this many GiB. */
  diskGB?: number;
  /** Direct kernel boot (s390x's PXE-style kernel + initrd + parmfile). */
  kernel?: { kernel: string; initrd: string; append: string };
}

/** Every argument of an `arch` guest but those bootGuest adds (qemu.ts). */
export async function archGuestArgs(
  arch: GuestArch,
  runDir: string,
  name: string,
  options: ArchGuestOptions,
): Promise<string[]> {
  const m = ARCH_MACHINES[arch];
  const dev = (model: string): string => `${model}-${m.bus}`;
  const args = [...(await m.machine(runDir, name)), '-m', String(MEMORY_MIB)];
  if (options.cdrom) {
    args.push('-device', `${dev('virtio-scsi')},id=scsi0`, '-drive', cdromDrive(options.cdrom));
    args.push('-device', `scsi-cd,bus=scsi0.0,drive=cd0${options.kernel ? '' : ',bootindex=0'}`);
  }
  if (options.kernel) {
    args.push('-kernel', options.kernel.kernel, '-initrd', options.kernel.initrd, '-append', options.kernel.append);
  }
  if (options.mac) {
    const tftp = options.tftp ? `,tftp=${options.tftp.dir},bootfile=${options.tftp.bootfile}` : '';
    args.push('-netdev', `user,id=n0${tftp}`, '-device', `${dev('virtio-net')},netdev=n0,mac=${options.mac}`);
    if (m.bus === 'pci') args[args.length - 1] += ',romfile=';
    if (options.tftp) args[args.length - 1] += ',bootindex=0';
  } else {
    args.push('-nic', 'none');
  }
  if (options.diskGB) {
    const disk = path.join(runDir, `${name}.disk.img`);
    await writeFile(disk, '');
    await truncate(disk, options.diskGB * 1024 ** 3);
    args.push('-drive', `if=none,id=disk0,format=raw,file=${disk}`, '-device', `${dev('virtio-blk')},drive=disk0`);
  }
  return args;
}
