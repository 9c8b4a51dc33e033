// UEFI HTTP Boot through the BMC (issue 33, deliverable 7): a BMC with `boot_method: http` and no
// virtual media at all (emulator profile `uefi-http`: UefiHttp + Boot.HttpBootUri), in front of a
// real qemu guest with OVMF (Secure Boot enforced) whose own network stack does HTTP Boot. The
// service's boot job sets the one-time UefiHttp override with the job's short-token URL of the
// InfraEnv's MINIMAL ISO and powers the host on; the emulated BMC hands that URI to the firmware
// (dnsmasq in the guest's private network namespace answers the firmware's HTTPClient DHCP with
// it: support/netboot-lan.ts — standing in for the BMC writing it into the firmware's boot
// option); OVMF reads the ISO (HEAD, one GET) into a RAM disk and boots shim → GRUB → kernel; the
// live system fetches its rootfs, applies its Ignition and registers. The job follows it exactly
// as a virtual-media boot (reads of its token → booted → registered) and then clears the override.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type EmulatedBmc,
  makeTestCertificates,
  QemuGuest,
  startEmulatedBmc,
  type TestCertificates,
} from '../support/redfish-emulator/index.js';
import { bootSuite } from './support/boot-suite.js';
import { agentOutcome, expectSecureBoot } from './support/guest-checks.js';
import { createNetbootLan, HAVE_NETBOOT_LAN, type NetbootLan } from './support/netboot-lan.js';
import { createInfraEnv } from './support/infraenv.js';
import { firmwareArgs, HAVE_OVMF } from './support/machine.js';
import { parseSerialReport } from './support/serial-report.js';
import { API } from './support/service.js';

/** OVMF's DHCP and download of the ~36 MiB minimal ISO, Secure Boot chain, rootfs, agent: ~1 min idle. */
const REGISTERED_WITHIN_MS = 8 * 60_000;
const GUEST_MAC = '52:54:00:e2:e0:51';
const PASSWORD = 'e2e-http-boot-bmc';
const BMC_API = '/api/bootsmith/v1/bmcs';

interface JobView {
  id: string;
  state: string;
  error: string | null;
  host_id: string | null;
  steps: { name: string; status: string; detail: string }[];
}

