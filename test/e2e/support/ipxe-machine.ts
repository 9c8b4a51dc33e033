// The qemu machine of the iPXE boots: qemu's own iPXE ROM (ipxe-qemu: efi-virtio.rom holds both
// the BIOS and the EFI build) on a virtio NIC with user networking. DHCP hands it boot.ipxe over
// slirp's TFTP (a BOOTP file name holds 127 characters, too few for the service's URLs), which
// chains to `chainUrl` (or is the test's own `script`).
// BIOS (SeaBIOS): a disk with the stub MBR (iso-tools diskImage) comes after the network in the
// boot order, and SeaBIOS's serial console (fw_cfg etc/sercon-port) puts iPXE's own messages in
// the serial log. UEFI (OVMF without Secure Boot: iPXE's EFI build is not signed): the NIC is the
// first boot device; iPXE's EFI driver runs the script.
// Does NOT: start qemu (qemu.ts) or check what booted.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NIC_MAC } from './infraenv.js';
import { diskImage } from './iso-tools.js';
import { firmwareArgs } from './machine.js';

/** qemu arguments for an iPXE boot of `target` (a URL to chain to, or a whole script); files go to `<runDir>/<name>.*`. */
export async function ipxeMachine(
  runDir: string,
  name: string,
  target: string | { script: string },
  firmware: 'bios' | 'uefi' = 'bios',
): Promise<string[]> {
  const tftp = path.join(runDir, `${name}.tftp`);
  await mkdir(tftp, { recursive: true });
  await writeFile(
    path.join(tftp, 'boot.ipxe'),
    typeof target === 'string'
      ? `#!ipxe\necho bootsmith e2e: chaining to ${target.split('?')[0]}\nchain ${target}\n`
      : target.script,
  );
  const netdev = ['-netdev', `user,id=n0,tftp=${tftp},bootfile=boot.ipxe`];
  if (firmware === 'uefi') {
    return [
      ...(await firmwareArgs(runDir, name, 'uefi')),
      ...netdev,
      '-device',
      `virtio-net-pci,netdev=n0,mac=${NIC_MAC},bootindex=0`,
    ];
  }
  const disk = path.join(runDir, `${name}.disk.img`);
  await writeFile(disk, diskImage());
  const sercon = path.join(runDir, `${name}.sercon-port.bin`);
  await writeFile(sercon, Buffer.from([0xf8, 0x03])); // 0x3f8, COM1
  return [
    '-boot',
    'order=nc',
    ...netdev,
    '-device',
    `virtio-net-pci,netdev=n0,mac=${NIC_MAC}`,
    '-drive',
    `file=${disk},format=raw,if=ide,snapshot=on`,
    '-device',
    'isa-debug-exit,iobase=0xf4,iosize=0x04',
    '-fw_cfg',
    `name=etc/sercon-port,file=${sercon}`,
  ];
}
