// Issue 27, phase 1: a real qemu guest booted through an emulated BMC by the library's
// boot-discovery sequence (src/bmc/redfish), from the discovery ISO bootsmith serves.
//
// The emulator (test/support/redfish-emulator) listens on loopback with TLS (a test CA the client
// verifies) in front of a qemu guest driven over QMP: InsertMedia/PATCH → blockdev-add of the ISO
// URL through qemu's curl driver into the guest's CD drive; the one-time boot override → the CD's
// bootindex for the next reset only; Reset → system_reset/cont; PowerState from query-status.
// The guest's serial report (fixtures/build-bootable-iso.sh) proves it booted that ISO with the
// InfraEnv's Ignition; the next power-on without an override boots the blank disk again.
//
//   1. Dell iDRAC profile (InsertMedia action; VirtualMedia under the System; a stale Inserted
//      slot ejected first), host powered on and idling at "no bootable device" → ForceRestart
//   2. Lenovo XCC profile (PATCH of the slot, no actions), host powered off → On
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it, type TestContext } from 'vitest';
import { runBootDiscovery } from '../../src/bmc/redfish/boot-discovery.js';
import { RedfishClient } from '../../src/bmc/redfish/client.js';
import {
  type EmulatedBmc,
  emulatedMacs,
  makeTestCertificates,
  QemuGuest,
  startEmulatedBmc,
  type TestCertificates,
} from '../support/redfish-emulator/index.js';
import { bootSuite } from './support/boot-suite.js';
import { createInfraEnv } from './support/infraenv.js';
import { parseSerialReport } from './support/serial-report.js';

/** TCG boot of the fixture: ~40 s on an idle 2-core machine; generous for a loaded one. */
const BOOT_WITHIN_MS = 180_000;
const PASSWORD = 'e2e-bmc-password';