bootSuite(
  'UEFI HTTP Boot through the BMC: the minimal ISO to registration (qemu, TCG, OVMF, dnsmasq)',
  {
    'ovmf (OVMF_CODE_4M.ms.fd)': HAVE_OVMF,
    'root, ip, dnsmasq and /dev/net/tun (a network namespace with a DHCP server)': HAVE_NETBOOT_LAN,
  },
  (suite) => {
    let lan: NetbootLan;
    let certs: TestCertificates;
    let guest: QemuGuest | undefined;
    let bmc: EmulatedBmc | undefined;

    suite.startService(() => {
      lan = createNetbootLan(suite.ctx.runDir, 'bmc-http-boot');
      return { name: 'bmc-http-boot', listenAddress: lan.hostAddress };
    });
    beforeAll(() => {
      certs = makeTestCertificates(suite.ctx.runDir);
    });
    afterAll(async () => {
      await bmc?.close();
      await guest?.close();
      await lan?.close();
    });

    it('boot_method http: UefiHttp + HttpBootUri of the job token URL; OVMF boots the minimal ISO; registered; override cleared', async (t) => {
      const env = await createInfraEnv(suite.service, {
        name: 'e2e-bmc-http-boot',
        kernelArguments: ['console=ttyS0', 'bootsmith.e2e=bmc-http-boot'],
        imageType: 'minimal-iso',
      });
      const uuid = randomUUID();
      await lan.startDnsmasq(undefined); // the LAN's DHCP: plain leases until the BMC hands a URI over
      guest = await QemuGuest.start({
        name: 'bmc-http-boot',
        qemu: lan.qemuWrapper,
        dir: suite.ctx.runDir,
        qemuArgs: [
          ...(await firmwareArgs(suite.ctx.runDir, 'bmc-http-boot', 'uefi-secure-boot')),
          ...lan.nicArgs(GUEST_MAC),
          // PXE off: OVMF goes straight to HTTP Boot (opt/org.tianocore switches, OVMF ≥ 2022.05)
          '-fw_cfg',
          'name=opt/org.tianocore/IPv4PXESupport,string=n',
          '-fw_cfg',
          'name=opt/org.tianocore/IPv6PXESupport,string=n',
          '-uuid',
          uuid,
        ],
        httpBoot: { setUri: (uri) => lan.startDnsmasq(uri) },
      });
      bmc = await startEmulatedBmc({
        name: 'http-boot',
        profile: 'uefi-http',
        username: 'root',
        password: PASSWORD,
        guest,
        tls: certs,
        macs: [GUEST_MAC],
        uuid,
      });
      const g = guest;
      const b = bmc;
      t.onTestFailed(async () => {
        console.error(
          `--- serial:\n${(await readFile(g.serialPath, 'latin1').catch(() => '')).slice(-5000)}\n` +
            `--- OVMF debug:\n${(await readFile(g.firmwareLogPath, 'latin1').catch(() => '')).slice(-3000)}\n` +
            `--- qemu: ${g.qemuOutput}\n--- BMC:\n${b.requests.map((r) => `${r.method} ${r.path} ${r.status}`).join('\n')}\n` +
            `--- dnsmasq:\n${(await lan.dnsmasqLog()).slice(-3000)}\n${await suite.service.logTail(60)}`,
        );
      });

      const created = JSON.parse(
        await suite.service.expectCall('POST', BMC_API, 201, {
          name: 'http-boot-1',
          address: bmc.systemUrl,
          username: 'root',
          password: PASSWORD,
          ca_pem: certs.caPem,
          infra_env_id: env.id,
          boot_method: 'http',
        }),
      ) as { id: string; boot_method: string };
      expect(created.boot_method).toBe('http');
      // Its first check (refresh) reads the inventory: no virtual media, UefiHttp listed.
      for (const deadline = Date.now() + 60_000; ; await delay(500)) {
        const shown = JSON.parse(await suite.service.expectCall('GET', `${BMC_API}/${created.id}`, 200)) as {
          state: string;
          boot_method_effective: string;
        };
        if (shown.state === 'ready') {
          expect(shown.boot_method_effective).toBe('http');
          break;
        }
        if (shown.state === 'error' || Date.now() > deadline)
          throw new Error(`the BMC's check: ${JSON.stringify(shown)}`);
      }

      const started = Date.now();
      const job = JSON.parse(
        await suite.service.expectCall('POST', `${BMC_API}/${created.id}/jobs`, 201, { action: 'boot-discovery' }),
      ) as JobView;
      let current = job;
      for (const deadline = Date.now() + REGISTERED_WITHIN_MS; ; await delay(2_000)) {
        current = JSON.parse(
          await suite.service.expectCall('GET', `${BMC_API}/${created.id}/jobs/${job.id}`, 200),
        ) as JobView;
        if (['succeeded', 'failed', 'cancelled'].includes(current.state)) break;
        if (Date.now() > deadline) throw new Error(`the job did not end within ${REGISTERED_WITHIN_MS / 1000} s`);
      }
      console.log(
        `e2e bmc http-boot: job ${current.state} in ${((Date.now() - started) / 1000).toFixed(1)} s\n` +
          current.steps.map((s) => `  ${s.name}: ${s.status}: ${s.detail}`).join('\n'),
      );
      expect(current.error).toBeNull();
      expect(current.state).toBe('succeeded');
      expect(current.host_id).toBe(uuid);
      const step = (name: string) => current.steps.find((s) => s.name === name);
      expect(step('insert')?.detail).toMatch(/^HTTP boot: the firmware reads the ISO URL itself/);
      expect(step('boot-override')?.detail).toBe('boot once from UefiHttp in UEFI mode with HttpBootUri');
      expect(step('booted')?.status).toBe('done');
      expect(step('registered')?.status).toBe('done');
      expect(step('eject-media')?.detail).toMatch(/^HTTP boot: no media; boot override cleared \(was None\)/);

      // The BMC: one PATCH with UefiHttp and the job's token URL of the minimal ISO, no media calls.
      const patch = bmc.requests.find((r) => r.method === 'PATCH' && r.path === bmc!.model.systemPath);
      const uri = (patch?.body as { Boot: { HttpBootUri: string } }).Boot.HttpBootUri;
      expect(uri).toMatch(
        new RegExp(`^http://${lan.hostAddress.replaceAll('.', '\\.')}:\\d+/bytoken/[\\w-]+/.+/minimal\\.iso$`),
      );
      expect(patch?.body).toEqual({
        Boot: {
          BootSourceOverrideEnabled: 'Once',
          BootSourceOverrideTarget: 'UefiHttp',
          BootSourceOverrideMode: 'UEFI',
          HttpBootUri: uri,
        },
      });
      expect(bmc.requests.filter((r) => r.path.includes('VirtualMedia') && r.method !== 'GET')).toEqual([]);
      expect(bmc.model.boots).toEqual([expect.objectContaining({ fromCd: false, httpBootUri: uri })]);
      expect(bmc.model.boot).toMatchObject({ enabled: 'Disabled', target: 'None' });

      // The firmware's side: DHCP handed it exactly that URI, and it booted it under Secure Boot.
      // The guest reports (END) after its agent registered: wait for it, bounded.
      let serial = await readFile(guest.serialPath);
      for (const deadline = Date.now() + 120_000; !serial.includes('\nBOOTSMITH-E2E END\n'); await delay(1_000)) {
        if (Date.now() > deadline) throw new Error('the guest did not report within 120 s of registering');
        serial = await readFile(guest.serialPath);
      }
      expect(serial.toString('latin1')).toContain(`URI: ${uri}`);
      const report = parseSerialReport(serial);
      expect(report.ended).toBe(true);
      expectSecureBoot(report);
      expect(report.cmdline).toContain('bootsmith.e2e=bmc-http-boot');
      expect(agentOutcome(report).registered).toBe(201);
      const host = JSON.parse(
        await suite.service.expectCall('GET', `${API}/infra-envs/${env.id}/hosts/${uuid}`, 200),
      ) as { inventory?: string };
      expect(JSON.parse(host.inventory ?? '{}')).toMatchObject({
        boot: { current_boot_mode: 'uefi', secure_boot_state: 'Enabled' },
      });
    });
  },
);
