// UEFI HTTP Boot through the BMC (issue 33) against the Redfish emulator over HTTPS on loopback:
// per vendor way, what the client sends (the standard UefiHttp + HttpBootUri PATCH; Dell's
// HttpDev1* attributes, its BIOS job and the override; HPE iLO 5's UrlBootFile), that the emulated
// firmware HTTP-boots exactly the URI it was given (a HEAD and one GET of the whole ISO, as OVMF's
// HTTP Boot reads), that nothing else is written (no virtual media), and that a BMC that cannot
// HTTP-boot is refused with `unsupported` before any write. Virtual guests (no VM); the qemu proof
// is test/e2e/bmc-http-boot.test.ts.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isoSuite, startVirtualBmc } from '../../../test/support/redfish-emulator/index.js';
import { HAVE_OPENSSL, REPO_ROOT } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import { statusForError } from '../../error-status.js';
import { runBootDiscovery } from './boot-discovery.js';
import { RedfishClient } from './client.js';

const ISO = path.join(REPO_ROOT, 'fixtures', 'iso', 'x86_64.iso');
const instant = (): Promise<void> => Promise.resolve();

interface Row {
  emulator: string;
  /** Writes as `METHOD path-tail`, in order (resets apart). */
  writes: string[];
  way: string;
  https?: boolean;
}

