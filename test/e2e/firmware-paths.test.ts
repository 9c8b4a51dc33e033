// Other firmware paths users take to the same media (issue 26), each boot checked in the guest:
// the Ignition applied, the rootfs fetched, the host registered. One service whose URLs the guests
// reach on qemu's user network (http://10.0.2.2:<port>, the host's loopback).
//
//   1. iPXE `sanboot` of the discovery ISO over HTTP (BIOS): a test-local iPXE script
//      (`sanboot <download_url>`); iPXE reads the ISO with Range requests and hands it to
//      isolinux as a disk; the guest registers from what Ignition wrote.
//   2. the minimal ISO under UEFI with Secure Boot enforced: shim → GRUB → kernel from the
//      downloaded minimal.iso; the guest fetches coreos.live.rootfs_url over the network (as a
//      live system must) and reports its size and sha256.
//   3. the PXE kernel and pxe-initrd under UEFI: iPXE's EFI build (ipxe-qemu's efi-virtio.rom,
//      run by OVMF without Secure Boot: it is not signed) chains the InfraEnv's iPXE script; the
//      kernel's EFI stub boots with the appended Ignition, which Ignition applies.
import { createHash, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { bootSuite } from './support/boot-suite.js';
import { agentOutcome, expectIgnitionApplied, expectSecureBoot } from './support/guest-checks.js';
import { createInfraEnv } from './support/infraenv.js';
import { ipxeMachine } from './support/ipxe-machine.js';
import { isoExtract } from './support/iso-tools.js';
import { HAVE_OVMF, machineArgs } from './support/machine.js';
import { kargValues, parseSerialReport, type SerialReport } from './support/serial-report.js';
import { API } from './support/service.js';

/** iPXE reads the whole ISO through INT 13h over HTTP: slower than the CD-ROM boots. */
const SANBOOT_TIMEOUT_MS = 300_000;
const BOOT_TIMEOUT_MS = 240_000;
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

bootSuite('other firmware paths (qemu, TCG)', { 'ovmf (OVMF_CODE_4M*.fd)': HAVE_OVMF }, (suite) => {
  let rootfs: Buffer;

  /** The guest registered from its media and its inventory is what the service holds. */
  async function expectRegistered(report: SerialReport, infraEnvId: string): Promise<void> {
    const agent = agentOutcome(report);
    expect(agent.errors).toEqual([]);
    expect(agent.config).toMatchObject({ url: suite.service.serviceBaseUrl, 'infra-env': infraEnvId });
    expect(agent.registered).toBe(201);
    expect(agent.inventoryReplies).toBe(1);
    const host = JSON.parse(
      await suite.service.expectCall('GET', `${API}/infra-envs/${infraEnvId}/hosts/${agent.config?.['host-id']}`, 200),
    ) as { inventory?: string };
    expect(JSON.parse(host.inventory ?? '{}')).toEqual(agent.inventory);
  }

  suite.startService(() => ({ name: 'firmware-paths', baseUrl: (port) => `http://10.0.2.2:${port}` }));
  beforeAll(async () => {
    rootfs = (await isoExtract(suite.ctx.baseIso, '/images/pxeboot/rootfs.img')) ?? Buffer.alloc(0);
    expect(rootfs.length).toBeGreaterThan(0);
  });

  it('1. iPXE sanboot of the discovery ISO over HTTP (BIOS): the guest applies its Ignition and registers', async (t) => {
    const env = await createInfraEnv(suite.service, {
      name: 'e2e-sanboot',
      kernelArguments: ['console=ttyS0', 'bootsmith.e2e=sanboot'],
    });
    expect(env.downloadUrl).toMatch(/^http:\/\/10\.0\.2\.2:\d+\/byid\/.*\/full\.iso$/);
    const route = '/byid/:id/:version/:arch/:filename';
    const ranges = () => suite.service.metric('bootsmith_http_requests_total', { route, method: 'GET', status: '206' });
    const before = await ranges();
    const hostId = randomUUID();
    const machine = await ipxeMachine(suite.ctx.runDir, 'sanboot', {
      script: `#!ipxe\necho bootsmith e2e: sanboot ${env.downloadUrl}\nsanboot ${env.downloadUrl}\n`,
    });
    const result = await suite.boot(t, {
      name: 'sanboot',
      args: [...machine, '-uuid', hostId],
      timeoutMs: SANBOOT_TIMEOUT_MS,
    });
    const report = parseSerialReport(result.serial);
    expect(report.ended, 'the fixture /init never reported').toBe(true);
    console.log(`e2e sanboot: iPXE read the ISO with ${(await ranges()) - before} Range GETs`);
    expect((await ranges()) - before).toBeGreaterThan(1);
    expect(report.firmware).toEqual({ kind: 'bios' });
    expect(report.files.get('/config.ign')?.content.equals(env.discoveryIgnition)).toBe(true);
    expect(report.cmdline?.endsWith(` ${env.kernelArguments.join(' ')}`)).toBe(true);
    expectIgnitionApplied(report, env.discoveryIgnition);
    await expectRegistered(report, env.id);
    expect(agentOutcome(report).config?.['host-id']).toBe(hostId);
    expect(result.exitCode).toBe(0);
  });

  it('2. the minimal ISO under UEFI Secure Boot: the guest fetches coreos.live.rootfs_url and registers', async (t) => {
    const env = await createInfraEnv(suite.service, {
      name: 'e2e-minimal-secure-boot',
      kernelArguments: ['console=ttyS0', 'bootsmith.e2e=minimal-secure-boot'],
      imageType: 'minimal-iso',
    });
    const r = await fetch(suite.service.onHost(env.downloadUrl));
    expect(r.status, await r.clone().text()).toBe(200);
    const isoPath = path.join(suite.ctx.runDir, 'minimal-secure-boot.iso');
    await writeFile(isoPath, Buffer.from(await r.arrayBuffer()));
    const result = await suite.boot(t, {
      name: 'minimal-secure-boot',
      args: await machineArgs(suite.ctx.runDir, 'minimal-secure-boot', {
        firmware: 'uefi-secure-boot',
        cdrom: { file: isoPath },
        mac: '52:54:00:e2:e0:21',
      }),
      timeoutMs: BOOT_TIMEOUT_MS,
    });
    const report = parseSerialReport(result.serial);
    expect(report.ended, 'the fixture /init never reported').toBe(true);
    expectSecureBoot(report);
    const urls = kargValues(report.cmdline ?? '', 'coreos.live.rootfs_url');
    expect(urls).toHaveLength(1);
    expect(urls[0]?.startsWith(`${suite.service.baseUrl}/boot-artifacts/rootfs?`)).toBe(true);
    expect(report.rootfs, 'the guest fetched the rootfs').toEqual({
      status: 200,
      size: rootfs.length,
      sha256: sha256(rootfs),
    });
    expectIgnitionApplied(report, env.discoveryIgnition);
    await expectRegistered(report, env.id);
    expect(result.exitCode).toBe(0);
  });

  it("3. the PXE kernel and pxe-initrd under UEFI, through iPXE's EFI build: Ignition applied, rootfs fetched", async (t) => {
    const env = await createInfraEnv(suite.service, {
      name: 'e2e-ipxe-efi',
      kernelArguments: ['console=ttyS0', 'bootsmith.e2e=ipxe-efi'],
    });
    const presigned = JSON.parse(
      await suite.service.expectCall(
        'GET',
        `${API}/infra-envs/${env.id}/downloads/files-presigned?file_name=ipxe-script`,
        200,
      ),
    ) as { url: string };
    const script = await suite.service.expectCall(
      'GET',
      `${API}/infra-envs/${env.id}/downloads/files?file_name=ipxe-script`,
      200,
    );
    const kernelLine = /^kernel (\S+) (.*) \|\| goto failed$/m.exec(script);
    expect(kernelLine, script).not.toBeNull();

    const result = await suite.boot(t, {
      name: 'ipxe-efi',
      args: await ipxeMachine(suite.ctx.runDir, 'ipxe-efi', presigned.url, 'uefi'),
      timeoutMs: BOOT_TIMEOUT_MS,
    });
    const report = parseSerialReport(result.serial);
    expect(report.ended, 'the fixture /init never reported').toBe(true);
    expect(result.log).toMatch(/iPXE .* -- Open Source Network Boot Firmware/);
    expect(report.firmware?.kind).toBe('uefi');
    expect(report.firmware?.secureBoot).toBe(0);
    // iPXE's EFI build hands the kernel its image name first, then the script's arguments.
    expect(report.cmdline).toBe(`kernel ${kernelLine?.[2]}`);
    expect(report.files.get('/config.ign')?.content.equals(env.discoveryIgnition)).toBe(true);
    expectIgnitionApplied(report, env.discoveryIgnition);
    expect(report.rootfs).toEqual({ status: 200, size: rootfs.length, sha256: sha256(rootfs) });
    await expectRegistered(report, env.id);
    expect(result.exitCode).toBe(0);
  });
});
