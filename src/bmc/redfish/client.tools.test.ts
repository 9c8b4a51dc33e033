// The client against the Redfish emulator (test/support/redfish-emulator), every profile, over
// real HTTPS on loopback with a test CA: boot-discovery from a fresh BMC to a guest reading the ISO
// the way qemu's curl driver does, and what the emulator saw on the wire (bodies, methods, slots).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  emulatedMacs,
  type IsoServer,
  startIsoServer,
  type TestCertificates,
} from '../../../test/support/redfish-emulator/index.js';
import { HAVE_OPENSSL, REPO_ROOT } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import { runBootDiscovery } from './boot-discovery.js';
import type { ProfileId } from './profiles.js';
import { emulatorSetup } from './test-support/emulator-setup.js';

const ISO = path.join(REPO_ROOT, 'fixtures', 'iso', 'x86_64.iso');
const instant = (): Promise<void> => Promise.resolve();

interface Row {
  emulator: string;
  expected: ProfileId;
  initialPower: 'On' | 'Off';
  /** Slot that must end up holding the image. */
  slot: string;
  /** Insert requests (method path-suffix status) as the emulator saw them, in order. */
  inserts: string[];
  bootTarget: string;
  power: string[];
  https?: boolean;
}

// Emulator profile → what the client must detect and do (see both profile tables for the why).
const ROWS: Row[] = [
  { emulator: 'generic', expected: 'generic', initialPower: 'Off', slot: 'CD1',
    inserts: ['POST CD1/Actions/VirtualMedia.InsertMedia 204'], bootTarget: 'Cd', power: ['On'] },
  { emulator: 'dell-idrac', expected: 'dell-idrac', initialPower: 'On', slot: '1',
    inserts: ['POST 1/Actions/VirtualMedia.InsertMedia 204'], bootTarget: 'Cd', power: ['ForceRestart'] },
  { emulator: 'dell-idrac10', expected: 'dell-idrac10', initialPower: 'On', slot: '1',
    inserts: ['POST 1/Actions/VirtualMedia.InsertMedia 204'], bootTarget: 'Cd', power: ['ForceRestart'] },
  { emulator: 'hpe-ilo7', expected: 'hpe-ilo7', initialPower: 'Off', slot: '2', https: true,
    inserts: ['POST 2/Actions/VirtualMedia.InsertMedia 204'], bootTarget: 'Cd', power: ['On'] },
  { emulator: 'supermicro', expected: 'supermicro', initialPower: 'On', slot: 'CD1',
    inserts: ['POST CD1/Actions/VirtualMedia.InsertMedia 204'], bootTarget: 'UsbCd', power: ['ForceRestart'] },
  { emulator: 'lenovo-xcc', expected: 'lenovo-xcc', initialPower: 'Off', slot: 'EXT1',
    inserts: ['PATCH EXT1 204'], bootTarget: 'Cd', power: ['On'] },
  { emulator: 'cisco', expected: 'cisco', initialPower: 'On', slot: '2',
    inserts: ['POST 0/Actions/VirtualMedia.InsertMedia 405', 'POST 1/Actions/VirtualMedia.InsertMedia 400', 'POST 2/Actions/VirtualMedia.InsertMedia 204'],
    bootTarget: 'Cd', power: ['ForceRestart'] },
  { emulator: 'transfer-stream', expected: 'generic', initialPower: 'Off', slot: 'CD1',
    inserts: ['POST CD1/Actions/VirtualMedia.InsertMedia 400', 'POST CD1/Actions/VirtualMedia.InsertMedia 400', 'POST CD1/Actions/VirtualMedia.InsertMedia 204'],
    bootTarget: 'Cd', power: ['On'] },
]; // prettier-ignore

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL }))('RedfishClient against the emulator, every profile', () => {
  const setup = emulatorSetup('bmc-client', {
    name: 'bmc',
    username: 'admin',
    password: 'emulator-password',
    sleep: instant,
  });
  const { startBmc, open } = setup;
  let certs: TestCertificates;
  let httpIso: IsoServer;
  let httpsIso: IsoServer;

  beforeAll(async () => {
    certs = setup.certs;
    httpIso = await startIsoServer({ file: ISO, name: 'discovery.iso' });
    httpsIso = await startIsoServer({ file: ISO, name: 'discovery.iso', tls: certs });
  });
  afterAll(async () => {
    await httpIso?.close();
    await httpsIso?.close();
  });

  it.each(ROWS.map((r) => [r.emulator, r] as const))(
    '%s: boot-discovery inserts, overrides, powers and the guest reads the ISO',
    async (_name, row) => {
      const macs = emulatedMacs(ROWS.indexOf(row) + 1);
      const { bmc, guest } = await startBmc({
        name: row.emulator,
        profile: row.emulator,
        imageCa: certs.caPem,
        initialPower: row.initialPower,
        macs,
      });
      try {
        const client = await open(bmc.rootUrl, { name: `bmc-${row.emulator}` });
        const iso = row.https ? httpsIso : httpIso;
        const readsBefore = iso.requests.length;
        const result = await runBootDiscovery(client, {
          imageUrl: httpIso.url,
          imageHttpsUrl: httpsIso.url,
          bootMode: 'UEFI',
        });
        expect(result.error?.message).toBeUndefined();
        expect(result.ok).toBe(true);
        expect(result.steps.map((s) => `${s.step}:${s.status}`)).toEqual([
        'discover:done', 'read-power:done', 'eject:done', 'insert:done', 'boot-override:done', 'power:done',
      ]); // prettier-ignore
        expect(result.inventory?.profile.id).toBe(row.expected);
        expect(result.inventory?.macs).toEqual(macs);
        expect(result.inventory?.system.serialNumber).toBe(`EMU-${row.emulator}`);
        expect(result.imageUrl).toBe(iso.url);

        // On the wire: the insert requests in order, the boot override, the reset types.
        const media = bmc.model.mediaPath;
        const inserts = bmc.requests
          .filter(
            (r) =>
              (r.method === 'POST' && r.path.includes('InsertMedia')) ||
              (r.method === 'PATCH' && r.path.startsWith(media)),
          )
          .map((r) => `${r.method} ${r.path.slice(media.length + 1)} ${r.status}`);
        expect(inserts).toEqual(row.inserts);
        // iDRAC 10: on the System's Settings object, other BMCs: on the System.
        const bootAt = `${bmc.model.systemPath}${row.emulator === 'dell-idrac10' ? '/Settings' : ''}`;
        const bootPatch = bmc.requests.find((r) => r.method === 'PATCH' && r.path === bootAt);
        expect(bootPatch?.body).toEqual({
          Boot: {
            BootSourceOverrideEnabled: 'Once',
            BootSourceOverrideTarget: row.bootTarget,
            BootSourceOverrideMode: 'UEFI',
          },
        });
        const resets = bmc.requests
          .filter((r) => r.path.endsWith('ComputerSystem.Reset'))
          .map((r) => (r.body as { ResetType: string }).ResetType);
        expect(resets).toEqual(row.power);
        // One Redfish session (the root advertises it) on every call after the login, no Basic.
        const login = `${bmc.model.sessionsPath}`;
        expect(bmc.requests.filter((r) => r.method === 'POST' && r.path === login)).toHaveLength(1);
        const calls = bmc.requests.filter((r) => r.path !== '/redfish/v1' && r.path !== login);
        expect(calls.every((r) => r.auth === 'session')).toBe(true);
        expect(bmc.model.openSessions).toBe(1);

        // The BMC's state and the guest: the image in the right slot, one boot from CD, override used up.
        const slot = bmc.model.slots.find((s) => s.spec.id === row.slot);
        expect(slot?.image).toBe(iso.url);
        expect(slot?.inserted).toBe(true);
        expect(bmc.model.slots.filter((s) => s.inserted).map((s) => s.spec.id)).toEqual([row.slot]);
        expect(guest.media()).toBe(iso.url);
        expect(bmc.model.boots.map((b) => b.fromCd)).toEqual([true]);
        expect(bmc.model.boot.enabled).toBe('Disabled');
        await guest.settled();
        const boot = guest.boots.at(-1);
        expect(boot?.error).toBeUndefined();
        expect(boot?.done).toBe(true);
        expect(boot?.bytes).toBeGreaterThanOrEqual(iso.size);
        const reads = iso.requests.slice(readsBefore);
        expect(reads[0]).toMatchObject({ method: 'HEAD', status: 200 });
        expect(
          reads.slice(1).every((r) => r.method === 'GET' && r.status === 206 && /^bytes=\d+-\d+$/.test(r.range ?? '')),
        ).toBe(true);

        // Once more on the same BMC: idempotent where Redfish allows (the image is ejected and put back).
        const again = await runBootDiscovery(client, { imageUrl: httpIso.url, imageHttpsUrl: httpsIso.url });
        expect(again.ok).toBe(true);
        expect(again.steps.find((s) => s.step === 'eject')?.detail).toBe(`ejected slot(s) ${row.slot}`);
        expect(bmc.model.boots.map((b) => b.fromCd)).toEqual([true, true]);
        // The same session served both runs; close() ends it on the BMC.
        expect(client.auth.counts.created).toBe(1);
        await client.close();
        expect(bmc.model.openSessions).toBe(0);
      } finally {
        await bmc.close();
        await guest.close();
      }
    },
  );

  it('iDRAC: the stale Inserted slot is ejected first (without it InsertMedia answers 500)', async () => {
    const { bmc, guest } = await startBmc({ name: 'idrac', profile: 'dell-idrac' });
    try {
      expect(bmc.model.slots[0]?.inserted).toBe(true);
      const client = await open(bmc.systemUrl, { name: 'idrac', trust: { verify: 'ca-pem', caPem: certs.caPem } });
      // Straight to insert (as a caller skipping eject would): the BMC refuses, retried, then fails.
      await expect(client.insert(httpIso.url)).rejects.toThrow(
        /BMC "idrac": insert: .*HTTP 500, 4 attempts: The virtual media is already attached/,
      );
      expect(await client.ejectAll()).toEqual({ ejected: ['1'], empty: ['2'] });
      const inserted = await client.insert(httpIso.url);
      expect(inserted).toMatchObject({ slot: '1', method: 'action', alreadyInserted: false });
      // A second insert of the same URL sends nothing: the slot already shows it.
      const posts = bmc.requests.filter((r) => r.method === 'POST').length;
      expect(await client.insert(httpIso.url)).toMatchObject({ slot: '1', alreadyInserted: true });
      expect(bmc.requests.filter((r) => r.method === 'POST').length).toBe(posts);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('iLO 7 with only an http:// URL: a clear error before any insert', async () => {
    const { bmc, guest } = await startBmc({ name: 'ilo7', profile: 'hpe-ilo7' });
    try {
      const client = await open(bmc.rootUrl, { name: 'ilo7-rack3' });
      const result = await runBootDiscovery(client, { imageUrl: httpIso.url });
      expect(result.ok).toBe(false);
      expect(result.failedStep).toBe('insert');
      expect(result.error?.message).toMatch(
        /^BMC "ilo7-rack3": insert: not supported by this BMC: the HPE iLO 7 profile mounts only HTTPS URLs/,
      );
      expect(result.steps.map((s) => s.status)).toEqual(['done', 'done', 'done', 'failed', 'skipped', 'skipped']);
      expect(bmc.requests.some((r) => r.path.includes('InsertMedia'))).toBe(false);
      // The emulated iLO refuses http:// itself too, as the real one does (seen with the generic profile).
      const generic = await open(bmc.rootUrl, { name: 'ilo7-as-generic', profile: 'generic' });
      await expect(generic.insert(httpIso.url)).rejects.toThrow(
        /insert: the BMC answered with an error \(HTTP 400\): no slot took the image: slot 2: HTTP 400: Virtual media images must be given as HTTPS URLs/,
      );
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('Lenovo: a PATCH without Inserted attaches nothing, and the read-back catches it', async () => {
    const { bmc, guest } = await startBmc({ name: 'xcc', profile: 'lenovo-xcc' });
    try {
      // the wrong profile: POSTs to actions the XCC does not have
      const client = await open(bmc.rootUrl, { name: 'xcc', profile: 'generic' });
      const error = await client.insert(httpIso.url).catch((e: Error) => e);
      // generic: no InsertMedia action, and the slot's Allow header lists PATCH → PATCH with Inserted: works.
      expect(error).not.toBeInstanceOf(Error);
      const patch = bmc.requests.find((r) => r.method === 'PATCH');
      expect(patch?.body).toEqual({ Image: httpIso.url, Inserted: true, WriteProtected: true });
      // And a PATCH that leaves Inserted out is accepted but never shows up: the read-back says so.
      await client.ejectAll();
      const res = await fetchWithCa(`${bmc.model.mediaPath}/EXT1`, bmc.origin, certs.caPem, { Image: httpIso.url });
      expect(res).toBe(204);
      expect(bmc.model.slots[0]?.image).toBeUndefined();
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('resumes: a run that failed at insert (5xx storm) continues from insert, the steps before reported as done earlier', async () => {
    const { bmc, guest } = await startBmc({
      name: 'resume',
      profile: 'generic',
      faults: { serverErrors: { times: 'always', status: 503, match: { path: 'InsertMedia' } } },
    });
    try {
      const client = await open(bmc.rootUrl, { name: 'resume' });
      const seen: string[] = [];
      const first = await runBootDiscovery(
        client,
        { imageUrl: httpIso.url },
        { onStep: (s) => void seen.push(`${s.step}:${s.status}`) },
      );
      expect(first.ok).toBe(false);
      expect(first.failedStep).toBe('insert');
      expect(first.error?.message).toMatch(
        /^BMC "resume": insert: the BMC answered with an error \(POST .*InsertMedia → HTTP 503, 4 attempts: /,
      );
      expect(seen).toEqual([
        'discover:done',
        'read-power:done',
        'eject:done',
        'insert:failed',
        'boot-override:skipped',
        'power:skipped',
      ]);
      const insertStep = first.steps.find((s) => s.step === 'insert');
      expect(insertStep).toMatchObject({ retries: 3 });
      expect(bmc.model.boots).toEqual([]);

      bmc.setFaults({});
      const resumed = await runBootDiscovery(client, { imageUrl: httpIso.url }, { startAt: 'insert' });
      expect(resumed.ok).toBe(true);
      expect(resumed.steps.map((s) => `${s.step}:${s.status}:${s.status === 'skipped' ? s.detail : ''}`)).toEqual([
        'discover:skipped:done earlier', 'read-power:skipped:done earlier', 'eject:skipped:done earlier',
        'insert:done:', 'boot-override:done:', 'power:done:',
      ]); // prettier-ignore
      expect(bmc.model.boots.map((b) => b.fromCd)).toEqual([true]);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('a BMC that accepts the insert but never reads the ISO: every step succeeds, nothing reads the image', async () => {
    const { bmc, guest } = await startBmc({
      name: 'lazy',
      profile: 'generic',
      faults: { neverReadsIso: true },
    });
    try {
      const client = await open(bmc.rootUrl, { name: 'lazy' });
      const before = httpIso.requests.length;
      const result = await runBootDiscovery(client, { imageUrl: httpIso.url });
      expect(result.ok).toBe(true);
      // Redfish says inserted; only the ISO's reads (phase 2: boot events) can tell it never happened.
      expect(bmc.model.slots.find((s) => s.spec.id === 'CD1')).toMatchObject({ image: httpIso.url, inserted: true });
      expect(guest.media()).toBeUndefined();
      expect(bmc.model.boots.map((b) => b.fromCd)).toEqual([false]);
      expect(httpIso.requests.length).toBe(before);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('reports the inventory: serial, model, power, MACs, boot and reset capabilities, slots', async () => {
    const macs = emulatedMacs(42, 3);
    const { bmc, guest } = await startBmc({
      name: 'inv',
      profile: 'supermicro',
      macs,
      initialPower: 'On',
    });
    try {
      const client = await open(bmc.origin.replace('https://', ''), { name: 'inv' });
      const inventory = await client.inventory();
      expect(inventory).toMatchObject({
        address: `${bmc.origin}/redfish/v1`,
        profile: { id: 'supermicro', overridden: false },
        vendor: 'Supermicro',
        system: { manufacturer: 'Supermicro', model: 'SYS-221H-TNR', serialNumber: 'EMU-inv', powerState: 'On' },
        managers: [{ model: 'X12DPG-QT6', firmwareVersion: '01.01.06' }],
        macs,
        // Supermicro lists the reset types only in an ActionInfo: read from there.
        resetTypes: ['On', 'ForceOff', 'GracefulShutdown', 'GracefulRestart', 'ForceRestart', 'Nmi', 'ForceOn'],
      });
      expect(inventory.profile.reason).toMatch(/Supermicro/);
      expect(inventory.boot.allowedTargets).toContain('UsbCd');
      expect(inventory.virtualMedia.map((v) => `${v.id}:${v.mediaTypes.join('/')}:${v.inserted}`)).toEqual([
        'CD1:CD/DVD:false',
        'USB1:USBStick:false',
      ]);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });
});

/** A raw PATCH with Basic auth (what a careless client would send), for the Lenovo case. */
async function fetchWithCa(path: string, origin: string, ca: string, body: unknown): Promise<number> {
  const https = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${origin}${path}`,
      {
        method: 'PATCH',
        ca,
        agent: false,
        headers: {
          Authorization: `Basic ${Buffer.from('admin:emulator-password').toString('base64')}`,
          'Content-Type': 'application/json',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