async function waitFor<T>(
  what: string,
  withinMs: number,
  probe: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs / 1000} s`);
    await delay(500);
  }
}

function read(file: string): string {
  try {
    return readFileSync(file, 'latin1');
  } catch {
    return '';
  }
}

bootSuite('boot through the Redfish emulator (qemu, TCG)', {}, (suite) => {
  let certs: TestCertificates;
  let certDir: string;
  let guest: QemuGuest | undefined;
  let bmc: EmulatedBmc | undefined;

  suite.startService(() => ({ name: 'redfish' }));
  beforeAll(() => {
    certDir = mkdtempSync(path.join(tmpdir(), 'e2e-redfish-'));
    certs = makeTestCertificates(certDir);
  });
  afterEach(async () => {
    await bmc?.close();
    await guest?.close();
    bmc = undefined;
    guest = undefined;
  });
  afterAll(() => {
    if (certDir) rmSync(certDir, { recursive: true, force: true });
  });

  function onFailure(t: TestContext, g: QemuGuest): void {
    t.onTestFailed(async () => {
      console.error(
        `--- serial (${g.serialPath}):\n${read(g.serialPath).slice(-6000)}\n--- SeaBIOS:\n${read(g.firmwareLogPath).slice(-3000)}\n` +
          `--- qemu said: ${g.qemuOutput}\n--- BMC requests:\n${bmc?.requests.map((r) => `${r.method} ${r.path} ${r.status}`).join('\n')}\n` +
          (await suite.service.logTail()),
      );
    });
  }

  const CASES: { profile: string; power: 'On' | 'Off'; insert: string; resets: string[] }[] = [
    { profile: 'dell-idrac', power: 'On', insert: 'POST', resets: ['ForceRestart'] },
    { profile: 'lenovo-xcc', power: 'Off', insert: 'PATCH', resets: ['On'] },
  ];

  it.for(CASES)('$profile: boot-discovery boots the discovery ISO once ($insert insert, $resets)', async (c, t) => {
    const env = await createInfraEnv(suite.service, {
      name: `e2e-redfish-${c.profile}`,
      kernelArguments: ['console=ttyS0', `bootsmith.e2e=redfish-${c.profile}`],
    });
    guest = await QemuGuest.start({ name: `redfish-${c.profile}`, qemu: suite.ctx.qemu, dir: suite.ctx.runDir });
    onFailure(t, guest);
    if (c.power === 'On') {
      // A host that is on and idle: SeaBIOS tried the blank disk and stopped at "no bootable device".
      await guest.powerOn(false);
      await waitFor('SeaBIOS to give up on the blank disk', 60_000, () =>
        /No bootable device/i.test(read(guest?.firmwareLogPath ?? '')) ? true : undefined,
      );
    }
    bmc = await startEmulatedBmc({
      name: c.profile,
      profile: c.profile,
      username: 'root',
      password: PASSWORD,
      guest,
      tls: certs,
      macs: emulatedMacs(7),
    });
    const requestsBefore = {
      heads: await suite.service.metric('bootsmith_http_requests_total', {
        route: '/byid/:id/:version/:arch/:filename',
        method: 'HEAD',
        status: '200',
      }),
      ranges: await suite.service.metric('bootsmith_http_requests_total', {
        route: '/byid/:id/:version/:arch/:filename',
        method: 'GET',
        status: '206',
      }),
    };

    const client = await RedfishClient.open({
      name: `e2e-${c.profile}`,
      address: bmc.systemUrl,
      username: 'root',
      password: PASSWORD,
      trust: { verify: 'ca-file', caFile: certs.caFile },
    });
    const started = Date.now();
    const result = await runBootDiscovery(client, { imageUrl: env.downloadUrl, bootMode: 'Legacy' });
    console.log(
      `e2e redfish ${c.profile}: boot-discovery in ${((Date.now() - started) / 1000).toFixed(1)} s, ${client.stats.calls} Redfish calls, ${client.stats.retries} retries; ` +
        result.steps.map((s) => `${s.step}: ${s.detail}`).join('; '),
    );
    expect(result.error?.message).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(result.inventory?.profile.id).toBe(c.profile);
    expect(
      bmc.requests
        .filter(
          (r) =>
            r.method === c.insert &&
            (r.path.includes('InsertMedia') || r.method === 'PATCH') &&
            r.path.includes('VirtualMedia'),
        )
        .map((r) => r.status),
    ).toEqual([204]);
    expect(
      bmc.requests
        .filter((r) => r.path.endsWith('ComputerSystem.Reset'))
        .map((r) => (r.body as { ResetType: string }).ResetType),
    ).toEqual(c.resets);
    expect(guest.media()).toBe(env.downloadUrl);

    // The guest booted the ISO through qemu's curl driver and reported on its serial port, then powered off.
    const g = guest;
    // Parsed once the END line is there (a half-written FILE would not parse yet).
    const serial = await waitFor('the guest to report', BOOT_WITHIN_MS, () => {
      const text = read(g.serialPath);
      return text.includes('\nBOOTSMITH-E2E END\n') ? text : undefined;
    });
    const report = parseSerialReport(Buffer.from(serial, 'latin1'));
    expect(report.ended).toBe(true);
    expect(report.cmdline).toContain(`bootsmith.e2e=redfish-${c.profile}`);
    expect(report.files.get('/config.ign')?.content.toString('utf8')).toBe(env.discoveryIgnition.toString('utf8'));
    await waitFor('the guest to power off', 60_000, async () => ((await g.powerState()) === 'Off' ? true : undefined));
    expect((await client.readSystem()).powerState).toBe('Off');
    const heads =
      (await suite.service.metric('bootsmith_http_requests_total', {
        route: '/byid/:id/:version/:arch/:filename',
        method: 'HEAD',
        status: '200',
      })) - requestsBefore.heads;
    const ranges =
      (await suite.service.metric('bootsmith_http_requests_total', {
        route: '/byid/:id/:version/:arch/:filename',
        method: 'GET',
        status: '206',
      })) - requestsBefore.ranges;
    console.log(
      `e2e redfish ${c.profile}: the guest's CD drive sent ${heads} HEAD and ${ranges} Range GETs to bootsmith`,
    );
    expect(heads).toBeGreaterThanOrEqual(1);
    expect(ranges).toBeGreaterThan(1);

    // The override was for one boot: the BMC cleared it, and the next power-on boots the blank disk.
    expect(bmc.model.boot).toMatchObject({ enabled: 'Disabled', target: 'None' });
    expect(bmc.model.boots.map((b) => b.fromCd)).toEqual([true]);
    const firmwareBefore = read(g.firmwareLogPath).length;
    const on = await client.setPower('on');
    expect(on.actions).toEqual(['On']);
    await waitFor('SeaBIOS to try the disk only', 60_000, () =>
      /No bootable device/i.test(read(g.firmwareLogPath).slice(firmwareBefore)) ? true : undefined,
    );
    expect(bmc.model.boots.map((b) => b.fromCd)).toEqual([true, false]);
    // And eject takes the medium out of the guest's drive.
    expect((await client.ejectAll()).ejected.length).toBe(1);
    expect(guest.media()).toBeUndefined();
  });
});
