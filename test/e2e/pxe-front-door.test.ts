// The PXE front door from the firmware's first DHCP packet (issue 32): a LAN in a network
// namespace where Debian's dnsmasq is the site's DHCP server and hands out addresses and nothing
// else (support/netboot-lan.ts), and bootsmith's own ProxyDHCP and TFTP on the host end of it
// (PXE_INTERFACE) with the front door on (PXE_FRONT_DOOR=on). The guests boot with the firmware's
// own network stacks — nothing is configured in them but their MAC:
//   1. UEFI: OVMF's PXE (virtio-net with no option ROM) → ProxyDHCP → TFTP ipxe.efi → iPXE's own
//      DHCP gets /boot.ipxe → the InfraEnv assigned to the guest's MAC → kernel and pxe-initrd →
//      Ignition applies → it registers;
//   2. BIOS: SeaBIOS with qemu's iPXE option ROM (iPXE directly, user class iPXE) → /boot.ipxe →
//      the InfraEnv of the guest's BMC-less, assignment-less MAC found through mac_interface_map;
//   3. an unknown MAC with no default InfraEnv: told why on its console, and the script waits
//      PXE_UNKNOWN_HOST_RETRY before it asks again (no tight loop);
//   4. UEFI Secure Boot: OVMF with Microsoft's keys (secure vars, SMM) → ProxyDHCP (the host is
//      assigned with secure_boot) → TFTP shimx64.efi (Debian's, Microsoft-signed) → grubx64.efi,
//      Debian 13's signed network GRUB (fixtures/fetch-trixie-grub.sh; Debian 12's has no HTTP
//      module and may load none under Secure Boot) → grub.cfg and the host's grub.cfg-<mac> from
//      the front door, over TFTP from bootsmith: that GRUB reads the ProxyOffer (Red Hat's efinet
//      patch), though the site's dnsmasq names itself as next server → the signed kernel and
//      pxe-initrd over HTTP → Secure Boot on in the guest, Ignition applied, registered.
// One service and LAN for all four, dnsmasq handing out addresses only; the loaders directory
// holds Debian's iPXE and shim and that GRUB.
// Relays (giaddr) are covered at the packet level (src/pxe/dhcp tests, pxe-netns.root.test.ts).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it, type TestContext } from 'vitest';
import { unavailable } from '../support/requirements.js';
import { bootSuite } from './support/boot-suite.js';
import { agentOutcome, expectIgnitionApplied, expectSecureBoot } from './support/guest-checks.js';
import { createNetbootLan, HAVE_NETBOOT_LAN, type NetbootLan } from './support/netboot-lan.js';
import { createInfraEnv, type E2eInfraEnv } from './support/infraenv.js';
import { firmwareArgs, HAVE_OVMF } from './support/machine.js';
import { type BootResult } from './support/qemu.js';
import { kargValues, parseSerialReport } from './support/serial-report.js';
import { REPO_ROOT } from './support/paths.js';
import { API } from './support/service.js';

/** OVMF's PXE, a TFTP loader, then iPXE or GRUB fetching kernel and initrd: ~60–90 s on an idle 2-core machine. */
const BOOT_TIMEOUT_MS = 300_000;
/** The loaders the PXE wing serves by default (Debian's ipxe, shim-signed, grub-efi-amd64-signed). */
const DEBIAN_LOADERS = [
  '/usr/lib/ipxe/ipxe.efi',
  '/usr/lib/ipxe/undionly.kpxe',
  '/usr/lib/shim/shimx64.efi.signed',
  '/usr/lib/grub/x86_64-efi-signed/grubnetx64.efi.signed',
];
const EXTENSION = '/api/bootsmith/v1';
/** apt-get update of trixie's lists and one download (~4 MB), three tries 10 s apart at worst. */
const FETCH_GRUB_TIMEOUT_MS = 240_000;

/**
 * Debian 13's signed network GRUB (fixtures/fetch-trixie-grub.sh): Debian 12's has no HTTP module,
 * and under Secure Boot a signed GRUB loads none, so it cannot fetch what its grub.cfg names.
 */
async function fetchTrixieGrub(): Promise<{ path: string } | { why: string }> {
  try {
    const { stdout } = await promisify(execFile)('bash', [path.join(REPO_ROOT, 'fixtures', 'fetch-trixie-grub.sh')], {
      timeout: FETCH_GRUB_TIMEOUT_MS,
    });
    return { path: stdout.trim().split('\n').at(-1) ?? '' };
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    return { why: (e.stderr || e.message).trim().split('\n').at(-1) ?? 'failed' };
  }
}

