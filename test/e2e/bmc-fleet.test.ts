// Issue 27, deliverable 7: a fleet booted by ONE command, `bootsmith bmc boot --all --infra-env ID
// --wait registered`, through emulated BMCs (test/support/redfish-emulator: TLS, QMP) of different
// vendor profiles in front of real qemu guests (TCG) that boot the InfraEnv's ISO through qemu's
// curl driver, apply their Ignition and register with the service as the discovery agent would
// (fixtures/guest/agent.sh, host id = the DMI UUID the BMC reports as System UUID):
//
//   dell-idrac   InsertMedia action, VirtualMedia under the System, a stale slot ejected first;
//                the host is on, idling at "no bootable device" → ForceRestart
//   lenovo-xcc   PATCH of the slot (no actions); the host is off → On
//   cisco        slot 0 answers 405, slot 1 400: the insert falls through to slot 2
//   hpe-ilo7     mounts only HTTPS: gets the https:// URL (the service serves HTTPS, and plain
//                HTTP for the others through HTTP_ROUTES=all)
//
// Each reaches "registered" and has its media ejected (the InfraEnv runs from RAM:
// coreos.liveiso.fromram, so eject=auto ejects). Three more BMCs (virtual guests: no VM) each fail
// ALONE with a clear reason while the others finish: a wrong password, one answering 503 to every
// call, one that accepts the insert but never reads the ISO (BMC_ISO_READ_TIMEOUT=60s).
// The service runs as an operator runs it (the built CLI, AUTH_TYPE=local, TLS); the fleet's wall
// time is printed for docs/developer/testing.md.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeCa, makeLeaf, type TestCa } from '../../src/http/transport/tls/test-support/certificates.js';
import {
  type EmulatedBmc,
  emulatedMacs,
  makeTestCertificates,
  QemuGuest,
  startEmulatedBmc,
  startVirtualBmc,
  type TestCertificates,
} from '../support/redfish-emulator/index.js';
import { unavailable } from '../support/requirements.js';
import { bootSuite } from './support/boot-suite.js';
import { createInfraEnv } from './support/infraenv.js';
import { qemuTrustingCa } from './support/qemu.js';
import { API } from './support/service.js';

const PASSWORD = 'fleet-e2e-BMC-pass';
/** The whole fleet, four TCG guests at once on a loaded two-core machine: generous. */
const FLEET_WITHIN_MS = 15 * 60_000;

interface Member {
  name: string;
  profile: string;
  power: 'On' | 'Off';
  uuid: string;
  macs: string[];
  guest?: QemuGuest;
  bmc?: EmulatedBmc;
}

async function read(file: string): Promise<string> {
  return readFile(file, 'latin1').catch(() => '');
}

