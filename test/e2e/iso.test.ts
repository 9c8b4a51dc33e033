// Real clients boot the discovery ISOs bootsmith serves (issue 5, cases 1, 2 and the minimal
// ISO), under qemu with software emulation, from the bootable fixture
// (fixtures/build-bootable-iso.sh): SeaBIOS + isolinux load the Debian kernel, the initramfs and
// images/ignition.img; the kernel unpacks the archive bootsmith spliced into that embed area;
// the fixture's /init reports /proc/cmdline and /config.ign on the serial port, and the real
// Ignition (Debian's) applies /config.ign into the guest's live root: every discovery boot below
// checks what Ignition wrote against the config (issue 26).
//
//   1. download full.iso with a plain HTTP client, boot it with -cdrom
//   2. BMC virtual media: boot straight from the /byid URL through qemu's HTTP block driver
//      (HEAD, then Range GETs) and cost at most one Ignition lookup
//   3. negative: the same ISO with its archive written one sector early boots without the
//      config, and the assertions of 1 and 2 reject it
//   4. minimal ISO: coreos.live.rootfs_url points at this service, which serves the rootfs
//   5. AUTH_TYPE=local: the same virtual-media boot from the short `/bytoken/<token>` download_url,
//      under UEFI with Secure Boot enforced (OVMF with Microsoft's keys → Debian's signed shim,
//      GRUB and kernel), recorded as one boot event
//   6. static networking with a bond and a VLAN (issue 10), two hosts: the guest's Ignition
//      carries every keyfile, byte for byte as the static-network-config download has them; with
//      a packed minimal ISO the guest also finds them in /etc/coreos-firstboot-network/
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, expect, it, type TestContext } from 'vitest';
import { unavailable } from '../support/requirements.js';
import { bootSuite } from './support/boot-suite.js';
import {
  createInfraEnv,
  type E2eInfraEnv,
  ignitionFile,
  ignitionFilesUnder,
  KEYFILE_PATH,
  NIC_MAC,
} from './support/infraenv.js';
import { expectIgnitionApplied, expectSecureBoot } from './support/guest-checks.js';
import { isoExtent, isoExtract, isoFileAt } from './support/iso-tools.js';
import { machineArgs } from './support/machine.js';
import { bootInTest, type BootResult, killAllGuests } from './support/qemu.js';
import { kargValues, parseSerialReport, type SerialReport } from './support/serial-report.js';
import { API, BootsmithService } from './support/service.js';

const ISO_BOOT_TIMEOUT_MS = 120_000;
const ISOLINUX_PREFIX = 'BOOT_IMAGE=/images/pxeboot/vmlinuz initrd=/images/pxeboot/initrd.img,/images/ignition.img';
/** What GRUB (the EFI boot path, EFI/fedora/grub.cfg) puts before the kargs area's contents. */
const GRUB_PREFIX = 'BOOT_IMAGE=/images/pxeboot/vmlinuz';
const SECTOR = 2048;

/**
 * Skips the running test, saying why where the default reporter shows it; under CI=true fails it
 * instead (unavailable(), test/support/requirements.ts), so a green CI run booted every case.
 */
