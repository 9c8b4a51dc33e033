// UEFI HTTP Boot of the minimal ISO (issue 26): OVMF with Secure Boot enforced, on a LAN in a
// network namespace where Debian's dnsmasq answers the `HTTPClient` vendor class with the
// InfraEnv's minimal-ISO URL (support/netboot-lan.ts). OVMF's own network stack (no iPXE:
// PXE turned off through its fw_cfg switches, so HTTP Boot is the first thing it tries) reads the
// ISO over HTTP into a RAM disk and starts the El Torito EFI image from it: shim → GRUB → kernel,
// as from a CD. The live system then fetches coreos.live.rootfs_url from the service, Ignition
// applies the spliced config, and the guest registers.
import { createHash } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { bootSuite } from './support/boot-suite.js';
import { agentOutcome, expectIgnitionApplied, expectSecureBoot } from './support/guest-checks.js';
import { createNetbootLan, HAVE_NETBOOT_LAN, type NetbootLan } from './support/netboot-lan.js';
import { createInfraEnv } from './support/infraenv.js';
import { isoExtract } from './support/iso-tools.js';
import { firmwareArgs, HAVE_OVMF } from './support/machine.js';
import { bootInTest } from './support/qemu.js';
import { kargValues, parseSerialReport } from './support/serial-report.js';
import { API } from './support/service.js';

/** OVMF's DHCP, the ~36 MiB ISO into RAM, then the Secure Boot chain: ~30 s on an idle 2-core machine. */
const BOOT_TIMEOUT_MS = 240_000;
const GUEST_MAC = '52:54:00:e2:e0:41';
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

bootSuite(
  'UEFI HTTP Boot of the minimal ISO (qemu, TCG, OVMF, dnsmasq)',
  {
    'ovmf (OVMF_CODE_4M.ms.fd)': HAVE_OVMF,
    'root, ip, dnsmasq and /dev/net/tun (a network namespace with a DHCP server)': HAVE_NETBOOT_LAN,
  },
  (suite) => {
    let lan: NetbootLan;

    suite.startService(() => {
      lan = createNetbootLan(suite.ctx.runDir, 'http-boot');
      return { name: 'http-boot', listenAddress: lan.hostAddress };
    });
    afterAll(async () => {
      await lan?.close();
    });

    it('OVMF HTTP-boots the minimal ISO under Secure Boot; the live system fetches its rootfs, applies its Ignition and registers', async (t) => {
      const env = await createInfraEnv(suite.service, {
        name: 'e2e-http-boot',
        kernelArguments: ['console=ttyS0', 'bootsmith.e2e=http-boot'],
        imageType: 'minimal-iso',
      });
      expect(env.downloadUrl).toBe(
        `http://${lan.hostAddress}:${new URL(suite.service.url).port}/byid/${env.id}/4.17/x86_64/minimal.iso`,
      );
      await lan.startDnsmasq(env.downloadUrl);
      const route = '/byid/:id/:version/:arch/:filename';
      const reads = async () => ({
        heads: await suite.service.metric('bootsmith_http_requests_total', { route, method: 'HEAD', status: '200' }),
        gets: await suite.service.metric('bootsmith_http_requests_total', { route, method: 'GET', status: '200' }),
      });
      const before = await reads();

      const result = await bootInTest(
        t,
        {
          name: 'http-boot',
          runDir: suite.ctx.runDir,
          qemu: lan.qemuWrapper,
          args: [
            ...(await firmwareArgs(suite.ctx.runDir, 'http-boot', 'uefi-secure-boot')),
            ...lan.nicArgs(GUEST_MAC),
            // PXE off: OVMF goes straight to HTTP Boot (opt/org.tianocore switches, OVMF ≥ 2022.05)
            '-fw_cfg',
            'name=opt/org.tianocore/IPv4PXESupport,string=n',
            '-fw_cfg',
            'name=opt/org.tianocore/IPv6PXESupport,string=n',
          ],
          timeoutMs: BOOT_TIMEOUT_MS,
        },
        async () => `${await suite.service.logTail()}\n--- dnsmasq:\n${await lan.dnsmasqLog()}`,
      );
      const after = await reads();
      console.log(
        `e2e http-boot: OVMF sent ${after.heads - before.heads} HEAD and ${after.gets - before.gets} GET for the minimal ISO`,
      );
      // The firmware's side: DHCP gave it the URL, it read the whole ISO.
      expect(result.log).toContain(`URI: ${env.downloadUrl}`);
      expect(after.gets - before.gets).toBeGreaterThanOrEqual(1);
      expect(await lan.dnsmasqLog()).toMatch(new RegExp(`bootfile-name +${env.downloadUrl.replaceAll('.', '\\.')}`));

      const report = parseSerialReport(result.serial);
      expect(report.ended, 'the fixture /init never reported').toBe(true);
      expectSecureBoot(report);
      expect(report.files.get('/config.ign')?.content.equals(env.discoveryIgnition)).toBe(true);
      expectIgnitionApplied(report, env.discoveryIgnition);
      // The minimal ISO has no rootfs: the live system fetched it from the URL in its kargs.
      expect(kargValues(report.cmdline ?? '', 'coreos.liveiso')).toEqual([]);
      const rootfsUrl = kargValues(report.cmdline ?? '', 'coreos.live.rootfs_url')[0] ?? '';
      expect(rootfsUrl.startsWith(`${suite.service.baseUrl}/boot-artifacts/rootfs?`)).toBe(true);
      const rootfs = (await isoExtract(suite.ctx.baseIso, '/images/pxeboot/rootfs.img')) ?? Buffer.alloc(0);
      expect(report.rootfs).toEqual({ status: 200, size: rootfs.length, sha256: sha256(rootfs) });
      // The booted guest's own lease on the same LAN, then its registration.
      expect(report.net).toMatchObject({ nic: 'eth0', mac: GUEST_MAC });
      const agent = agentOutcome(report);
      expect(agent.errors).toEqual([]);
      expect(agent.registered).toBe(201);
      const host = JSON.parse(
        await suite.service.expectCall('GET', `${API}/infra-envs/${env.id}/hosts/${agent.config?.['host-id']}`, 200),
      ) as { inventory?: string };
      expect(JSON.parse(host.inventory ?? '{}')).toMatchObject({
        boot: { current_boot_mode: 'uefi', secure_boot_state: 'Enabled' },
        interfaces: [expect.objectContaining({ mac_address: GUEST_MAC })],
      });
      expect(result.exitCode).toBe(0);
    });
  },
);