bootSuite('a BMC fleet booted by one command (qemu, TCG)', {}, (suite) => {
  let ca: TestCa;
  let bmcCerts: TestCertificates;
  let qemu: string;
  let dir: string;
  const members: Member[] = [
    { name: 'r1-dell', profile: 'dell-idrac', power: 'On', uuid: randomUUID(), macs: emulatedMacs(201) },
    { name: 'r1-lenovo', profile: 'lenovo-xcc', power: 'Off', uuid: randomUUID(), macs: emulatedMacs(202) },
    { name: 'r1-cisco', profile: 'cisco', power: 'Off', uuid: randomUUID(), macs: emulatedMacs(203) },
    { name: 'r1-ilo7', profile: 'hpe-ilo7', power: 'Off', uuid: randomUUID(), macs: emulatedMacs(204) },
  ];
  const failing: EmulatedBmc[] = [];
  const outputs: string[] = [];

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> => {
    const started = Date.now();
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [suite.ctx.cli, ...args],
        {
          env: {
            PATH: process.env.PATH,
            BOOTSMITH_URL: suite.service.url,
            BOOTSMITH_TOKEN: suite.service.adminToken,
            NODE_EXTRA_CA_CERTS: ca.certFile,
          },
          maxBuffer: 16 * 1024 * 1024,
          timeout: FLEET_WITHIN_MS,
        },
        (err, stdout, stderr) => {
          outputs.push(stdout, stderr);
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout, stderr, ms: Date.now() - started });
        },
      );
    });
  };

  suite.startService(async () => {
    dir = path.join(suite.ctx.runDir, 'bmc-fleet');
    await mkdir(dir, { recursive: true });
    ca = makeCa(dir, 'bootsmith e2e fleet CA');
    // 127.0.0.1: qemu's curl driver and the CLI; 10.0.2.2: the guests' agents on qemu's user network
    const leaf = makeLeaf(dir, ca, 'server', ['127.0.0.1', '10.0.2.2', 'localhost']);
    return {
      name: 'bmc-fleet',
      tls: { certFile: leaf.certFile, keyFile: leaf.keyFile, caPem: ca.certPem },
      baseUrl: (port) => `https://127.0.0.1:${port}`,
      serviceBaseUrl: (port) => `https://10.0.2.2:${port}`,
      httpBaseUrl: (plainPort) => `http://127.0.0.1:${plainPort}`,
      env: {
        AUTH_TYPE: 'local',
        SERVICE_CA_CERT_FILE: ca.certFile,
        HTTP_ROUTES: 'all',
        BMC_ISO_READ_TIMEOUT: '60s',
      },
    };
  });
  beforeAll(async () => {
    const trust = qemuTrustingCa(suite.ctx.runDir, suite.ctx.qemu, ca.certFile);
    if ('why' in trust) unavailable({ [`e2e: a private mount namespace for qemu's CA bundle (${trust.why})`]: false });
    qemu = 'wrapper' in trust ? trust.wrapper : suite.ctx.qemu;
    bmcCerts = makeTestCertificates(dir);
    await writeFile(path.join(dir, 'password'), `${PASSWORD}\n`, { mode: 0o600 });
    await writeFile(path.join(dir, 'wrong-password'), 'not-the-password\n', { mode: 0o600 });
  });
  afterAll(async () => {
    for (const m of members) {
      await m.bmc?.close();
      await m.guest?.close();
    }
    for (const b of failing) await b.close();
  });

  it(
    'boot --all: four profiles reach registered with media ejected; a wrong password, a 5xx BMC and one that never reads fail alone',
    async (t) => {
      const env = await createInfraEnv(suite.service, {
        name: 'e2e-bmc-fleet',
        kernelArguments: ['console=ttyS0', 'bootsmith.e2e=bmc-fleet', 'coreos.liveiso.fromram'],
        staticNetworkConfig: [],
      });
      t.onTestFailed(async () => {
        for (const m of members) {
          if (!m.guest) continue;
          console.error(
            `--- ${m.name} serial:\n${(await read(m.guest.serialPath)).slice(-3000)}\n--- qemu: ${m.guest.qemuOutput}`,
          );
          console.error(
            `--- ${m.name} BMC: ${m.bmc?.requests.map((r) => `${r.method} ${r.path} ${r.status}`).join('\n')}`,
          );
        }
        console.error(await suite.service.logTail(80));
      });

      // The guests and their BMCs; the dell host is on and idles at "no bootable device".
      for (const m of members) {
        m.guest = await QemuGuest.start({
          name: `fleet-${m.name}`,
          qemu,
          dir,
          qemuArgs: [
            '-netdev',
            'user,id=n0',
            '-device',
            `virtio-net-pci,netdev=n0,mac=${m.macs[0]},romfile=`,
            '-uuid',
            m.uuid,
          ],
        });
        if (m.power === 'On') {
          await m.guest.powerOn(false);
          const log = m.guest.firmwareLogPath;
          for (const deadline = Date.now() + 60_000; !/No bootable device/i.test(await read(log));) {
            if (Date.now() > deadline) throw new Error(`${m.name}: SeaBIOS did not give up on the blank disk`);
            await delay(500);
          }
        }
        m.bmc = await startEmulatedBmc({
          name: m.name,
          profile: m.profile,
          username: 'root',
          password: PASSWORD,
          guest: m.guest,
          tls: bmcCerts,
          macs: m.macs,
          uuid: m.uuid,
        });
        const added = await cli([
          'bmc', 'add', m.name, '--address', m.bmc.systemUrl, '--username', 'root',
          '--password-file', path.join(dir, 'password'), '--ca-file', bmcCerts.caFile, '--infra-env', env.id,
        ]); // prettier-ignore
        expect(added.stderr).toBe('');
        expect(added.stdout).toMatch(new RegExp(`^${m.name}: ready: ${m.profile}\\b.*MACs ${m.macs.join(' ')}\\n$`));
      }
      // Three BMCs that fail, each in its own way, with virtual guests (no VM).
      const bad = async (name: string, password: string, faults = {}) => {
        const { bmc } = await startVirtualBmc({
          name,
          profile: 'generic',
          username: 'root',
          password: PASSWORD,
          tls: bmcCerts,
          faults,
        });
        failing.push(bmc);
        return cli([
          'bmc', 'add', name, '--address', bmc.rootUrl, '--username', 'root', '--password-file', path.join(dir, password),
          '--ca-file', bmcCerts.caFile, '--infra-env', env.id,
        ]); // prettier-ignore
      };
      const wrong = await bad('r1-wrong-password', 'wrong-password');
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(
        /^bootsmith: BMC r1-wrong-password: added, but the check failed: .*refused the credentials/,
      );
      expect((await bad('r1-5xx', 'password')).code).toBe(0);
      failing.at(-1)!.setFaults({ serverErrors: { times: 'always', status: 503 } });
      expect((await bad('r1-never-reads', 'password', { neverReadsIso: true })).code).toBe(0);

      // ONE command boots the fleet and follows every host to its registration.
      const boot = await cli([
        'bmc',
        'boot',
        '--all',
        '--infra-env',
        env.id,
        '--wait',
        'registered',
        '--timeout',
        '15m',
      ]);
      console.log(
        `e2e bmc fleet: \`bmc boot --all\` of ${members.length} qemu guests + 3 failing BMCs took ${(boot.ms / 1000).toFixed(1)} s\n${boot.stdout}`,
      );
      expect(boot.code).toBe(1);
      for (const m of members) {
        expect(boot.stdout).toContain(
          `${m.name}: registered done: host ${m.uuid} registered (matched by its id is the System UUID)`,
        );
        expect(boot.stdout).toMatch(
          new RegExp(`${m.name}: eject-media done: ejected slot\\(s\\) .*coreos\\.liveiso\\.fromram`),
        );
        expect(m.guest!.media()).toBeUndefined();
        expect(m.bmc!.model.boots.some((b) => b.fromCd)).toBe(true);
      }
      const failures = boot.stderr.split('\n').filter((l) => l.startsWith('  '));
      expect(boot.stderr).toMatch(/^bootsmith: 3 of 7 BMC\(s\) did not reach registered:/);
      expect(failures).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^ {2}r1-wrong-password: BMC "r1-wrong-password": discover: the BMC refused the credentials/,
          ),
          expect.stringMatching(
            /^ {2}r1-5xx: BMC "r1-5xx": discover: the BMC answered with an error .*HTTP 503, 4 attempts/,
          ),
          expect.stringMatching(/^ {2}r1-never-reads: the BMC never read the ISO within 60 s of powering the host$/),
        ]),
      );
      expect(failures).toHaveLength(3);

      // What the profiles did, as the BMCs saw it.
      const requests = (name: string) => members.find((m) => m.name === name)!.bmc!.requests;
      expect(requests('r1-lenovo').some((r) => r.method === 'PATCH' && r.path.includes('VirtualMedia'))).toBe(true);
      const cisco = requests('r1-cisco')
        .filter((r) => r.path.includes('InsertMedia'))
        .map((r) => r.status);
      expect(cisco[0]).toBe(405);
      expect(cisco.at(-1)).toBe(204);
      expect(
        requests('r1-dell')
          .filter((r) => r.path.endsWith('ComputerSystem.Reset'))
          .map((r) => (r.body as { ResetType: string }).ResetType),
      ).toEqual(['ForceRestart']);
      const ilo = requests('r1-ilo7').find((r) => r.path.includes('InsertMedia') && r.status === 204);
      expect((ilo?.body as { Image: string }).Image).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/bytoken\//);
      const dell = requests('r1-dell').find((r) => r.path.includes('InsertMedia') && r.status === 204);
      expect((dell?.body as { Image: string }).Image).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/bytoken\//);

      // The service agrees: four hosts registered with the BMCs' System UUIDs; `bmc show` tells the story.
      const hosts = JSON.parse(await suite.service.expectCall('GET', `${API}/infra-envs/${env.id}/hosts`, 200)) as {
        id: string;
      }[];
      expect(hosts.map((h) => h.id).sort()).toEqual(members.map((m) => m.uuid).sort());
      const shown = JSON.parse((await cli(['bmc', 'show', 'r1-ilo7'])).stdout) as {
        state: string;
        last_job: { host_id: string; steps: { name: string; status: string }[] };
      };
      expect(shown.state).toBe('ready');
      expect(shown.last_job.host_id).toBe(members[3]!.uuid);
      expect(shown.last_job.steps.every((s) => s.status === 'done')).toBe(true);

      // No password anywhere: the CLI's output, the service's log, the events.
      const events = await suite.service.expectCall('GET', `${API}/events?infra_env_id=${env.id}`, 200);
      const everything = outputs.join('\n') + (await readFile(suite.service.logPath, 'utf8')) + events;
      expect(everything).not.toContain(PASSWORD);
      expect(everything).not.toContain(Buffer.from(`root:${PASSWORD}`).toString('base64'));
    },
    FLEET_WITHIN_MS + 5 * 60_000,
  );
});
