// iPXE chain-boot (issue 5, case 3): qemu's own iPXE ROM (ipxe-qemu) on a virtio NIC with user
// networking (support/ipxe-machine.ts). DHCP hands it boot.ipxe over slirp's TFTP, which chains
// to the InfraEnv's `boot-order-control` iPXE script URL as the API's files-presigned answer gives it; the service's redirect script comes
// back with `mac=${net0/mac}`, gets the boot script, and iPXE fetches the kernel and the
// pxe-initrd from http://10.0.2.2:<port> (the host's loopback as the guest sees it).
//
//   boot 1: the guest reports the kernel command line of the boot script, /config.ign from the
//           archive appended to the initrd, and the static network keyfile from the appended
//           minimal initrd; Ignition applies the config; the guest fetches coreos.live.rootfs_url
//           (the base ISO's rootfs) and registers from the applied agent.service, sending its
//           inventory (issue 26); the initrd iPXE fetched is the base initrd, zeros to a 4-byte
//           boundary, then the archives.
//   then:   that host (with the guest's MAC) reports installation Done;
//           the per-MAC script now answers 404.
//   boot 2: the same machine: iPXE gets 404 (three tries), exits, and SeaBIOS boots the local
//           disk (a stub MBR that says so on the serial port and exits qemu).
//
// tls.test.ts boots the same machine from a service with native TLS, over its plain port.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { bootSuite } from './support/boot-suite.js';
import { agentOutcome, expectIgnitionApplied } from './support/guest-checks.js';
import { createInfraEnv, type E2eInfraEnv, ignitionFile, KEYFILE_PATH, NIC_MAC } from './support/infraenv.js';
import { ipxeMachine } from './support/ipxe-machine.js';
import { DISK_EXIT_STATUS, DISK_MARKER, isoExtract } from './support/iso-tools.js';
import { kargValues, parseSerialReport } from './support/serial-report.js';
import { API } from './support/service.js';

const PXE_BOOT_TIMEOUT_MS = 180_000;
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

