// Keeps the emulator's session profiles honest with real clients (issue 33): Debian's python3-sushy
// (session auth by default, as Ironic uses it) and redfishtool (`-A Session`) log in to the
// session-only, session-limited (8, iDRAC's 503 RAC0218) and idrac10 profiles, read the System,
// and leave no session open; Basic is refused where a real iDRAC 10 refuses it, and sushy sets the
// iDRAC 10 boot override through the System's Settings object (as gofish PR 511 / MAAS PR 477 do).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTestCertificates,
  startVirtualBmc,
  type TestCertificates,
} from '../../../test/support/redfish-emulator/index.js';
import { HAVE_OPENSSL, REPO_ROOT } from '../../../test/support/probes.js';
import { toolWorks, unavailable } from '../../../test/support/requirements.js';

const SCRIPT = path.join(REPO_ROOT, 'test', 'support', 'redfish-emulator', 'clients', 'sushy_session.py');
const PYTHON = '/usr/bin/python3';
const HAVE_SUSHY = toolWorks(PYTHON, ['-c', 'import sushy']);
const HAVE_REDFISHTOOL = toolWorks('redfishtool', ['-V']);
const PASSWORD = 'emulator-password';
/** Without REQUESTS_CA_BUNDLE/CURL_CA_BUNDLE, which would override the CA sushy is given. */
const CLIENT_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k !== 'REQUESTS_CA_BUNDLE' && k !== 'CURL_CA_BUNDLE'),
);

function run(command: string, args: string[]): Promise<{ status: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: 'utf8', timeout: 60_000, env: CLIENT_ENV }, (error, stdout, stderr) => {
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, out: stdout, err: stderr });
    });
  });
}

interface SushyResult {
  ok: boolean;
  session?: boolean;
  sessions_listed?: number;
  power?: string;
  boot_override?: 'ok' | { class: string; status: number; code: string; message: string };
  error?: { class: string; status: number; code: string; message: string };
}

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL, 'python3-sushy': HAVE_SUSHY }))(
  'sushy and the session profiles',
  () => {
    let dir: string;
    let certs: TestCertificates;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'bmc-sushy-sessions-'));
      certs = makeTestCertificates(dir);
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    async function sushy(origin: string, extra: Record<string, unknown> = {}): Promise<SushyResult> {
      const r = await run(PYTHON, [
        SCRIPT,
        JSON.stringify({ base_url: origin, username: 'admin', password: PASSWORD, verify: certs.caFile, ...extra }),
      ]);
      try {
        return JSON.parse(r.out.trim().split('\n').pop() ?? '') as SushyResult;
      } catch {
        throw new Error(`sushy_session.py printed no result (exit ${r.status}):\n${r.out}\n${r.err}`);
      }
    }

    it.each(['session-only', 'session-limited', 'dell-idrac10'])(
      '%s: sushy logs in with a session, reads the System, and its close leaves nothing open',
      async (profile) => {
        const { bmc, guest } = await startVirtualBmc({ name: profile, profile, tls: certs });
        try {
          const r = await sushy(bmc.origin, { boot_override: profile === 'dell-idrac10' });
          expect(r.error).toBeUndefined();
          expect(r).toMatchObject({ ok: true, session: true, sessions_listed: 1, power: 'Off' });
          expect(bmc.model.sessionsCreated).toBe(1);
          // Every call after the login carried the token; the session POST carried nothing.
          const after = bmc.requests.filter((r) => !['/redfish/v1', '/redfish/v1/'].includes(r.path));
          expect(after[0]).toMatchObject({ method: 'POST', path: bmc.model.sessionsPath, auth: 'none', status: 201 });
          expect(after.slice(1, -1).every((q) => q.auth === 'session')).toBe(true);
          expect(bmc.model.openSessions).toBe(0);
          if (profile === 'dell-idrac10') {
            // sushy 4.3 reads the System's @Redfish.Settings object and PATCHes the boot override
            // there with its ETag — the shape bootsmith's idrac10 profile uses, checked independently.
            expect(r.boot_override).toBe('ok');
            const patches = bmc.requests.filter((q) => q.method === 'PATCH');
            expect(patches.map((q) => `${q.path} ${q.status}`)).toEqual([`${bmc.model.systemPath}/Settings 204`]);
            expect(bmc.model.boot).toMatchObject({ enabled: 'Once', target: 'Cd' });
          }
        } finally {
          await bmc.close();
          await guest.close();
        }
      },
    );

    it('session-limited with its 8 slots taken: sushy meets the 503 (RAC0218) and falls back to Basic', async () => {
      const { bmc, guest } = await startVirtualBmc({ name: 'full', profile: 'session-limited', tls: certs });
      try {
        bmc.model.occupySessions(8);
        const r = await sushy(bmc.origin);
        expect(r).toMatchObject({ ok: true, session: false, power: 'Off' });
        expect(bmc.requests.find((q) => q.method === 'POST' && q.path === bmc.model.sessionsPath)?.status).toBe(503);
        const systems = bmc.requests.filter((q) => q.path.startsWith('/redfish/v1/Systems'));
        expect(systems.every((q) => q.auth === 'basic')).toBe(true);
        expect(bmc.model.openSessions).toBe(8);
      } finally {
        await bmc.close();
        await guest.close();
      }
    });
  },
);

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL, redfishtool: HAVE_REDFISHTOOL }))(
  'redfishtool and the session profiles',
  () => {
    let dir: string;
    let certs: TestCertificates;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'bmc-redfishtool-sessions-'));
      certs = makeTestCertificates(dir);
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    function redfishtool(origin: string, args: string[]) {
      const rhost = origin.replace(/^https:\/\//, '');
      return run('redfishtool', ['-r', rhost, '-u', 'admin', '-p', PASSWORD, '-S', 'Always', '-T', '10', ...args]);
    }

    it.each(['session-only', 'dell-idrac10'])(
      '%s: -A Session reads the System and logs out; Basic (its default) is refused with 401',
      async (profile) => {
        const { bmc, guest } = await startVirtualBmc({ name: profile, profile, tls: certs });
        try {
          const withSession = await redfishtool(bmc.origin, ['-A', 'Session', 'Systems', '-1']);
          expect(withSession.status, withSession.err).toBe(0);
          expect(JSON.parse(withSession.out)).toMatchObject({ Id: bmc.model.systemPath.split('/').pop() });
          expect(bmc.model.sessionsCreated).toBe(1);
          expect(bmc.model.openSessions).toBe(0);
          const withBasic = await redfishtool(bmc.origin, ['Systems', '-1']);
          expect(withBasic.status).not.toBe(0);
          expect(`${withBasic.out}${withBasic.err}`).toMatch(/401|Unauthorized/i);
          expect(bmc.requests.some((r) => r.status === 401)).toBe(true);
        } finally {
          await bmc.close();
          await guest.close();
        }
      },
    );
  },
);