const ROWS: Row[] = [
  { emulator: 'uefi-http', way: 'boot-uri', writes: ['PATCH Systems/1'] },
  { emulator: 'supermicro', way: 'boot-uri', writes: ['PATCH Systems/1'] },
  { emulator: 'hpe-ilo7', way: 'boot-uri', writes: ['PATCH Systems/1'], https: true },
  { emulator: 'hpe-ilo5', way: 'hpe-bios', writes: ['PATCH Systems/1/Bios/Settings', 'PATCH Systems/1'] },
  { emulator: 'dell-idrac', way: 'dell-bios',
    writes: ['PATCH Systems/System.Embedded.1/Bios/Settings', 'POST Managers/iDRAC.Embedded.1/Jobs', 'PATCH Systems/System.Embedded.1'] },
]; // prettier-ignore

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL }))('UEFI HTTP Boot through the emulated BMC', () => {
  const isos = isoSuite(ISO, 'minimal.iso');

  async function open(profile: string, initialPower: 'On' | 'Off' = 'Off') {
    const { bmc, guest } = await startVirtualBmc({
      name: profile,
      profile,
      tls: isos.certs,
      imageCa: isos.certs.caPem,
      initialPower,
    });
    const client = await RedfishClient.open({
      name: `bmc-${profile}`,
      address: bmc.rootUrl,
      username: 'admin',
      password: 'emulator-password',
      trust: { verify: 'ca-file', caFile: isos.certs.caFile },
      sleep: instant,
    });
    return { bmc, guest, client };
  }

  /** What changed the BMC's state: not reads, resets, or the client's own Redfish session (login and logout). */
  const writesOf = (requests: { method: string; path: string }[]): string[] =>
    requests
      .filter(
        (r) =>
          r.method !== 'GET' &&
          !r.path.endsWith('ComputerSystem.Reset') &&
          !r.path.startsWith('/redfish/v1/SessionService/Sessions'),
      )
      .map((r) => `${r.method} ${r.path.replace('/redfish/v1/', '')}`);

  it.each(ROWS.map((r) => [r.emulator, r] as const))(
    '%s: the firmware HTTP-boots the URI the BMC was given; no media; the override cleared after',
    async (_name, row) => {
      const { bmc, guest, client } = await open(row.emulator);
      try {
        const iso = row.https ? isos.https : isos.http;
        const before = iso.requests.length;
        const result = await runBootDiscovery(client, {
          imageUrl: isos.http.url,
          imageHttpsUrl: isos.https.url,
          bootMethod: 'http',
        });
        expect(result.error?.message).toBeUndefined();
        expect(result.steps.map((s) => `${s.step}:${s.status}`)).toEqual([
          'discover:done', 'read-power:done', 'eject:done', 'insert:done', 'boot-override:done', 'power:done',
        ]); // prettier-ignore
        expect(result.imageUrl).toBe(iso.url);
        expect(result.steps.find((s) => s.step === 'boot-override')?.data).toMatchObject({
          target: 'UefiHttp',
          way: row.way,
        });
        expect(writesOf(bmc.requests)).toEqual(row.writes);
        const override = bmc.requests.findLast((r) => r.method === 'PATCH' && r.path === bmc.model.systemPath);
        expect(override?.body).toEqual({
          Boot: {
            BootSourceOverrideEnabled: 'Once',
            BootSourceOverrideTarget: 'UefiHttp',
            BootSourceOverrideMode: 'UEFI',
            ...(row.way === 'boot-uri' ? { HttpBootUri: iso.url } : {}),
          },
        });
        if (row.way === 'dell-bios') {
          expect(bmc.requests.find((r) => r.path.endsWith('/Bios/Settings'))?.body).toEqual({
            Attributes: { HttpDev1EnDis: 'Enabled', HttpDev1Uri: iso.url, HttpDev1TlsMode: 'None' },
          });
          expect(bmc.model.bios.attributes).toMatchObject({ HttpDev1Uri: iso.url, HttpDev1TlsMode: 'None' });
        }
        if (row.way === 'hpe-bios') expect(bmc.model.bios.attributes.UrlBootFile).toBe(iso.url);

        // The emulated firmware: one HTTP boot of that URI, read as OVMF reads (HEAD, one whole GET).
        expect(bmc.model.boots).toEqual([expect.objectContaining({ fromCd: false, httpBootUri: iso.url })]);
        await guest.settled();
        expect(guest.boots.at(-1)).toMatchObject({ http: true, url: iso.url, done: true, requests: 2 });
        expect(guest.boots.at(-1)?.error).toBeUndefined();
        const reads = iso.requests.slice(before);
        expect(reads.map((r) => `${r.method} ${r.range ?? 'whole'}`)).toEqual(['HEAD whole', 'GET whole']);
        expect(bmc.model.slots.every((s) => !s.inserted || s.image?.includes('stale'))).toBe(true);

        // Once: the BMC dropped the override at the boot; clearing finds nothing to do; a second
        // power-on boots no HTTP again.
        expect(bmc.model.boot).toMatchObject({ enabled: 'Disabled', target: 'None' });
        expect(await client.clearBootOverride()).toEqual({ was: 'None' });
        await client.setPower('off');
        await client.setPower('on');
        expect(bmc.model.boots.map((b) => b.httpBootUri ?? 'no http')).toEqual([iso.url, 'no http']);
      } finally {
        await bmc.close();
        await guest.close();
      }
    },
  );

  it('clearBootOverride takes back an override not yet used (a cancelled boot)', async () => {
    const { bmc, guest, client } = await open('uefi-http');
    try {
      await client.setHttpBoot(isos.http.url);
      expect(bmc.model.boot).toMatchObject({ enabled: 'Once', target: 'UefiHttp', httpBootUri: isos.http.url });
      expect(await client.clearBootOverride()).toEqual({ was: 'UefiHttp' });
      expect(bmc.model.boot).toMatchObject({ enabled: 'Disabled', target: 'None' });
      await client.setPower('on');
      expect(bmc.model.boots.map((b) => b.httpBootUri)).toEqual([undefined]);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('auto: a BMC without virtual media HTTP-boots; one with a CD slot uses it', async () => {
    for (const [profile, method] of [
      ['uefi-http', 'http'],
      ['supermicro', 'virtual-media'],
    ] as const) {
      const { bmc, guest, client } = await open(profile);
      try {
        const result = await runBootDiscovery(client, { imageUrl: isos.http.url, bootMethod: 'auto' });
        expect(result.ok).toBe(true);
        const insert = result.steps.find((s) => s.step === 'insert');
        expect(insert?.data?.method === 'http' ? 'http' : 'virtual-media').toBe(method);
        expect(bmc.model.boots[0]?.httpBootUri !== undefined).toBe(method === 'http');
      } finally {
        await bmc.close();
        await guest.close();
      }
    }
  });

  it('a BMC that lists no UefiHttp: unsupported (422) before anything is written', async () => {
    const { bmc, guest, client } = await open('lenovo-xcc', 'On');
    try {
      const result = await runBootDiscovery(client, { imageUrl: isos.http.url, bootMethod: 'http' });
      expect(result.ok).toBe(false);
      expect(result.failedStep).toBe('boot-override');
      expect(result.error?.failure).toBe('unsupported');
      expect(statusForError(result.error)).toBe(422);
      expect(result.error?.message).toMatch(
        /bmc-lenovo-xcc.*boot-override.*HTTP boot: the System lists no UefiHttp boot target/,
      );
      expect(writesOf(bmc.requests)).toEqual([]);
      expect(bmc.requests.filter((r) => r.path.endsWith('ComputerSystem.Reset'))).toEqual([]);
      expect(bmc.model.boots).toEqual([]);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('Dell: the BIOS attributes without the configuration job are never applied, and the default TLS mode refuses http://', async () => {
    const { bmc, guest, client } = await open('dell-idrac');
    try {
      // What a client that skips the job (or keeps TlsMode OneWay) would get: no HTTP boot at all.
      bmc.model.bios.pending.HttpDev1EnDis = 'Enabled';
      bmc.model.bios.pending.HttpDev1Uri = isos.http.url;
      await client.setBootOnce('UEFI'); // Cd: the override alone
      await client.setPower('on');
      expect(bmc.model.bios.attributes.HttpDev1Uri).toBe('');
      await client.setPower('off');
      bmc.model.bios.jobs.push('JID_1');
      bmc.model.boot.enabled = 'Once';
      bmc.model.boot.target = 'UefiHttp';
      await client.setPower('on');
      expect(bmc.model.boots.at(-1)).toMatchObject({ httpRefused: 'HttpDev1TlsMode OneWay refuses the http:// URI' });
      await guest.settled();
      expect(guest.boots.some((b) => b.http)).toBe(false);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });
});
