// Keeps the Redfish emulator (test/support/redfish-emulator) honest with real clients: Debian's
// python3-sushy (the library Ironic uses) and redfishtool drive emulated BMCs of each profile the
// way their users do, and succeed; their error paths see what real BMCs answer (401 with a Redfish
// error, 5xx with a parsed ExtendedInfo message). If the emulator drifted from real Redfish, these
// clients — not ours — would notice.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isoSuite, startVirtualBmc } from '../../../test/support/redfish-emulator/index.js';
import { HAVE_OPENSSL, REPO_ROOT } from '../../../test/support/probes.js';
import { toolWorks, unavailable } from '../../../test/support/requirements.js';

const ISO = path.join(REPO_ROOT, 'fixtures', 'iso', 'x86_64.iso');
const SUSHY_SCRIPT = path.join(REPO_ROOT, 'test', 'support', 'redfish-emulator', 'clients', 'sushy_boot.py');
/** Debian's interpreter: python3-sushy lives in its dist-packages, not in a pyenv or venv python. */
const PYTHON = '/usr/bin/python3';
const HAVE_SUSHY = toolWorks(PYTHON, ['-c', 'import sushy']);
const HAVE_REDFISHTOOL = toolWorks('redfishtool', ['-V']);
const PASSWORD = 'emulator-password';

interface SushyRun {
  ok: boolean;
  steps: { what: string; [k: string]: unknown }[];
  error?: { class: string; status?: number; code?: string; message: string };
}

/**
 * The environment of the clients: without REQUESTS_CA_BUNDLE/CURL_CA_BUNDLE, which python-requests
 * lets override the `verify=<CA file>` sushy sets on its session (requests issue 3829).
 */
const CLIENT_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k !== 'REQUESTS_CA_BUNDLE' && k !== 'CURL_CA_BUNDLE'),
);

/** Runs a client as a child process without blocking the event loop (the emulator answers from it). */
function run(command: string, args: string[]): Promise<{ status: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: 'utf8', timeout: 60_000, env: CLIENT_ENV }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ status, out: stdout, err: stderr });
    });
  });
}