bootSuite(
  'the PXE front door: ProxyDHCP, TFTP, iPXE and signed GRUB beside the site DHCP (qemu, TCG, OVMF, dnsmasq)',
  {
    'ovmf (OVMF_CODE_4M.fd, OVMF_CODE_4M.ms.fd)': HAVE_OVMF,
    'root, ip, dnsmasq and /dev/net/tun (a network namespace with a DHCP server)': HAVE_NETBOOT_LAN,
    "Debian's loaders (ipxe, shim-signed, grub-efi-amd64-signed)": DEBIAN_LOADERS.every((f) => existsSync(f)),
  },
  (suite) => {
    let lan: NetbootLan;
    let trixieGrub: { path: string } | { why: string };

    suite.startService(async () => {
      // The loaders: Debian's iPXE and shim, and Debian 13's signed network GRUB when it could be
      // fetched (else Debian 12's, which only the Secure Boot case needs, and that case skips).
      trixieGrub = await fetchTrixieGrub();
      const loaders = path.join(suite.ctx.runDir, 'pxe-loaders');
      await mkdir(loaders, { recursive: true });
      const links: Array<[string, string]> = [
        ['undionly.kpxe', '/usr/lib/ipxe/undionly.kpxe'],
        ['ipxe.efi', '/usr/lib/ipxe/ipxe.efi'],
        ['shimx64.efi', '/usr/lib/shim/shimx64.efi.signed'],
        ['grubx64.efi', 'path' in trixieGrub ? trixieGrub.path : DEBIAN_LOADERS[3]!],
      ];
      for (const [name, target] of links) {
        await rm(path.join(loaders, name), { force: true });
        await symlink(target, path.join(loaders, name));
      }
      lan = createNetbootLan(suite.ctx.runDir, 'pxe');
      // dnsmasq first: the site's server is there before bootsmith, as on a real network.
      await lan.startDnsmasq(undefined);
      return {
        name: 'pxe',
        listenAddress: lan.hostAddress,
        env: {
          PXE_INTERFACE: lan.hostInterface,
          PXE_LOADERS_DIR: loaders,
          PXE_FRONT_DOOR: 'on',
          PXE_UNKNOWN_HOST_RETRY: '60s',
        },
      };
    }, FETCH_GRUB_TIMEOUT_MS + 60_000);
    afterAll(async () => {
      await lan?.close();
    });

    async function assign(mac: string, env: E2eInfraEnv, secureBoot = false): Promise<void> {
      await suite.service.expectCall('PUT', `${EXTENSION}/pxe/assignments/${mac}`, 201, {
        infra_env_id: env.id,
        secure_boot: secureBoot,
      });
    }

    async function pxeBoot(t: TestContext, name: string, args: string[], stopWhen?: RegExp): Promise<BootResult> {
      return suite.boot(t, {
        name,
        qemu: lan.qemuWrapper,
        args,
        timeoutMs: BOOT_TIMEOUT_MS,
        ...(stopWhen ? { stopWhen } : {}),
      });
    }

    /** What every registered PXE guest shows: the served Ignition applied, registered into `env` with `mac`. */
    async function expectRegistered(result: BootResult, env: E2eInfraEnv, mac: string): Promise<void> {
      const report = parseSerialReport(result.serial);
      expect(report.ended, 'the fixture /init never reported').toBe(true);
      expect(report.files.get('/config.ign')?.content.equals(env.discoveryIgnition)).toBe(true);
      expectIgnitionApplied(report, env.discoveryIgnition);
      for (const karg of env.kernelArguments) expect(report.cmdline?.split(' ')).toContain(karg);
      const rootfsUrl = kargValues(report.cmdline ?? '', 'coreos.live.rootfs_url')[0] ?? '';
      expect(rootfsUrl.startsWith(`${suite.service.baseUrl}/boot-artifacts/rootfs?`)).toBe(true);
      expect(report.rootfs).toMatchObject({ status: 200 });
      expect(report.net).toMatchObject({ nic: 'eth0', mac });
      const agent = agentOutcome(report);
      expect(agent.errors).toEqual([]);
      expect(agent.config).toMatchObject({ 'infra-env': env.id });
      expect(agent.registered).toBe(201);
      expect(result.exitCode).toBe(0);
    }

    async function eventsOf(env: E2eInfraEnv): Promise<string[]> {
      const events = JSON.parse(await suite.service.expectCall('GET', `${API}/events?infra_env_id=${env.id}`, 200)) as {
        message: string;
      }[];
      return events.map((e) => e.message);
    }

    it('1. UEFI: OVMF PXE → ProxyDHCP → TFTP ipxe.efi → /boot.ipxe → the InfraEnv assigned to its MAC; registers', async (t) => {
      const mac = '52:54:00:e2:e3:01';
      const env = await createInfraEnv(suite.service, {
        name: 'e2e-pxe-uefi',
        kernelArguments: ['console=ttyS0', 'bootsmith.e2e=pxe-uefi'],
      });
      await assign(mac, env);
      const result = await pxeBoot(t, 'pxe-uefi', [
        ...(await firmwareArgs(suite.ctx.runDir, 'pxe-uefi', 'uefi')),
        ...lan.nicArgs(mac),
        // HTTP Boot off: OVMF goes straight to PXE (opt/org.tianocore switches, OVMF ≥ 2022.05).
        '-fw_cfg',
        'name=opt/org.tianocore/IPv6PXESupport,string=n',
      ]);
      // The firmware's side: the site's lease and bootsmith's boot file, then iPXE's own DHCP.
      expect(result.log).toMatch(/ipxe\.efi/i);
      expect(result.log).toContain('/boot.ipxe');
      await expectRegistered(result, env, mac);
      const dnsmasq = await lan.dnsmasqLog();
      expect(dnsmasq).toMatch(new RegExp(`DHCPACK\\(br0\\) \\S+ ${mac}`));
      expect(await eventsOf(env)).toEqual(expect.arrayContaining([expect.stringContaining(`PXE host ${mac}`)]));
    });

    it("2. BIOS: qemu's iPXE ROM asks as iPXE → /boot.ipxe → the InfraEnv whose mac_interface_map names it; registers", async (t) => {
      const mac = '52:54:00:e2:e3:03';
      const env = await createInfraEnv(suite.service, {
        name: 'e2e-pxe-bios',
        kernelArguments: ['console=ttyS0', 'bootsmith.e2e=pxe-bios'],
        staticNetworkConfig: [
          {
            network_yaml:
              'interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: true\n',
            mac_interface_map: [{ mac_address: mac, logical_nic_name: 'eth0' }],
          },
        ],
      });
      const result = await pxeBoot(t, 'pxe-bios', ['-boot', 'order=n', ...lan.nicArgs(mac, { ipxeRom: true })]);
      // (SeaBIOS's iPXE prints to the screen, not the serial port: the front door's event shows the chain.)

      await expectRegistered(result, env, mac);
      expect(await eventsOf(env)).toEqual(
        expect.arrayContaining([expect.stringMatching(new RegExp(`PXE host ${mac}.*mac_interface_map`))]),
      );
    });

    it('3. an unknown MAC with no default InfraEnv is told why on its console and waits before it asks again', async (t) => {
      const mac = '52:54:00:e2:e3:04';
      const asked = async () =>
        suite.service.metric('bootsmith_http_requests_total', {
          route: '/pxe/host.ipxe',
          method: 'GET',
          status: '200',
        });
      const before = await asked();
      const result = await pxeBoot(
        t,
        'pxe-unknown',
        [
          ...(await firmwareArgs(suite.ctx.runDir, 'pxe-unknown', 'uefi')),
          ...lan.nicArgs(mac),
          '-fw_cfg',
          'name=opt/org.tianocore/IPv6PXESupport,string=n',
        ],
        // The script's own words on the console end the boot; the script served waits before asking again.
        /unknown host: [^\n]*\n[^\n]*asking again in 60 seconds/,
      );
      expect(result.log).toContain(mac);
      expect(await asked()).toBe(before + 1);
      const script = await (await fetch(`${suite.service.url}/pxe/host.ipxe?mac=${mac.replaceAll(':', '-')}`)).text();
      expect(script).toMatch(/sleep 60\b/);
      expect(script).toMatch(/chain --replace/);
    });

    it("4. UEFI Secure Boot: OVMF with Microsoft's keys → TFTP shim → signed network GRUB → the host's grub.cfg → the signed kernel; registers", async (t) => {
      const grubName = "Debian 13's signed network GRUB (fixtures/fetch-trixie-grub.sh)";
      if (unavailable({ [`${grubName}: ${'why' in trixieGrub ? trixieGrub.why : ''}`]: 'path' in trixieGrub }))
        return t.skip();
      const mac = '52:54:00:e2:e3:05';
      const env = await createInfraEnv(suite.service, {
        name: 'e2e-pxe-secure-boot',
        kernelArguments: ['console=ttyS0', 'bootsmith.e2e=pxe-secure-boot'],
      });
      await assign(mac, env, true);
      // At start bootsmith read this GRUB: HTTP built in, and it reads the ProxyOffer (no warning).
      const serviceLog = await readFile(suite.service.logPath, 'utf8');
      expect(serviceLog).toContain('PXE: ProxyDHCP and TFTP answering');
      expect(serviceLog).not.toContain('the Secure Boot GRUB');

      const result = await pxeBoot(t, 'pxe-secure-boot', [
        ...(await firmwareArgs(suite.ctx.runDir, 'pxe-secure-boot', 'uefi-secure-boot')),
        ...lan.nicArgs(mac),
        '-fw_cfg',
        'name=opt/org.tianocore/IPv6PXESupport,string=n',
      ]);
      // shim fetched GRUB, GRUB ran the host's grub.cfg (its words) and fetched kernel and initrd
      // over HTTP; the kernel booted with Secure Boot on.
      expect(result.log).toContain('Fetching Netboot Image grubx64.efi');
      expect(result.log).toContain('Loading the discovery kernel and initrd (attempt 1)');
      expectSecureBoot(parseSerialReport(result.serial));
      await expectRegistered(result, env, mac);
      // The site's server leased the address and named no boot file; bootsmith answered the rest.
      const dnsmasq = await lan.dnsmasqLog();
      expect(dnsmasq).toMatch(new RegExp(`DHCPACK\\(br0\\) \\S+ ${mac}`));
      expect(dnsmasq).not.toContain('bootfile name');
      expect(await eventsOf(env)).toEqual(
        expect.arrayContaining([expect.stringMatching(new RegExp(`PXE host ${mac}.* \\(pxe\\): assigned by MAC`))]),
      );
    });
  },
);
