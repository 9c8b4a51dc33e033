// aarch64 discovery boots (issue 34):
//   1. the spliced full ISO read from its /byid URL by qemu's curl block driver; AAVMF
//      (qemu-efi-aarch64) → Debian's signed CD GRUB from images/efiboot.img → the kargs area of
//      EFI/fedora/grub.cfg; Debian's aarch64 kernel unpacks the archive spliced into
//      images/ignition.img;
//   2. network boot, as CoreOS's own PXE tests do it on aarch64: AAVMF's PXE gets grubaa64.efi
//      (Debian's signed grubnetaa64.efi, unpacked from grub-efi-arm64-signed, never installed)
//      over TFTP from qemu's user network; GRUB reads /grub/grub.cfg, which sources the NIC's
//      own (grub.cfg-<mac>, by GRUB's $net_default_mac): the one src/boot-scripts/grub-config.ts
//      renders for the InfraEnv from the service's own iPXE script (the same URLs, kernel
//      arguments and aarch64 consoles); GRUB fetches the kernel and the pxe-initrd (base initrd +
//      appended Ignition) from the service over HTTP (Debian's grubnetaa64.efi has no `http`
//      module built in: the grub.cfg's `insmod http` loads grub-efi-arm64-bin's from the TFTP
//      prefix, as an unsigned module may be without Secure Boot). The InfraEnv (created as
//      `arm64`) sets no console: the aarch64 ones come from the script. GRUB re-quotes the spaced
//      argument; compared as the kernel parsed it. Guest 70.7 s at load 16–19 (2026-11-28).
// Both: the real Ignition of aarch64 applies the served config; the guest registers as aarch64
// (test/e2e/support/arch-boot-suite.ts). Fixture: fixtures/build-arch-iso.sh --arch aarch64.
import { spawnSync } from 'node:child_process';
import { copyFile, cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { grubBootConfig } from '../../src/boot-scripts/grub-config.js';
import { archBootSuite, expectArchDiscovery, expectRegisteredHost } from './support/arch-boot-suite.js';
import { createInfraEnv, NIC_MAC } from './support/infraenv.js';
import { kargValues, parseSerialReport } from './support/serial-report.js';
import { API } from './support/service.js';
import { REPO_ROOT } from './support/paths.js';

/** Where fixtures/build-arch-iso.sh keeps the arm64 packages it downloaded (grub-efi-arm64-signed among them). */
const ARM64_DEBS = path.join(REPO_ROOT, '.cache', 'e2e', 'debs', 'arm64');
const NETBOOT_GRUB = 'usr/lib/grub/arm64-efi-signed/grubnetaa64.efi.signed';
/**
 * Debian's network GRUB (prefix /grub) reads only $prefix/grub.cfg (its memdisk config sources it;
 * no search by MAC or address), so that file picks the host's own by GRUB's $net_default_mac.
 */
const GRUB_STUB = ['grub/grub.cfg', 'source "$prefix/grub.cfg-$net_default_mac"\n'] as const;
const GRUB_CFG = `grub/grub.cfg-${NIC_MAC}`;

archBootSuite('aarch64', (suite) => {
  it('network boot: AAVMF PXE → grubaa64.efi over TFTP → the grub.cfg of its MAC → kernel + pxe-initrd over HTTP; Ignition of aarch64 applies; registers as aarch64', async (t) => {
    const service = suite.service();
    const runDir = suite.ctx().runDir;
    const env = await createInfraEnv(service, {
      name: 'e2e-aarch64-netboot',
      cpuArchitecture: 'arm64', // upstream's other spelling: stored and served as aarch64
      kernelArguments: ['bootsmith.e2e=aarch64-netboot', 'bootsmith.note="grub kargs"'],
    });

    // The service's iPXE script for this InfraEnv: aarch64's consoles, and the URLs GRUB uses.
    const script = await (
      await service.call('GET', `${API}/infra-envs/${env.id}/downloads/files?file_name=ipxe-script`)
    ).text();
    const kernelLine = /^kernel (\S+) (.*) \|\| goto failed$/m.exec(script);
    const initrdUrl = /^initrd --name initrd (\S+) \|\| goto failed$/m.exec(script)?.[1];
    const rootfsUrl = /coreos\.live\.rootfs_url=(\S+)/.exec(kernelLine?.[2] ?? '')?.[1];
    expect(kernelLine?.[2]).toContain(
      'console=tty1 console=ttyAMA0,115200n8 coreos.inst.persistent-kargs="console=tty1 console=ttyAMA0,115200n8"',
    );
    expect(kernelLine?.[1]).toMatch(/\/boot-artifacts\/kernel\?arch=aarch64&/);
    // The script's URLs are on the loopback base; the guest reaches the host's loopback at 10.0.2.2.
    const guestOrigin = `http://10.0.2.2:${new URL(service.url).port}`;
    const forGuest = (url: string | undefined): string => (url ?? '').replace(new URL(service.url).origin, guestOrigin);

    const tftp = path.join(runDir, 'arch-aarch64-netboot-tftp');
    await mkdir(path.join(tftp, 'grub'), { recursive: true });
    const unpacked = path.join(runDir, 'arch-aarch64-grub-efi-arm64');
    for (const name of ['grub-efi-arm64-signed_', 'grub-efi-arm64-bin_']) {
      const deb = (await readdir(ARM64_DEBS)).find((f) => f.startsWith(name));
      expect(deb, `${name}*.deb in ${ARM64_DEBS} (fixtures/build-arch-iso.sh downloads it)`).toBeDefined();
      const x = spawnSync('dpkg', ['-x', path.join(ARM64_DEBS, deb!), unpacked], { encoding: 'utf8' });
      expect(x.status, x.stderr).toBe(0);
    }
    await copyFile(path.join(unpacked, NETBOOT_GRUB), path.join(tftp, 'grubaa64.efi'));
    await cp(path.join(unpacked, 'usr/lib/grub/arm64-efi'), path.join(tftp, 'grub/arm64-efi'), { recursive: true });
    await writeFile(path.join(tftp, GRUB_STUB[0]), GRUB_STUB[1]);
    await writeFile(
      path.join(tftp, GRUB_CFG),
      grubBootConfig({
        arch: 'aarch64',
        urls: { kernel: forGuest(kernelLine?.[1]), initrd: forGuest(initrdUrl), rootfs: forGuest(rootfsUrl) },
        kernelArguments: env.kernelArguments,
      }),
    );

    const started = Date.now();
    const result = await suite.boot(t, 'arch-aarch64-netboot', {
      mac: NIC_MAC,
      tftp: { dir: tftp, bootfile: 'grubaa64.efi' },
    });
    console.log(`e2e aarch64 netboot: ${((Date.now() - started) / 1000).toFixed(1)} s from qemu's start to poweroff`);
    const report = parseSerialReport(result.serial);
    expectArchDiscovery('aarch64', report, env, (cmdline) => {
      expect(cmdline.startsWith(`BOOT_IMAGE=(http,10.0.2.2:${new URL(service.url).port})/boot-artifacts/kernel?`)).toBe(
        true,
      );
      expect(kargValues(cmdline, 'console')).toEqual(['tty1', 'ttyAMA0,115200n8']);
      expect(kargValues(cmdline, 'coreos.inst.persistent-kargs')).toEqual(['console=tty1 console=ttyAMA0,115200n8']);
      expect(kargValues(cmdline, 'coreos.live.rootfs_url')).toEqual([forGuest(rootfsUrl)]);
      expect(kargValues(cmdline, 'bootsmith.note')).toEqual(['grub kargs']);
      expect(kargValues(cmdline, 'bootsmith.e2e')).toEqual(['aarch64-netboot']);
    });
    expect(report.firmware).toMatchObject({ kind: 'uefi' });
    await expectRegisteredHost(service, env.id, 'aarch64');
    expect(result.exitCode).toBe(0);
  });
});