async function sushy(args: Record<string, unknown>): Promise<SushyRun> {
  const r = await run(PYTHON, [SUSHY_SCRIPT, JSON.stringify(args)]);
  const last = r.out.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(last) as SushyRun;
  } catch {
    throw new Error(`sushy_boot.py printed no result (exit ${r.status}):\n${r.out}\n${r.err}`);
  }
}

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL, 'python3-sushy': HAVE_SUSHY }))(
  'sushy drives the emulator',
  () => {
    const isos = isoSuite(ISO, 'discovery.iso');

    // profile, power at start, slot that takes the image, boot target sushy ends up setting, extra script args
    const ROWS: [string, 'On' | 'Off', string, string, Record<string, unknown>][] = [
      ['generic', 'Off', 'CD1', 'Cd', {}],
      ['supermicro', 'On', 'CD1', 'UsbCd', {}], // sushy omits Inserted/WriteProtected and switches Cd → UsbCd for Supermicro
      ['lenovo-xcc', 'Off', 'EXT1', 'Cd', {}], // no action: sushy PATCHes because the slot's Allow lists PATCH
      ['hpe-ilo7', 'On', '2', 'Cd', { https: true }], // EjectMedia without a body → 415 → sushy retries with {}
      ['cisco', 'Off', '2', 'Cd', {}], // slot 0 → 405, slot 1 → 400, slot 2 (DVD) works
      ['transfer-stream', 'Off', 'CD1', 'Cd', { transfer_method: 'Stream' }], // sushy adds TransferProtocolType after the 400
    ];

    it.each(ROWS)(
      '%s: insert, boot once from CD, power — and the guest reads the ISO',
      async (profile, power, slotId, target, extra) => {
        const { bmc, guest } = await startVirtualBmc({
          name: profile,
          profile,
          tls: isos.certs,
          imageCa: isos.certs.caPem,
          initialPower: power,
        });
        try {
          // A previous image in the slot, so sushy's eject path runs too.
          const slot = bmc.model.slots.find((s) => s.spec.id === slotId);
          if (slot) Object.assign(slot, { image: 'https://192.0.2.1/old.iso', inserted: true });
          const iso = extra.https ? isos.https : isos.http;
          const run = await sushy({
            base_url: bmc.origin,
            username: 'admin',
            password: PASSWORD,
            verify: isos.certs.caFile,
            image: iso.url,
            transfer_method: extra.transfer_method ?? null,
          });
          expect(run.error).toBeUndefined();
          expect(run.ok).toBe(true);
          expect(run.steps.find((s) => s.what === 'eject')).toEqual({ what: 'eject', slot: slotId });
          expect(run.steps.find((s) => s.what === 'slot')).toEqual({
            what: 'slot',
            slot: slotId,
            image: iso.url,
            inserted: true,
          });
          expect(run.steps.find((s) => s.what === 'boot')).toEqual({ what: 'boot', target, enabled: 'Once' });
          expect(run.steps.find((s) => s.what === 'reset')?.type).toBe(power === 'On' ? 'ForceRestart' : 'On');
          // sushy logged in with a Redfish session and used it.
          expect(
            bmc.requests.some(
              (r) => r.method === 'POST' && r.path.endsWith('/SessionService/Sessions') && r.status === 201,
            ),
          ).toBe(true);
          expect(bmc.requests.filter((r) => r.auth === 'session').length).toBeGreaterThan(5);
          // The guest booted from the CD and read the image.
          expect(bmc.model.boots.map((b) => b.fromCd)).toEqual([true]);
          await guest.settled();
          expect(guest.boots.at(-1)).toMatchObject({ fromCd: true, done: true, url: iso.url });
          if (profile === 'hpe-ilo7') {
            const ejects = bmc.requests.filter((r) => r.path.endsWith('EjectMedia')).map((r) => r.status);
            expect(ejects).toEqual([415, 204]);
          }
          if (profile === 'transfer-stream') {
            const inserts = bmc.requests.filter((r) => r.path.endsWith('InsertMedia'));
            expect(inserts.map((r) => r.status)).toEqual([400, 204]);
            expect(inserts[1]?.body).toMatchObject({ TransferProtocolType: 'HTTP', TransferMethod: 'Stream' });
          }
        } finally {
          await bmc.close();
          await guest.close();
        }
      },
    );

    it.each(['dell-idrac', 'dell-idrac10'])(
      '%s: sushy 4.3 reads the System, sets the boot override and resets (it has no System-level VirtualMedia, which iDRAC ≥ 6.00.02 uses)',
      async (profile) => {
        const { bmc, guest } = await startVirtualBmc({ name: profile, profile, tls: isos.certs, initialPower: 'On' });
        try {
          const run = await sushy({
            base_url: bmc.origin,
            username: 'admin',
            password: PASSWORD,
            verify: isos.certs.caFile,
            only: 'system',
          });
          expect(run.error).toBeUndefined();
          expect(run.steps[0]).toMatchObject({
            what: 'system',
            id: 'System.Embedded.1',
            power: 'On',
            manufacturer: 'Dell Inc.',
          });
          expect(run.steps.find((s) => s.what === 'boot')).toEqual({ what: 'boot', target: 'Cd', enabled: 'Once' });
          expect(bmc.model.boots.map((b) => b.how)).toEqual(['ForceRestart']);
        } finally {
          await bmc.close();
          await guest.close();
        }
      },
    );

    it('uefi-http: sushy 4.3 reads the System (HttpBootUri shown), sets the one-time UefiHttp override and resets; without a URI nothing HTTP-boots', async () => {
      const { bmc, guest } = await startVirtualBmc({ name: 'uefi-http', profile: 'uefi-http', tls: isos.certs });
      try {
        const run = await sushy({
          base_url: bmc.origin,
          username: 'admin',
          password: PASSWORD,
          verify: isos.certs.caFile,
          only: 'system',
          target: 'UefiHttp',
        });
        expect(run.error).toBeUndefined();
        expect(run.steps.find((s) => s.what === 'boot')).toEqual({ what: 'boot', target: 'UefiHttp', enabled: 'Once' });
        const patch = bmc.requests.find((r) => r.method === 'PATCH' && r.path === bmc.model.systemPath);
        expect((patch?.body as { Boot: Record<string, string> }).Boot).toMatchObject({
          BootSourceOverrideTarget: 'UefiHttp',
          BootSourceOverrideEnabled: 'Once',
        });
        // Debian's sushy 4.3 has UefiHttp but no http_boot_uri (added in later sushy): the emulated
        // firmware gets no URI and boots nothing, as a real one would.
        expect(bmc.model.boots).toEqual([expect.objectContaining({ how: 'On', httpRefused: 'no HttpBootUri set' })]);
      } finally {
        await bmc.close();
        await guest.close();
      }
    });

    it('wrong password: sushy falls back from sessions to Basic, then gets 401 AccessError with the Redfish code', async () => {
      const { bmc, guest } = await startVirtualBmc({ name: 'b', profile: 'generic', tls: isos.certs });
      try {
        const run = await sushy({
          base_url: bmc.origin,
          username: 'admin',
          password: 'wrong',
          verify: isos.certs.caFile,
          image: isos.http.url,
        });
        expect(run.ok).toBe(false);
        expect(run.error).toMatchObject({ class: 'AccessError', status: 401, code: 'Base.1.8.NoValidSession' });
        expect(bmc.requests.filter((r) => r.status === 401).map((r) => r.method)).toContain('POST');
      } finally {
        await bmc.close();
        await guest.close();
      }
    });

    it('a 503 on InsertMedia: sushy raises ServerSideError with the code and message of the error body', async () => {
      const { bmc, guest } = await startVirtualBmc({
        name: 'b',
        profile: 'generic',
        tls: isos.certs,
        faults: { serverErrors: { times: 'always', status: 503, match: { path: 'InsertMedia' } } },
      });
      try {
        const run = await sushy({
          base_url: bmc.origin,
          username: 'admin',
          password: PASSWORD,
          verify: isos.certs.caFile,
          image: isos.http.url,
        });
        expect(run.ok).toBe(false);
        expect(run.error).toMatchObject({
          class: 'ServerSideError',
          status: 503,
          code: 'Base.1.8.ServiceTemporarilyUnavailable',
        });
        expect(run.error?.message).toMatch(/The service is temporarily unavailable/);
      } finally {
        await bmc.close();
        await guest.close();
      }
    });
  },
);

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL, redfishtool: HAVE_REDFISHTOOL }))(
  'redfishtool drives the emulator',
  () => {
    const isos = isoSuite(ISO, 'discovery.iso');

    function redfishtool(
      origin: string,
      password: string,
      args: string[],
    ): Promise<{ status: number | null; out: string; err: string }> {
      const rhost = origin.replace(/^https:\/\//, '');
      // -S Always: https for every call (redfishtool does not verify certificates).
      return run('redfishtool', ['-r', rhost, '-u', 'admin', '-p', password, '-S', 'Always', '-T', '10', ...args]);
    }

    it.each(['generic', 'dell-idrac', 'supermicro', 'cisco'])(
      '%s: root, System, boot override, raw InsertMedia, reset — the guest boots from the CD',
      async (profile) => {
        const { bmc, guest } = await startVirtualBmc({ name: profile, profile, tls: isos.certs, initialPower: 'Off' });
        try {
          const root = await redfishtool(bmc.origin, PASSWORD, ['root']);
          expect(root.status, root.err).toBe(0);
          expect(JSON.parse(root.out)).toMatchObject({ Id: 'RootService', Product: bmc.model.profile.product });

          const system = await redfishtool(bmc.origin, PASSWORD, ['Systems', '-1']);
          expect(system.status, system.err).toBe(0);
          expect(JSON.parse(system.out)).toMatchObject({ Id: bmc.model.profile.systemId, PowerState: 'Off' });

          // setBootOverride knows the DMTF targets only; Supermicro's UsbCd goes through a plain PATCH.
          const cdTarget = bmc.model.profile.cdBootTargets[0] ?? 'Cd';
          const boot =
          cdTarget === 'Cd'
            ? await redfishtool(bmc.origin, PASSWORD, ['Systems', '-1', 'setBootOverride', 'Once', cdTarget])
            : await redfishtool(bmc.origin, PASSWORD, [
                'Systems', '-1', 'patch', JSON.stringify({ Boot: { BootSourceOverrideEnabled: 'Once', BootSourceOverrideTarget: cdTarget } }),
              ]); // prettier-ignore
          expect(boot.status, boot.err).toBe(0);
          expect(bmc.model.boot).toMatchObject({ enabled: 'Once', target: cdTarget });

          // The slot that takes images (Cisco: the DVD one); redfishtool has no VirtualMedia verb, so raw.
          const slot = bmc.model.slots.find((s) => s.spec.bootable);
          if (slot?.inserted) {
            // iDRAC: the stale image must come out first, or InsertMedia answers 500.
            const refused = await redfishtool(bmc.origin, PASSWORD, [
            'raw', 'POST', `${bmc.model.mediaPath}/${slot.spec.id}/Actions/VirtualMedia.InsertMedia`, '-d', JSON.stringify({ Image: isos.http.url }),
          ]); // prettier-ignore
            expect(refused.status).not.toBe(0);
            expect(refused.err).toMatch(/500/);
            const eject = await redfishtool(bmc.origin, PASSWORD, [
            'raw', 'POST', `${bmc.model.mediaPath}/${slot.spec.id}/Actions/VirtualMedia.EjectMedia`, '-d', '{}',
          ]); // prettier-ignore
            expect(eject.status, eject.err).toBe(0);
          }
          const insert = await redfishtool(bmc.origin, PASSWORD, [
          'raw', 'POST', `${bmc.model.mediaPath}/${slot?.spec.id}/Actions/VirtualMedia.InsertMedia`, '-d', JSON.stringify({ Image: isos.http.url }),
        ]); // prettier-ignore
          expect(insert.status, insert.err).toBe(0);
          expect(slot?.image).toBe(isos.http.url);

          const reset = await redfishtool(bmc.origin, PASSWORD, ['Systems', '-1', 'reset', 'On']);
          expect(reset.status, reset.err).toBe(0);
          expect(bmc.model.boots.map((b) => b.fromCd)).toEqual([true]);
          await guest.settled();
          expect(guest.boots.at(-1)).toMatchObject({ fromCd: true, done: true });
        } finally {
          await bmc.close();
          await guest.close();
        }
      },
    );

    it('wrong password: redfishtool fails with the 401', async () => {
      const { bmc, guest } = await startVirtualBmc({ name: 'b', profile: 'generic', tls: isos.certs });
      try {
        const r = await redfishtool(bmc.origin, 'wrong', ['Systems', '-1']);
        expect(r.status).not.toBe(0);
        expect(`${r.out}${r.err}`).toMatch(/401/);
      } finally {
        await bmc.close();
        await guest.close();
      }
    });
  },
);
