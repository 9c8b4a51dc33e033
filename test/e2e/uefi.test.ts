// UEFI with Secure Boot enforced, and the loop closed (issue 26): OVMF with Microsoft's keys
// enrolled (Debian's ovmf, `-machine q35,smm=on`, secure flash) boots the discovery ISO that
// bootsmith serves over HTTPS, read by qemu's curl block driver as a BMC reads virtual media and
// verified against the test CA (qemuTrustingCa, as in tls.test.ts): Debian's Microsoft-signed shim
// → Debian's signed GRUB (reading the spliced kargs area in EFI/fedora/grub.cfg) → Debian's signed
// kernel. In the guest the real Ignition applies the spliced config, then the guest registers
// with the service using only what the applied agent.service and its files hold (URL, InfraEnv
// id, X-Secret-Key credential, the service CA at /etc/assisted-service/service-ca-cert.crt), and
// answers the inventory step from its own /sys and /proc (fixtures/guest/agent.sh).
//
//   1. one boot checks it all: Secure Boot on (efivars, read in the guest), the kargs, what
//      Ignition wrote; while the guest stays up (bootsmith.e2e.stay=): the host in the API in an
//      unbound state with the guest's inventory (its MAC, disk, CPU, memory, Secure Boot state),
//      the events ISO read → registered, the host on the console's hosts page in Chromium;
//      then the guest's heartbeats and its report.
//   2. negative: the same ISO with one byte flipped inside the signed GRUB of images/efiboot.img
//      is refused by shim (the firmware never reaches the kernel), within a bound.
import { createHash, randomUUID, X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'puppeteer-core';
import { beforeAll, expect, it } from 'vitest';
import { HAVE_CHROMIUM, launchChromium, openPage } from '../../src/console/test-support/browser.js';
import {
  makeCa,
  makeLeaf,
  type TestCa,
  type TestLeaf,
} from '../../src/http/transport/tls/test-support/certificates.js';
import { unavailable } from '../support/requirements.js';
import { bootSuite } from './support/boot-suite.js';
import { agentOutcome, expectIgnitionApplied, expectSecureBoot } from './support/guest-checks.js';
import { createInfraEnv, ignitionFile, NIC_MAC } from './support/infraenv.js';
import { isoExtent } from './support/iso-tools.js';
import { HAVE_OVMF, machineArgs } from './support/machine.js';
import { bootGuest, qemuTrustingCa } from './support/qemu.js';
import { kargValues, parseSerialReport } from './support/serial-report.js';
import { API } from './support/service.js';

/** A Secure Boot guest over HTTPS boots in ~20 s here; it then stays up GUEST_STAY_SECONDS. */
const GUEST_STAY_SECONDS = 20;
const BOOT_TIMEOUT_MS = 240_000;
/** From the start of qemu to the host's inventory in the API (boot ~20 s on an idle 2-core machine). */
const REGISTERED_WITHIN_MS = 180_000;
/** shim shows its refusal within seconds of the firmware starting it; this bounds the case. */
const REFUSAL_WITHIN_MS = 120_000;
const SHIM_REFUSAL = /Verification failed: \(0x1A\) Security Violation/;
const GRUB_CD = '/usr/lib/grub/x86_64-efi-signed/gcdx64.efi.signed';
const UNBOUND = ['discovering-unbound', 'known-unbound', 'insufficient-unbound'];
const SERVICE_CA_CERT_PATH = '/etc/assisted-service/service-ca-cert.crt';
// The callbacks given to page.waitForFunction run in Chromium; the project compiles without the DOM library.
declare const document: any;

interface Host {
  id: string;
  status: string;
  inventory?: string;
}
interface Event {
  name: string;
  message: string;
  event_time: string;
  host_id?: string;
}

bootSuite(
  'UEFI + Secure Boot, the loop closed (qemu, TCG, OVMF)',
  { 'ovmf (OVMF_CODE_4M.ms.fd, OVMF_VARS_4M.ms.fd)': HAVE_OVMF },
  (suite) => {
    let ca: TestCa;
    let leaf: TestLeaf;
    let qemu: string;

    suite.startService(async () => {
      const dir = path.join(suite.ctx.runDir, 'uefi-tls');
      await mkdir(dir, { recursive: true });
      ca = makeCa(dir, 'bootsmith e2e uefi CA');
      // 127.0.0.1 for qemu's curl driver and the tests; 10.0.2.2 for the guest on qemu's user network.
      leaf = makeLeaf(dir, ca, 'server', ['127.0.0.1', '10.0.2.2', 'localhost']);
      return {
        name: 'uefi',
        tls: { certFile: leaf.certFile, keyFile: leaf.keyFile, caPem: ca.certPem },
        baseUrl: (port) => `https://127.0.0.1:${port}`,
        serviceBaseUrl: (port) => `https://10.0.2.2:${port}`,
        httpBaseUrl: (plainPort) => `http://10.0.2.2:${plainPort}`,
        env: { AUTH_TYPE: 'local', SERVICE_CA_CERT_FILE: ca.certFile },
      };
    });
    beforeAll(() => {
      const trust = qemuTrustingCa(suite.ctx.runDir, suite.ctx.qemu, ca.certFile);
      // Without a private mount namespace the HTTPS read could not be verified: fail under CI.
      if ('why' in trust)
        unavailable({ [`e2e: a private mount namespace for qemu's CA bundle (${trust.why})`]: false });
      qemu = 'wrapper' in trust ? trust.wrapper : suite.ctx.qemu;
    });

    it('1. Secure Boot over HTTPS: shim → GRUB → kernel boot the spliced ISO; Ignition applies it; the guest registers from what its media gave it', async (t) => {
      const env = await createInfraEnv(suite.service, {
        name: 'e2e-secure-boot',
        kernelArguments: ['console=ttyS0', 'bootsmith.e2e=secure-boot', `bootsmith.e2e.stay=${GUEST_STAY_SECONDS}`],
      });
      expect(env.downloadUrl).toMatch(
        /^https:\/\/127\.0\.0\.1:\d+\/bytoken\/[A-Za-z0-9_-]+\/4\.17\/x86_64\/full\.iso$/,
      );
      // What the media carries for the agent: the unit with the service URL, the credential, the CA.
      const unit = JSON.parse(env.discoveryIgnition.toString('utf8')) as {
        systemd: { units: { name: string; contents: string }[] };
      };
      const agentUnit = unit.systemd.units.find((u) => u.name === 'agent.service')?.contents ?? '';
      expect(agentUnit).toContain(`--url ${suite.service.serviceBaseUrl} --infra-env-id ${env.id}`);
      expect(agentUnit).toContain(`--cacert ${SERVICE_CA_CERT_PATH}`);
      const token = /^Environment=PULL_SECRET_TOKEN=(\S+)$/m.exec(agentUnit)?.[1] ?? '';
      expect(token.length).toBeGreaterThan(20);
      expect(ignitionFile(env.discoveryIgnition, SERVICE_CA_CERT_PATH)).toBe(ca.certPem);

      const hostId = randomUUID();
      const name = 'uefi-secure-boot-https';
      const booting = suite.boot(t, {
        name,
        qemu,
        args: await machineArgs(suite.ctx.runDir, name, {
          firmware: 'uefi-secure-boot',
          cdrom: { url: env.downloadUrl },
          mac: NIC_MAC,
          diskGB: 120,
          uuid: hostId,
        }),
        timeoutMs: BOOT_TIMEOUT_MS,
      });

      // While the guest is up: the host registers and its inventory arrives (bounded).
      const hostPath = `${API}/infra-envs/${env.id}/hosts/${hostId}`;
      let host: Host | undefined;
      for (const deadline = Date.now() + REGISTERED_WITHIN_MS; Date.now() < deadline;) {
        const r = await suite.service.call('GET', hostPath);
        if (r.status === 200) {
          host = (await r.json()) as Host;
          if (host.inventory) break;
        } else await r.text();
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      expect(
        host?.inventory,
        `host ${hostId} did not register with an inventory within ${REGISTERED_WITHIN_MS} ms`,
      ).toBeTruthy();
      expect(UNBOUND).toContain(host?.status);
      const inventory = JSON.parse(host?.inventory ?? '{}') as {
        interfaces: { mac_address: string; ipv4_addresses: string[] }[];
        disks: { name: string; size_bytes: number; drive_type: string }[];
        cpu: { count: number; architecture: string };
        memory: { physical_bytes: number; usable_bytes: number };
        boot: { current_boot_mode: string; secure_boot_state: string };
        system_vendor: { manufacturer: string; virtual: boolean };
      };
      expect(inventory.interfaces.map((i) => i.mac_address)).toEqual([NIC_MAC]);
      expect(inventory.interfaces[0]?.ipv4_addresses).toEqual(['10.0.2.15/24']);
      expect(inventory.disks).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'vda', size_bytes: 120 * 1024 ** 3, drive_type: 'HDD' }),
        ]),
      );
      expect(inventory.disks).toEqual(expect.arrayContaining([expect.objectContaining({ drive_type: 'ODD' })]));
      expect(inventory.cpu).toMatchObject({ count: 1, architecture: 'x86_64' });
      // 512 MiB of guest RAM: the kernel's usable share, and at most the machine's.
      expect(inventory.memory.physical_bytes).toBeLessThanOrEqual(512 * 1024 ** 2);
      expect(inventory.memory.usable_bytes).toBeGreaterThan(256 * 1024 ** 2);
      expect(inventory.boot).toMatchObject({ current_boot_mode: 'uefi', secure_boot_state: 'Enabled' });
      expect(inventory.system_vendor).toMatchObject({ manufacturer: 'QEMU', virtual: true });

      // The events: the BMC-style read of the ISO, then the registration.
      const events = JSON.parse(
        await suite.service.expectCall('GET', `${API}/events?infra_env_id=${env.id}`, 200),
      ) as Event[];
      const read = events.find((e) => e.name === 'discovery_image_requested');
      const registered = events.find((e) => e.name === 'host_registration_succeeded' && e.host_id === hostId);
      expect(read?.message).toMatch(/^Discovery ISO requested by 127\.0\.0\.1 \(virtual media, /);
      expect(registered?.message).toBe(`Host ${hostId}: Successfully registered`);
      expect(Date.parse(read?.event_time ?? '')).toBeLessThanOrEqual(Date.parse(registered?.event_time ?? ''));

      // The console's hosts page, in Chromium, shows the host (trusting the test server's key only).
      if (!unavailable({ chromium: HAVE_CHROMIUM })) {
        const spki = createHash('sha256')
          .update(new X509Certificate(leaf.chainPem).publicKey.export({ type: 'spki', format: 'der' }))
          .digest('base64');
        let browser: Browser | undefined;
        try {
          browser = await launchChromium([`--ignore-certificate-errors-spki-list=${spki}`]);
          const { page, errors } = await openPage(browser);
          await page.goto(`${suite.service.url}/console/`);
          await page.waitForSelector('#admin-token');
          await page.type('#admin-token', suite.service.adminToken ?? '');
          await page.keyboard.press('Enter');
          await page.waitForFunction(() => document.querySelector('h1')?.textContent === 'InfraEnvs');
          await page.goto(`${suite.service.url}/console/#/infra-envs/${env.id}/hosts`);
          await page.waitForSelector(`tr[data-id="${hostId}"]`);
          const row = await page.$eval(`tr[data-id="${hostId}"]`, (el) => ({
            text: el.textContent ?? '',
            status: el.getAttribute('data-status'),
          }));
          expect(UNBOUND).toContain(row.status);
          expect(row.text).toContain(NIC_MAC);
          expect(errors).toEqual([]);
        } finally {
          await browser?.close();
        }
      }

      // The guest's own report, once it powered off after its stay.
      const result = await booting;
      expect(result.exitCode).toBe(0);
      const report = parseSerialReport(result.serial);
      expect(report.ended, 'the fixture /init report is incomplete').toBe(true);
      expectSecureBoot(report);
      expect(report.files.get('/config.ign')?.content.equals(env.discoveryIgnition)).toBe(true);
      // GRUB read the kargs area bootsmith spliced into EFI/fedora/grub.cfg.
      expect(report.cmdline?.startsWith('BOOT_IMAGE=/images/pxeboot/vmlinuz ')).toBe(true);
      expect(report.cmdline?.endsWith(` ${env.kernelArguments.join(' ')}`)).toBe(true);
      expect(kargValues(report.cmdline ?? '', 'coreos.liveiso')).toEqual(['bootsmith-e2e-live']);
      expectIgnitionApplied(report, env.discoveryIgnition);
      expect(report.tree.get(SERVICE_CA_CERT_PATH)).toMatchObject({ type: 'f', mode: 0o644 });
      expect(report.net).toEqual({ nic: 'eth0', mac: NIC_MAC, address: '10.0.2.15/24' });
      const agent = agentOutcome(report);
      expect(agent.errors).toEqual([]);
      expect(agent.config).toEqual({
        url: suite.service.serviceBaseUrl,
        'infra-env': env.id,
        'agent-version': expect.stringMatching(/assisted-installer-agent/),
        cacert: SERVICE_CA_CERT_PATH,
        credential: 'X-Secret-Key',
        'host-id': hostId,
        source: 'dmi',
      });
      expect(agent.registered).toBe(201);
      // It kept heartbeating while it stayed up, and its last inventory is what the service holds.
      expect(report.agent).toContain(`stay ${GUEST_STAY_SECONDS}`);
      expect(agent.inventoryReplies).toBeGreaterThanOrEqual(2);
      const stored = JSON.parse(
        ((await (await suite.service.call('GET', hostPath)).json()) as Host).inventory ?? '{}',
      ) as Record<string, unknown>;
      expect(stored).toEqual(agent.inventory);
      // The credential travelled in a header file, never on the report's own lines.
      expect(report.agent.join('\n')).not.toContain(token);
    });

    it('2. negative: one byte flipped inside the signed GRUB of images/efiboot.img, and shim refuses to start it', async (t) => {
      const env = await createInfraEnv(suite.service, {
        name: 'e2e-secure-boot-tampered',
        kernelArguments: ['console=ttyS0', 'bootsmith.e2e=tampered'],
      });
      const iso = Buffer.from(await (await suite.service.fetch(env.downloadUrl)).arrayBuffer());
      const isoPath = path.join(suite.ctx.runDir, 'tampered-grub.iso');
      await writeFile(isoPath, iso);
      // The signed GRUB inside the EFI image (the El Torito entry the firmware starts), found by
      // its first 4 KiB within the image's extent (the ISO tree holds a second copy, untouched).
      const efi = isoExtent(isoPath, '/images/efiboot.img');
      expect(efi, 'the ISO has no images/efiboot.img').toBeDefined();
      const grub = await readFile(GRUB_CD);
      const at = iso.indexOf(grub.subarray(0, 4096), efi?.offset ?? 0);
      expect(at).toBeGreaterThanOrEqual(efi?.offset ?? 0);
      expect(at + grub.length).toBeLessThanOrEqual((efi?.offset ?? 0) + (efi?.size ?? 0));
      expect(iso.subarray(at, at + grub.length).equals(grub)).toBe(true);
      // A byte in the middle of GRUB's code: covered by its Authenticode signature.
      iso[at + Math.floor(grub.length / 2)]! ^= 0x01;
      await writeFile(isoPath, iso);

      const result = await bootGuest({
        name: 'uefi-secure-boot-tampered',
        runDir: suite.ctx.runDir,
        qemu: suite.ctx.qemu,
        args: await machineArgs(suite.ctx.runDir, 'uefi-secure-boot-tampered', {
          firmware: 'uefi-secure-boot',
          cdrom: { file: isoPath },
        }),
        timeoutMs: REFUSAL_WITHIN_MS,
        // shim then waits for a key press: the refusal on the serial console ends the case
        stopWhen: SHIM_REFUSAL,
      });
      console.log(
        `e2e uefi-secure-boot-tampered: ${result.stopped ? 'refused' : 'NOT refused'} after ${result.seconds.toFixed(1)} s`,
      );
      t.onTestFailed(() => console.error(result.log.slice(-4000)));
      expect(result.stopped, `shim did not refuse the tampered GRUB within ${REFUSAL_WITHIN_MS} ms`).toBe(true);
      expect(result.log).toMatch(SHIM_REFUSAL);
      // GRUB never ran, so no kernel and no /init.
      expect(result.log).not.toContain('Welcome to GRUB');
      expect(parseSerialReport(result.serial).begun).toBe(false);
    });
  },
);