bootSuite('iPXE chain-boot (qemu, TCG)', {}, (suite) => {
  let env: E2eInfraEnv;
  let machine: string[];
  /** The host the guest of boot 1 registered as. */
  let guestHostId: string | undefined;
  const filesRoute = '/api/assisted-install/v2/infra-envs/:infra_env_id/downloads/files';

  suite.startService(() => ({ name: 'ipxe', baseUrl: (port) => `http://10.0.2.2:${port}` }));
  beforeAll(async () => {
    env = await createInfraEnv(suite.service, {
      name: 'e2e-ipxe',
      kernelArguments: ['console=ttyS0', 'bootsmith.e2e=ipxe'],
    });

    // What a user does: ask the API for the boot-order-control script URL, point iPXE at it.
    const presigned = JSON.parse(
      await suite.service.expectCall(
        'GET',
        `${API}/infra-envs/${env.id}/downloads/files-presigned?file_name=ipxe-script&ipxe_script_type=boot-order-control`,
        200,
      ),
    ) as { url: string };
    expect(presigned.url.startsWith(`${suite.service.baseUrl}/`)).toBe(true);
    machine = await ipxeMachine(suite.ctx.runDir, 'ipxe', presigned.url);
  });

  it('1. iPXE fetches the script, the kernel and the pxe-initrd; the guest gets the Ignition and the static network from the initrd', async (t) => {
    const result = await suite.boot(t, { name: 'ipxe-discovery', args: machine, timeoutMs: PXE_BOOT_TIMEOUT_MS });
    const report = parseSerialReport(result.serial);
    expect(report.ended, 'the fixture /init never reported').toBe(true);

    // The kernel command line is the boot script's `kernel` line, InfraEnv kargs included.
    const script = await suite.service.expectCall(
      'GET',
      `${API}/infra-envs/${env.id}/downloads/files?file_name=ipxe-script`,
      200,
    );
    const kernelLine = /^kernel (\S+) (.*) \|\| goto failed$/m.exec(script);
    expect(kernelLine, script).not.toBeNull();
    expect(report.cmdline).toBe(kernelLine?.[2]);
    expect(report.cmdline?.endsWith(` ${env.kernelArguments.join(' ')}`)).toBe(true);

    // /config.ign comes from the archive bootsmith appended to the base initrd.
    const config = report.files.get('/config.ign');
    expect(config?.content.toString('utf8')).toBe(env.discoveryIgnition.toString('utf8'));
    expect(config?.sha256).toBe(sha256(env.discoveryIgnition));
    // The static network keyfile comes from the second appended archive (the minimal initrd),
    // and is the one the discovery Ignition also writes.
    const keyfile = report.files.get(`/etc/coreos-firstboot-network/${path.basename(KEYFILE_PATH)}`);
    expect(keyfile?.content.toString('utf8')).toBe(ignitionFile(env.discoveryIgnition, KEYFILE_PATH));
    expect(keyfile?.content.toString('utf8')).toContain(`mac-address=${NIC_MAC.toUpperCase()}`);

    // The kernel takes a compressed archive at any offset, so no boot notices a dropped 4-byte
    // alignment (checked by hand: base + gzip archive appended unaligned boots with the config);
    // check the layout of the initrd iPXE fetched instead: base initrd, zeros to 4, the archive.
    const initrdUrl = /^initrd --name initrd (\S+) /m.exec(script)?.[1] ?? '';
    const pxeInitrd = Buffer.from(await (await fetch(suite.service.onHost(initrdUrl))).arrayBuffer());
    const base = (await isoExtract(suite.ctx.baseIso, '/images/pxeboot/initrd.img')) ?? Buffer.alloc(0);
    expect(base.length % 4, 'the fixture keeps its initrd off a 4-byte boundary').not.toBe(0);
    expect(pxeInitrd.subarray(0, base.length).equals(base)).toBe(true);
    const archiveAt = base.length + ((4 - (base.length % 4)) % 4);
    expect(pxeInitrd.subarray(base.length, archiveAt).every((b) => b === 0)).toBe(true);
    expect(pxeInitrd.subarray(archiveAt, archiveAt + 2).toString('hex')).toBe('1f8b');
    expect(pxeInitrd.length % 4).toBe(0);

    // coreos.live.rootfs_url, as the guest received it, serves the base ISO's rootfs, and the
    // guest fetched exactly those bytes.
    const rootfsUrls = kargValues(report.cmdline ?? '', 'coreos.live.rootfs_url');
    expect(rootfsUrls).toHaveLength(1);
    const rootfsUrl = rootfsUrls[0] ?? '';
    expect(rootfsUrl.startsWith(`${suite.service.baseUrl}/boot-artifacts/rootfs?`)).toBe(true);
    const served = await fetch(suite.service.onHost(rootfsUrl));
    expect(served.status).toBe(200);
    const rootfs = (await isoExtract(suite.ctx.baseIso, '/images/pxeboot/rootfs.img')) ?? Buffer.alloc(0);
    expect(sha256(Buffer.from(await served.arrayBuffer()))).toBe(sha256(rootfs));
    expect(report.rootfs).toEqual({ status: 200, size: rootfs.length, sha256: sha256(rootfs) });

    // Ignition applied the config, and the guest registered from what it wrote.
    expectIgnitionApplied(report, env.discoveryIgnition);
    const agent = agentOutcome(report);
    expect(agent.errors).toEqual([]);
    expect(agent.config).toMatchObject({ url: suite.service.serviceBaseUrl, 'infra-env': env.id, credential: 'none' });
    expect(agent.registered).toBe(201);
    expect(agent.inventoryReplies).toBe(1);
    guestHostId = agent.config?.['host-id'];
    expect(result.exitCode).toBe(0);
  });

  it('2. once the host with that MAC is installed, boot-order-control answers 404 and the firmware boots the disk', async (t) => {
    // The host boot 1's guest registered, with its inventory (its NIC's MAC).
    const hostId = guestHostId ?? '';
    expect(hostId, 'boot 1 registered no host').toMatch(/^[0-9a-f-]{36}$/);
    const registered = JSON.parse(
      await suite.service.expectCall('GET', `${API}/infra-envs/${env.id}/hosts/${hostId}`, 200),
    ) as { inventory?: string };
    expect(JSON.parse(registered.inventory ?? '{}')).toMatchObject({
      interfaces: [expect.objectContaining({ mac_address: NIC_MAC })],
    });
    const perMac = `${API}/infra-envs/${env.id}/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control&mac=${NIC_MAC}`;
    expect(await suite.service.expectCall('GET', perMac, 200)).toMatch(/^kernel /m);
    // unbound hosts cannot report install progress (upstream answers 400); the installed host is
    // one an earlier release left behind (it accepted progress), as the database migration keeps it
    await suite.service.expectCall('PUT', `${API}/infra-envs/${env.id}/hosts/${hostId}/progress`, 400, {
      current_stage: 'Done',
    });
    await suite.service.sql(
      `UPDATE hosts SET status = 'installed', status_info = 'Done' WHERE infra_env_id = $1 AND id = $2`,
      [env.id, hostId],
    );
    const host = JSON.parse(
      await suite.service.expectCall('GET', `${API}/infra-envs/${env.id}/hosts/${hostId}`, 200),
    ) as {
      status: string;
    };
    expect(host.status).toBe('installed');
    expect(await suite.service.expectCall('GET', perMac, 404)).toMatch(/already installed/);

    const notFound = () =>
      suite.service.metric('bootsmith_http_requests_total', { route: filesRoute, method: 'GET', status: '404' });
    const before = await notFound();
    const result = await suite.boot(t, { name: 'ipxe-installed', args: machine, timeoutMs: PXE_BOOT_TIMEOUT_MS });
    const refused = (await notFound()) - before;
    console.log(`e2e ipxe-installed: the service refused the per-MAC script ${refused} time(s)`);
    expect(parseSerialReport(result.serial).begun, 'the discovery image booted again').toBe(false);
    expect(result.log).toContain(DISK_MARKER);
    expect(result.exitCode).toBe(DISK_EXIT_STATUS);
    // The redirect script tries as often as it says before it gives the machine back to the firmware.
    const redirect = await suite.service.expectCall(
      'GET',
      `${API}/infra-envs/${env.id}/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control`,
      200,
    );
    const attempts = Number(/iseq \$\{attempt\} (\d+) && goto local/.exec(redirect)?.[1] ?? NaN);
    expect(refused).toBe(attempts);
  });
});