function skip(t: TestContext, reason: string): never {
  unavailable({ [`e2e: ${reason}`]: false });
  return t.skip(reason);
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** What a discovery boot must show: exactly this Ignition, applied by Ignition, and this command line. */
function expectDiscoveryBoot(report: SerialReport, expected: { ignition: Buffer; cmdline: string }): void {
  expect(report.begun, 'the fixture /init never reported (see the serial log)').toBe(true);
  expect(report.ended, 'the /init report is incomplete').toBe(true);
  expect(report.absent, 'the guest found no /config.ign: the kernel did not unpack the embedded archive').not.toContain(
    '/config.ign',
  );
  const config = report.files.get('/config.ign');
  expect(config?.content.toString('utf8')).toBe(expected.ignition.toString('utf8'));
  expect(config?.sha256).toBe(sha256(expected.ignition));
  expect(report.cmdline).toBe(expected.cmdline);
  expectIgnitionApplied(report, expected.ignition);
}

bootSuite('discovery ISOs booted by real clients (qemu, TCG)', {}, (suite) => {
  let defaultKargs: string;
  let rootfs: Buffer;
  const kargsFor = (env: E2eInfraEnv): string => `${ISOLINUX_PREFIX} ${defaultKargs} ${env.kernelArguments.join(' ')}`;

  const boot = (t: TestContext, name: string, args: string[]): Promise<BootResult> =>
    suite.boot(t, { name, args, timeoutMs: ISO_BOOT_TIMEOUT_MS });

  async function download(url: string, file: string): Promise<Buffer> {
    const r = await fetch(url);
    if (r.status !== 200) throw new Error(`GET ${url}: ${r.status} ${await r.text()}`);
    const bytes = Buffer.from(await r.arrayBuffer());
    await writeFile(file, bytes);
    return bytes;
  }

  suite.startService(() => ({ name: 'iso' }));
  beforeAll(async () => {
    const kargsJson = await isoExtract(suite.ctx.baseIso, '/coreos/kargs.json');
    defaultKargs = (JSON.parse(kargsJson?.toString('utf8') ?? '{}') as { default: string }).default;
    rootfs = (await isoExtract(suite.ctx.baseIso, '/images/pxeboot/rootfs.img')) ?? Buffer.alloc(0);
    expect(defaultKargs).toMatch(/coreos\.liveiso=/);
    expect(rootfs.length).toBeGreaterThan(0);
  });

  it('1. full.iso downloaded with a plain HTTP client boots with exactly the discovery Ignition and the promised kargs', async (t) => {
    const env = await createInfraEnv(suite.service, {
      name: 'e2e-download',
      kernelArguments: ['console=ttyS0', 'bootsmith.e2e=download', 'bootsmith.note="spliced kargs"'],
    });
    expect(env.downloadUrl).toBe(`${suite.service.url}/byid/${env.id}/4.17/x86_64/full.iso`);
    // The Ignition carries the static network keyfile for the guest's NIC (full ISOs route it there).
    expect(ignitionFile(env.discoveryIgnition, KEYFILE_PATH)).toContain(`mac-address=${NIC_MAC.toUpperCase()}`);

    const isoPath = path.join(suite.ctx.runDir, 'download-full.iso');
    const iso = await download(env.downloadUrl, isoPath);
    expect(iso.length).toBe(suite.ctx.manifest.size);

    const result = await boot(t, 'iso-download', ['-nic', 'none', '-boot', 'order=d', '-cdrom', isoPath]);
    const report = parseSerialReport(result.serial);
    expectDiscoveryBoot(report, { ignition: env.discoveryIgnition, cmdline: kargsFor(env) });
    expect(report.firmware).toEqual({ kind: 'bios' });
    // The keyfile as Ignition wrote it into the live root: mode 0600, the config's bytes.
    expect(report.tree.get(KEYFILE_PATH)).toMatchObject({ type: 'f', mode: 0o600, uid: 0 });
    const keyfile = ignitionFile(report.files.get('/config.ign')?.content ?? Buffer.alloc(0), KEYFILE_PATH);
    expect(keyfile).toContain('address1=10.0.2.15/24,10.0.2.2');
    expect(result.exitCode).toBe(0);
  });

  it("2. BMC virtual media: boots from the /byid URL through qemu's HTTP block driver, costing one Ignition lookup", async (t) => {
    const env = await createInfraEnv(suite.service, {
      name: 'e2e-virtual-media',
      kernelArguments: ['console=ttyS0', 'bootsmith.e2e=virtual-media'],
    });
    expect(env.downloadUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/byid\/[0-9a-f-]{36}\/4\.17\/x86_64\/full\.iso$/);
    const route = '/byid/:id/:version/:arch/:filename';
    const before = {
      misses: await suite.service.metric('bootsmith_ignition_lookups_total', { result: 'miss' }),
      heads: await suite.service.metric('bootsmith_http_requests_total', { route, method: 'HEAD', status: '200' }),
      ranges: await suite.service.metric('bootsmith_http_requests_total', { route, method: 'GET', status: '206' }),
    };
    // qemu's curl driver: HEAD for the size, then Range GETs, as a BMC reads virtual media.
    const drive = `if=none,id=cd0,media=cdrom,readonly=on,driver=raw,file.driver=http,file.url=${env.downloadUrl.replaceAll(',', ',,')}`;
    const result = await boot(t, 'iso-virtual-media', [
      '-nic',
      'none',
      '-drive',
      drive,
      '-device',
      'ide-cd,drive=cd0,bootindex=0',
    ]);
    expectDiscoveryBoot(parseSerialReport(result.serial), { ignition: env.discoveryIgnition, cmdline: kargsFor(env) });

    const misses = (await suite.service.metric('bootsmith_ignition_lookups_total', { result: 'miss' })) - before.misses;
    const heads =
      (await suite.service.metric('bootsmith_http_requests_total', { route, method: 'HEAD', status: '200' })) -
      before.heads;
    const ranges =
      (await suite.service.metric('bootsmith_http_requests_total', { route, method: 'GET', status: '206' })) -
      before.ranges;
    console.log(
      `e2e iso-virtual-media: qemu sent ${heads} HEAD and ${ranges} Range GETs; ${misses} Ignition lookup miss(es)`,
    );
    expect(heads).toBeGreaterThanOrEqual(1);
    expect(ranges).toBeGreaterThan(1);
    // A fresh InfraEnv: its first request must miss once; every other request must hit the cache.
    expect(misses).toBe(1);
  });

  it('3. negative: an ISO whose archive is written one sector early boots without the config, and the checks above reject it', async (t) => {
    // Incompressible padding in the Ignition makes the archive span several sectors, so the
    // shifted copy leaves a truncated archive in the area (a small one would leave only zeros).
    const padding = randomBytes(3 * SECTOR).toString('hex');
    const env = await createInfraEnv(suite.service, {
      name: 'e2e-broken',
      kernelArguments: ['console=ttyS0', 'bootsmith.e2e=broken'],
      ignitionConfigOverride: JSON.stringify({
        ignition: { version: '3.1.0' },
        storage: { files: [{ path: '/etc/e2e-padding', mode: 420, contents: { source: `data:,${padding}` } }] },
      }),
    });
    const iso = Buffer.from(await (await fetch(env.downloadUrl)).arrayBuffer());
    // Where the embed area is, by xorriso, cross-checked with bootsmith's parser.
    const extent = isoExtent(suite.ctx.baseIso, '/images/ignition.img');
    expect(extent).toEqual({ offset: suite.ctx.manifest.ignition.offset, size: suite.ctx.manifest.ignition.length });
    const { offset, size } = extent ?? { offset: 0, size: 0 };
    expect(iso.subarray(offset, offset + 2).toString('hex')).toBe('1f8b'); // the served ISO has a gzip archive there
    expect(
      iso.subarray(offset + SECTOR, offset + 2 * SECTOR).some((b) => b !== 0),
      'the archive should span more than one sector',
    ).toBe(true);
    // The bug: the archive lands one sector before the area, over the end of the previous file
    // (coreos metadata nothing reads at boot); the area keeps only the archive's tail.
    expect(['/coreos/kargs.json', '/coreos/miniso.dat']).toContain(isoFileAt(suite.ctx.baseIso, offset - SECTOR));
    iso.copy(iso, offset - SECTOR, offset, offset + size);
    iso.fill(0, offset + size - SECTOR, offset + size);
    const isoPath = path.join(suite.ctx.runDir, 'broken-full.iso');
    await writeFile(isoPath, iso);

    const result = await boot(t, 'iso-broken-embed', ['-nic', 'none', '-boot', 'order=d', '-cdrom', isoPath]);
    const report = parseSerialReport(result.serial);
    // The guest booted and reported (the fixture works) ...
    expect(report.ended).toBe(true);
    expect(report.cmdline).toBe(kargsFor(env));
    // ... but received no Ignition: the kernel rejected what is left of the archive,
    expect(report.absent).toContain('/config.ign');
    expect(report.ignition.size, 'Ignition ran without a config').toBe(0);
    expect(result.log).toMatch(/rootfs image is not initramfs|Initramfs unpacking failed/);
    // and the assertion the positive cases rely on fails.
    expect(() => expectDiscoveryBoot(report, { ignition: env.discoveryIgnition, cmdline: kargsFor(env) })).toThrow(
      /no \/config\.ign/,
    );
  });

  it('4. minimal ISO: coreos.live.rootfs_url points at this service, which serves the rootfs', async (t) => {
    if (!suite.ctx.minimalPacked) {
      skip(t, `minimal ISO case SKIPPED: ${suite.ctx.minimalSkipReason ?? 'the base ISO carries no miniso.dat'}`);
    }
    // The service derives the minimal ISO from miniso.dat in the background once the base image
    // is loaded; wait until no image reports work pending (bounded).
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      if (!/"(pending|building|rebuilding)"/.test(await (await fetch(`${suite.service.url}/health`)).text())) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    let env: E2eInfraEnv;
    try {
      env = await createInfraEnv(suite.service, {
        name: 'e2e-minimal',
        kernelArguments: ['console=ttyS0', 'bootsmith.e2e=minimal'],
        imageType: 'minimal-iso',
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/expected 201, got 400/.test(message))
        skip(t, `minimal ISO case SKIPPED: the service refuses minimal-iso InfraEnvs for this image (${message})`);
      throw err;
    }
    expect(env.downloadUrl).toBe(`${suite.service.url}/byid/${env.id}/4.17/x86_64/minimal.iso`);
    const r = await fetch(env.downloadUrl);
    if (r.status === 400) {
      const reason = await r.text();
      skip(t, `minimal ISO case SKIPPED: the service does not serve minimal ISOs yet (400 ${reason})`);
    }
    expect(r.status).toBe(200);
    const isoPath = path.join(suite.ctx.runDir, 'download-minimal.iso');
    const iso = Buffer.from(await r.arrayBuffer());
    await writeFile(isoPath, iso);
    expect(iso.length).toBeLessThan(suite.ctx.manifest.size);
    expect(isoExtent(isoPath, '/images/pxeboot/rootfs.img'), 'a minimal ISO has no rootfs').toBeUndefined();

    const result = await boot(t, 'iso-minimal', ['-nic', 'none', '-boot', 'order=d', '-cdrom', isoPath]);
    const report = parseSerialReport(result.serial);
    expect(report.ended).toBe(true);
    const config = report.files.get('/config.ign');
    expect(config?.content.toString('utf8')).toBe(env.discoveryIgnition.toString('utf8'));
    const cmdline = report.cmdline ?? '';
    expect(cmdline.startsWith(`${ISOLINUX_PREFIX} `)).toBe(true);
    expect(cmdline).not.toMatch(/coreos\.liveiso=/);
    expect(cmdline).toContain(` ${env.kernelArguments.join(' ')}`);
    // The value may be quoted (GRUB needs `&` quoted); the kernel and dracut strip the quotes.
    const urls = kargValues(cmdline, 'coreos.live.rootfs_url');
    expect(urls).toHaveLength(1);
    const rootfsUrl = urls[0] ?? '';
    expect(rootfsUrl.startsWith(`${suite.service.baseUrl}/boot-artifacts/rootfs?`)).toBe(true);
    const served = await fetch(rootfsUrl);
    expect(served.status).toBe(200);
    expect(sha256(Buffer.from(await served.arrayBuffer()))).toBe(sha256(rootfs));
  });

  it('5. AUTH_TYPE=local, UEFI with Secure Boot enforced: boots through the HTTP block driver from the short /bytoken/ download_url, recorded as one boot event', async (t) => {
    const local = await BootsmithService.start({
      name: 'iso-local',
      cli: suite.ctx.cli,
      baseIso: suite.ctx.baseIso,
      runDir: suite.ctx.runDir,
      env: { AUTH_TYPE: 'local' },
    });
    try {
      const env = await createInfraEnv(local, {
        name: 'e2e-short-token',
        kernelArguments: ['console=ttyS0', 'bootsmith.e2e=short-token'],
      });
      expect(env.downloadUrl).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/bytoken\/[A-Za-z0-9_-]{32}\/4\.17\/x86_64\/full\.iso$/,
      );
      expect((await fetch(`${local.url}/byid/${env.id}/4.17/x86_64/full.iso`, { method: 'HEAD' })).status).toBe(401);
      // OVMF with Microsoft's keys: shim (Microsoft-signed) → GRUB (Debian-signed) → kernel
      // (Debian-signed); GRUB reads EFI/fedora/grub.cfg, whose kargs area bootsmith spliced.
      const result = await bootInTest(
        t,
        {
          name: 'iso-short-token-secure-boot',
          runDir: suite.ctx.runDir,
          qemu: suite.ctx.qemu,
          args: await machineArgs(suite.ctx.runDir, 'iso-short-token-secure-boot', {
            firmware: 'uefi-secure-boot',
            cdrom: { url: env.downloadUrl },
          }),
          timeoutMs: ISO_BOOT_TIMEOUT_MS,
        },
        () => local.logTail(),
      );
      const report = parseSerialReport(result.serial);
      expectSecureBoot(report);
      expectDiscoveryBoot(report, {
        ignition: env.discoveryIgnition,
        cmdline: `${GRUB_PREFIX} ${defaultKargs} ${env.kernelArguments.join(' ')}`,
      });
      const events = JSON.parse(await local.expectCall('GET', `${API}/events?infra_env_id=${env.id}`, 200)) as {
        name: string;
        message: string;
      }[];
      const boots = events.filter((e) => e.name === 'discovery_image_requested');
      expect(boots.map((e) => e.message)).toEqual([
        expect.stringMatching(/^Discovery ISO requested by 127\.0\.0\.1 \(virtual media, /),
      ]);
    } finally {
      killAllGuests();
      await local.stop();
    }
  });

  it('6. bond + VLAN static networking for two hosts: the guest receives every keyfile', async (t) => {
    const hostA = [
      { mac_address: NIC_MAC, logical_nic_name: 'eno1' },
      { mac_address: '52:54:00:e2:e0:02', logical_nic_name: 'eno2' },
    ];
    const hostB = [
      { mac_address: '52:54:00:e2:e1:01', logical_nic_name: 'eno1' },
      { mac_address: '52:54:00:e2:e1:02', logical_nic_name: 'eno2' },
    ];
    const yaml = (ip: string) => `interfaces:
- {name: eno1, type: ethernet}
- {name: eno2, type: ethernet}
- name: bond0
  type: bond
  link-aggregation: {mode: 802.3ad, options: {miimon: '100', lacp_rate: fast}, port: [eno1, eno2]}
- name: bond0.42
  type: vlan
  vlan: {base-iface: bond0, id: 42}
  ipv4: {enabled: true, address: [{ip: ${ip}, prefix-length: 24}]}
routes:
  config: [{destination: 0.0.0.0/0, next-hop-address: 10.42.0.1}]
`;
    const env = await createInfraEnv(suite.service, {
      name: 'e2e-bond-vlan',
      kernelArguments: ['console=ttyS0', 'bootsmith.e2e=bond-vlan'],
      staticNetworkConfig: [
        { network_yaml: yaml('10.42.0.11'), mac_interface_map: hostA },
        { network_yaml: yaml('10.42.0.12'), mac_interface_map: hostB },
      ],
    });
    // What the API promises: the static-network-config download (tar of every host's keyfiles).
    const tar = Buffer.from(
      await (
        await fetch(
          `${suite.service.url}/api/assisted-install/v2/infra-envs/${env.id}/downloads/files?file_name=static-network-config`,
        )
      ).arrayBuffer(),
    );
    const promised = new Map<string, string>();
    for (let off = 0; off + 512 <= tar.length && tar[off] !== 0;) {
      const name = tar.toString('latin1', off, off + 100).replace(/\0.*$/s, '');
      const size = parseInt(
        tar
          .toString('latin1', off + 124, off + 136)
          .replace(/\0.*$/s, '')
          .trim(),
        8,
      );
      promised.set(name, tar.toString('utf8', off + 512, off + 512 + size));
      off += 512 + Math.ceil(size / 512) * 512;
    }
    const hostKeyA = NIC_MAC.replaceAll(':', '');
    expect([...promised.keys()].sort()).toEqual(
      ['bond0', 'bond0.42', 'eno1', 'eno2']
        .flatMap((n) => [`${n}-${hostKeyA}.nmconnection`, `${n}-525400e2e101.nmconnection`])
        .sort(),
    );

    const isoPath = path.join(suite.ctx.runDir, 'bond-vlan-full.iso');
    await download(env.downloadUrl, isoPath);
    const result = await boot(t, 'iso-bond-vlan', ['-nic', 'none', '-boot', 'order=d', '-cdrom', isoPath]);
    const report = parseSerialReport(result.serial);
    expectDiscoveryBoot(report, { ignition: env.discoveryIgnition, cmdline: kargsFor(env) });
    // In the guest: the Ignition it booted with writes each keyfile to NetworkManager's directory.
    const inGuest = ignitionFilesUnder(
      report.files.get('/config.ign')!.content,
      '/etc/NetworkManager/system-connections/',
    );
    expect(new Map([...inGuest].map(([p, c]) => [path.basename(p), c]))).toEqual(promised);
    const bond = inGuest.get(`/etc/NetworkManager/system-connections/bond0-${hostKeyA}.nmconnection`) ?? '';
    expect(bond).toContain('\ntype=bond\ninterface-name=bond0\nautoconnect=false\n');
    expect(bond).toContain('\n[bond]\nmode=802.3ad\nlacp_rate=fast\nmiimon=100\n');
    const vlan = inGuest.get(`/etc/NetworkManager/system-connections/bond0.42-${hostKeyA}.nmconnection`) ?? '';
    expect(vlan).toMatch(/\n\[vlan\]\nid=42\nparent=[0-9a-f-]{36}\n/);
    expect(vlan).toContain('address1=10.42.0.11/24,10.42.0.1\n');
    const port = inGuest.get(`/etc/NetworkManager/system-connections/eno1-${hostKeyA}.nmconnection`) ?? '';
    expect(port).toContain(`mac-address=${NIC_MAC.toUpperCase()}\n`);
    expect(port).toContain('slave-type=bond\n');
    expect(result.exitCode).toBe(0);
    // The full ISO's embed area carries them as files too, after config.ign (as coreos-installer's
    // `iso network embed`): the guest's initramfs finds them in etc/coreos-firstboot-network/.
    const firstboot = (r: ReturnType<typeof parseSerialReport>) =>
      new Map(
        [...r.files]
          .filter(([p]) => p.startsWith('/etc/coreos-firstboot-network/'))
          .map(([p, f]) => [path.basename(p), f.content.toString('utf8')]),
      );
    expect(firstboot(report)).toEqual(promised);

    if (!suite.ctx.minimalPacked) {
      console.warn(`e2e bond-vlan: minimal ISO part not run (${suite.ctx.minimalSkipReason ?? 'no miniso.dat'})`);
      return;
    }
    // The minimal ISO carries them as files: the guest finds them in etc/coreos-firstboot-network/.
    const minimal = await fetch(env.downloadUrl.replace('/full.iso', '/minimal.iso'));
    expect(minimal.status).toBe(200);
    const minimalPath = path.join(suite.ctx.runDir, 'bond-vlan-minimal.iso');
    await writeFile(minimalPath, Buffer.from(await minimal.arrayBuffer()));
    const r2 = await boot(t, 'iso-bond-vlan-minimal', ['-nic', 'none', '-boot', 'order=d', '-cdrom', minimalPath]);
    const report2 = parseSerialReport(r2.serial);
    expect(report2.ended).toBe(true);
    expect(firstboot(report2)).toEqual(promised);
  });
});
