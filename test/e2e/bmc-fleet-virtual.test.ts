// Issue 33, deliverable 6, the CI version of the fleet at scale (bench/workloads/bmc-fleet-scale.ts
// runs 1,000): 50 emulated BMCs (HTTPS) with virtual guests that read the ISO in qemu's curl
// pattern and register as the discovery agent would, one in twenty each slow (50 KB/s), dead
// (accepts TCP, never answers), answering 409 to power-on for a minute after power-off, or
// session-limited (test/support/redfish-emulator/fleet-mix.ts), all booted by ONE
// `bootsmith bmc boot --all --wait registered` (the built CLI against the built service):
// every healthy host registers, each faulty one fails alone within its bound
// (fleet-outcomes.ts), and no session is left open on any BMC.
// Clocks scaled for CI: BMC_BOOT_TIMEOUT=15s (a slow reader needs ~9 min for the boot files),
// BMC_TLS_TIMEOUT=5s (the dead BMCs fail in 5 s, not 15 s) — the bounds are judged against them.
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { makeTestCertificates } from '../support/redfish-emulator/index.js';
import {
  closeGuests,
  type FleetMember,
  openSessions,
  startFleetMember,
} from '../support/redfish-emulator/fleet-mix.js';
import { judgeFleet, type JudgedBmc } from '../support/redfish-emulator/fleet-outcomes.js';
import { bootSuite } from './support/boot-suite.js';
import { createInfraEnv } from './support/infraenv.js';

const BMCS = 50;
const PASSWORD = 'fleet-virtual-e2e-BMC-pass';
const BMC_API = '/api/bootsmith/v1';
const BOOT_TIMEOUT_MS = 15_000;
const TLS_TIMEOUT_MS = 5_000;
const PROFILES = ['generic', 'dell-idrac', 'dell-idrac10', 'supermicro', 'lenovo-xcc', 'cisco', 'transfer-stream'];
/** Adds sent at once (each is a row, a sealed credential and a queued check). */
const ADD_CONCURRENCY = 10;

bootSuite('a fleet of 50 emulated BMCs, one in twenty each slow, dead, 409 or session-limited', {}, (suite) => {
  const members: FleetMember[] = [];
  let dir: string;

  suite.startService(async () => {
    dir = path.join(suite.ctx.runDir, 'bmc-fleet-virtual');
    await mkdir(dir, { recursive: true });
    return {
      name: 'bmc-fleet-virtual',
      env: {
        LOG_LEVEL: 'warn',
        BMC_BOOT_TIMEOUT: `${BOOT_TIMEOUT_MS / 1000}s`,
        BMC_TLS_TIMEOUT: `${TLS_TIMEOUT_MS / 1000}s`,
      },
    };
  });
  afterAll(async () => {
    await closeGuests(members);
    await Promise.all(members.map((m) => m.bmc.close()));
  });

  it('boot --all: every healthy host registers, each faulty BMC fails alone within its bound, no session left open', async (t) => {
    const started = Date.now();
    const env = await createInfraEnv(suite.service, {
      name: 'e2e-bmc-fleet-virtual',
      kernelArguments: [],
      staticNetworkConfig: [],
    });
    const m = suite.ctx.manifest;
    const extents = [m.files.kernel, m.files.initrd, m.ignition].filter((e) => e !== undefined);
    const certs = makeTestCertificates(dir);
    for (let i = 0; i < BMCS; i++) {
      members.push(
        await startFleetMember(i, {
          profiles: PROFILES,
          username: 'root',
          password: PASSWORD,
          tls: certs,
          read: { extents },
          localAddress: (index) => `127.0.33.${1 + index}`,
        }),
      );
    }
    t.onTestFailed(async () => console.error(await suite.service.logTail(60)));
    for (let i = 0; i < BMCS; i += ADD_CONCURRENCY) {
      await Promise.all(
        members.slice(i, i + ADD_CONCURRENCY).map(({ bmc }) =>
          suite.service.expectCall('POST', `${BMC_API}/bmcs`, 201, {
            name: bmc.name,
            address: bmc.systemUrl,
            username: 'root',
            password: PASSWORD,
            ca_pem: certs.caPem,
            infra_env_id: env.id,
          }),
        ),
      );
    }
    const list = async () =>
      JSON.parse(await suite.service.expectCall('GET', `${BMC_API}/bmcs?infra_env_id=${env.id}`, 200)) as (JudgedBmc & {
        state: string;
      })[];
    // the checks that run at add end first: the dead BMCs' within their TLS clock
    for (const deadline = Date.now() + 60_000; ; await delay(500)) {
      const bmcs = await list();
      if (bmcs.length === BMCS && bmcs.every((b) => b.state !== 'busy' && b.state !== 'new')) break;
      if (Date.now() > deadline) throw new Error('the BMC checks did not end within 60 s');
    }

    const boot = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [suite.ctx.cli, 'bmc', 'boot', '--all', '--infra-env', env.id, '--wait', 'registered', '--timeout', '5m'],
        {
          env: {
            PATH: process.env.PATH,
            BOOTSMITH_URL: suite.service.url,
            ...(suite.service.adminToken ? { BOOTSMITH_TOKEN: suite.service.adminToken } : {}),
          },
          maxBuffer: 16 * 1024 * 1024,
        },
        (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
    await closeGuests(members); // the slow readers stop reading
    const verdict = judgeFleet(members, await list(), { bootTimeoutMs: BOOT_TIMEOUT_MS });
    console.log(
      `e2e bmc fleet (virtual): ${BMCS} BMCs in ${((Date.now() - started) / 1000).toFixed(1)} s\n  ${verdict.roles.map((r) => r.summary).join('\n  ')}`,
    );
    expect(verdict.problems).toEqual([]);
    const faulty = members.filter(
      (x) => x.role === 'slow-reader' || x.role === 'never-answers' || x.role === 'power-on-409',
    );
    expect(boot.code).toBe(1);
    expect(boot.stderr).toMatch(
      new RegExp(`^bootsmith: ${faulty.length} of ${BMCS} BMC\\(s\\) did not reach registered:`),
    );
    expect(verdict.roles.map((r) => r.role).sort()).toEqual([
      'healthy',
      'never-answers',
      'power-on-409',
      'session-limit',
      'slow-reader',
    ]);
    expect(openSessions(members)).toBe(0);
    // what the faults did, as the BMCs saw it: the 409s were answered, the dead ones logged nothing
    for (const x of members.filter((y) => y.role === 'power-on-409'))
      expect(x.bmc.requests.some((r) => r.path.endsWith('ComputerSystem.Reset') && r.status === 409)).toBe(true);
    for (const x of members.filter((y) => y.role === 'never-answers')) expect(x.bmc.requests).toEqual([]);
  }, 240_000);
});
