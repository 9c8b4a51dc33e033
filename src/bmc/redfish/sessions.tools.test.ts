// Redfish sessions on the real path (issue 33): the client against emulated BMCs that take only
// sessions, have 8 slots, forget sessions, answer a session POST without a token or with a session
// URI on another host, never answer a session POST, hold a PATCH open, or answer 409 to a
// power-on after a power-off. Each ends in success or a typed error naming the BMC and the step,
// and never with a session left open on the BMC or a token in an error or a log event.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { HAVE_OPENSSL } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import type { RedfishCallEvent } from './call-event.js';
import { sharedCallPool } from './call-pool.js';
import { RedfishError } from './errors.js';
import {
  POWER_ON_CONFLICT_INTERVAL_MS,
  REQUEST_TIMEOUT_MS,
  SESSION_LIMIT_RETRY_MS,
  SESSION_LIMIT_WAIT_MS,
} from './limits.js';
import { BmcSessions } from './session-registry.js';
import { emulatorSetup } from './test-support/emulator-setup.js';

const PASSWORD = 'S3ss10n-Passw0rd!';

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL }))('Redfish sessions against the emulator', () => {
  const events: RedfishCallEvent[] = [];
  const messages: string[] = [];
  const tokens = new Set<string>();
  const { startBmc, open } = emulatorSetup('bmc-sessions', {
    name: 'rack7-node3',
    username: 'admin',
    password: PASSWORD,
    timeouts: { connectMs: 1_000, tlsMs: 1_000, requestMs: 1_000 },
    sleep: () => Promise.resolve(),
    log: (e) => events.push(e),
  });

  afterAll(() => {
    // No token ever reached a log event or an error message of this file.
    const seen = JSON.stringify(events) + messages.join('\n');
    for (const token of tokens) expect(seen).not.toContain(token);
    expect(tokens.size).toBeGreaterThan(5);
  });

  function bmcOf(profile: string, extra: Partial<Parameters<typeof startBmc>[0]> = {}) {
    return startBmc({ name: profile, profile, ...extra });
  }

  async function failure(p: Promise<unknown>): Promise<RedfishError> {
    const error = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RedfishError);
    messages.push((error as RedfishError).message, JSON.stringify((error as RedfishError).context));
    return error as RedfishError;
  }

  /** Remembers every token the BMC handed out, so afterAll can look for them. */
  function watch(bmc: { model: { sessionTokens(): string[] } }): void {
    for (const t of bmc.model.sessionTokens()) tokens.add(t);
  }

  it('session-only BMC: one session for every call, no Basic ever sent, DELETEd at close', async () => {
    const { bmc, guest } = await bmcOf('session-only');
    try {
      const c = await open(bmc.rootUrl);
      await c.inventory();
      await c.setBootOnce();
      watch(bmc);
      expect(c.auth.using).toBe('session');
      const login = bmc.requests.filter((r) => r.method === 'POST' && r.path === bmc.model.sessionsPath);
      expect(login).toHaveLength(1);
      // The session POST carried no Authorization header: the emulator saw no credential on it.
      expect(login[0]?.auth).toBe('none');
      expect(bmc.requests.filter((r) => r.status === 401)).toHaveLength(0);
      expect(bmc.model.openSessions).toBe(1);
      await c.close();
      expect(bmc.model.openSessions).toBe(0);
      expect(bmc.requests.at(-1)).toMatchObject({ method: 'DELETE', status: 204, auth: 'session' });
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('no sessions advertised: Basic, no session POST; Basic refused: a session at the standard path', async () => {
    const noSessions = {
      rewrite: [
        {
          match: { method: 'GET', path: /^\/redfish\/v1\/?$/ },
          body: (doc: unknown) => {
            const { SessionService: _s, Links: _l, ...rest } = doc as Record<string, unknown>;
            return rest;
          },
        },
      ],
    };
    const basic = await bmcOf('generic', { faults: noSessions });
    try {
      const c = await open(basic.bmc.rootUrl);
      await c.readSystem();
      expect(c.auth.using).toBe('basic');
      expect(basic.bmc.requests.some((r) => r.path.includes('SessionService'))).toBe(false);
      expect(basic.bmc.requests.filter((r) => r.path !== '/redfish/v1').every((r) => r.auth === 'basic')).toBe(true);
      await c.close();
    } finally {
      await basic.bmc.close();
      await basic.guest.close();
    }
    const refusing = await bmcOf('session-only', { faults: noSessions });
    try {
      const c = await open(refusing.bmc.rootUrl);
      expect((await c.readSystem()).id).toBe('1');
      watch(refusing.bmc);
      expect(c.auth.using).toBe('session');
      expect(refusing.bmc.requests.filter((r) => r.status === 401)).toHaveLength(1); // the Basic try
      await c.close();
      expect(refusing.bmc.model.openSessions).toBe(0);
    } finally {
      await refusing.bmc.close();
      await refusing.guest.close();
    }
  });

  it('a session the BMC forgot (401): made again once and the call repeated', async () => {
    const { bmc, guest } = await bmcOf('session-only');
    try {
      const c = await open(bmc.rootUrl);
      await c.readSystem();
      watch(bmc);
      bmc.model.expireSessions();
      expect((await c.readSystem()).powerState).toBe('Off');
      watch(bmc);
      expect(c.auth.counts.created).toBe(2);
      expect(bmc.model.sessionsCreated).toBe(2);
      await c.close();
      expect(bmc.model.openSessions).toBe(0);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('8 slots held by another tool: waited for within the bound, then the BMC fails alone', async () => {
    // Held for good: the waits (instant here) add up to SESSION_LIMIT_WAIT_MS, then a clear error.
    const full = await bmcOf('session-limited');
    try {
      full.bmc.model.occupySessions(8);
      const sleeps: number[] = [];
      const c = await open(full.bmc.rootUrl, {
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
      });
      const e = await failure(c.readSystem());
      expect(e.status).toBe(503);
      expect(e.step).toBe('read-system');
      expect(e.details.messageIds).toEqual(['IDRAC.2.8.RAC0218']);
      expect(e.message).toMatch(/^BMC "rack7-node3": read-system: .*every session of the BMC is in use/);
      expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(SESSION_LIMIT_WAIT_MS);
      expect(sleeps.length).toBe(SESSION_LIMIT_WAIT_MS / SESSION_LIMIT_RETRY_MS);
      expect(full.bmc.model.openSessions).toBe(8); // only the other tool's
      await c.close();
    } finally {
      await full.bmc.close();
      await full.guest.close();
    }
    // Held for 400 ms (the other tool logs out): the wait ends in a session.
    const busy = await bmcOf('session-limited');
    try {
      busy.bmc.model.occupySessions(8, 400);
      const c = await open(busy.bmc.rootUrl, { sleep: (ms) => delay(Math.min(ms, 150)) });
      expect((await c.readSystem()).id).toBe('1');
      watch(busy.bmc);
      expect(c.auth.counts.limitWaits).toBeGreaterThan(0);
      await c.close();
      expect(busy.bmc.model.openSessions).toBe(0);
    } finally {
      await busy.bmc.close();
      await busy.guest.close();
    }
  });

  it('a session POST without a token, or naming another host: an error naming the BMC and step, nothing left open', async () => {
    const noToken = await bmcOf('session-only', { faults: { session: 'no-token' } });
    try {
      const c = await open(noToken.bmc.rootUrl);
      const e = await failure(c.topology());
      expect(e.failure).toBe('malformed');
      expect(e.message).toMatch(/^BMC "rack7-node3": discover: malformed response .*without an X-Auth-Token header/);
      await c.close();
      expect(noToken.bmc.model.openSessions).toBe(0);
    } finally {
      await noToken.bmc.close();
      await noToken.guest.close();
    }
    const foreign = await bmcOf('session-only', { faults: { session: 'foreign-location' } });
    try {
      const c = await open(foreign.bmc.rootUrl);
      const e = await failure(c.topology());
      expect(e.message).toMatch(
        /discover: malformed response .*session URI outside its own address .*192\.0\.2\.99.*not sent there/,
      );
      // The session the BMC made is ended on the BMC itself (its path, the BMC's origin).
      for (let i = 0; i < 50 && foreign.bmc.model.openSessions > 0; i++) await delay(20);
      expect(foreign.bmc.model.openSessions).toBe(0);
      await c.close();
    } finally {
      await foreign.bmc.close();
      await foreign.guest.close();
    }
  });

  it('a PATCH that never closes: request-timeout naming the BMC and step, the session still ended', async () => {
    const { bmc, guest } = await bmcOf('dell-idrac10', {
      faults: { hang: { times: 'always', match: { method: 'PATCH' } } },
    });
    try {
      const c = await open(bmc.systemUrl);
      const started = Date.now();
      const e = await failure(c.setBootOnce());
      watch(bmc);
      expect(e.failure).toBe('request-timeout');
      expect(e.message).toMatch(
        /^BMC "rack7-node3": boot-override: no complete response in time \(PATCH \/redfish\/v1\/Systems\/System.Embedded.1\/Settings/,
      );
      expect(Date.now() - started).toBeLessThan(15_000);
      await c.close();
      expect(bmc.model.openSessions).toBe(0);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('a session POST that never answers: request-timeout after the configured clock, sent by the call worker', async () => {
    const { bmc, guest } = await bmcOf('session-only', {
      faults: { hang: { times: 'always', match: { method: 'POST', path: 'Sessions' } } },
    });
    try {
      const requestMs = 1_500;
      const c = await open(bmc.rootUrl, { timeouts: { connectMs: 1_000, tlsMs: 1_000, requestMs } });
      const pooled = sharedCallPool().stats().calls;
      const started = Date.now();
      const e = await failure(c.readSystem());
      const took = Date.now() - started;
      expect(e.failure).toBe('request-timeout');
      expect(e.step).toBe('read-system');
      expect(e.message).toMatch(
        /^BMC "rack7-node3": read-system: no complete response in time \(POST \/redfish\/v1\/SessionService\/Sessions/,
      );
      // The configured clock, not the default (REQUEST_TIMEOUT_MS, 30 s) nor the worker's backstop.
      expect(took).toBeGreaterThanOrEqual(requestMs);
      expect(took).toBeLessThan(REQUEST_TIMEOUT_MS / 2);
      // Both calls of the login (the root GET, the session POST) went through the worker pool.
      expect(sharedCallPool().stats().calls - pooled).toBeGreaterThanOrEqual(2);
      expect(bmc.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
      await c.close();
      expect(bmc.model.openSessions).toBe(0);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('iDRAC 10: boot override through the Settings object with If-Match; a slow PATCH within the clock is fine', async () => {
    const { bmc, guest } = await bmcOf('dell-idrac10', { faults: { slowPatch: { ms: 300 } } });
    try {
      const c = await open(bmc.systemUrl, { timeouts: { connectMs: 1_000, tlsMs: 1_000, requestMs: 5_000 } });
      expect(await c.setBootOnce()).toEqual({ target: 'Cd', mode: 'UEFI' });
      watch(bmc);
      const patch = bmc.requests.find((r) => r.method === 'PATCH');
      expect(patch).toMatchObject({ path: `${bmc.model.systemPath}/Settings`, status: 204, auth: 'session' });
      expect(bmc.model.boot).toMatchObject({ enabled: 'Once', target: 'Cd' });
      // The System itself refuses Boot, as iDRAC 10 does: what a client unaware of Settings meets.
      expect(bmc.requests.some((r) => r.method === 'PATCH' && r.path === bmc.model.systemPath)).toBe(false);
      await c.close();
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('iDRAC 10: a power-on answered 409 after a power-off is sent again within the window', async () => {
    const { bmc, guest } = await bmcOf('dell-idrac10', { initialPower: 'On', powerOnConflictAfterOffMs: 500 });
    try {
      const c = await open(bmc.systemUrl, { sleep: (ms) => delay(Math.min(ms, 200)) });
      await c.setPower('off');
      const on = await c.setPower('on');
      watch(bmc);
      expect(on.actions).toEqual(['On']);
      const resets = bmc.requests.filter((r) => r.path.endsWith('ComputerSystem.Reset')).map((r) => r.status);
      expect(resets[0]).toBe(204); // ForceOff
      expect(resets.slice(1, -1).every((s) => s === 409)).toBe(true);
      expect(resets.length).toBeGreaterThan(2);
      expect(resets.at(-1)).toBe(204);
      await c.close();
      expect(bmc.model.openSessions).toBe(0);
    } finally {
      await bmc.close();
      await guest.close();
    }
    // A window that never ends: the 409 stands after the profile's window (75 s of instant sleeps).
    const stuck = await bmcOf('dell-idrac10', { initialPower: 'On', powerOnConflictAfterOffMs: 3_600_000 });
    try {
      const sleeps: number[] = [];
      const c = await open(stuck.bmc.systemUrl, {
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
      });
      await c.setPower('off');
      const e = await failure(c.setPower('on'));
      watch(stuck.bmc);
      expect(e.status).toBe(409);
      expect(e.step).toBe('power-on');
      expect(sleeps.filter((ms) => ms === POWER_ON_CONFLICT_INTERVAL_MS).length).toBe(
        75_000 / POWER_ON_CONFLICT_INTERVAL_MS,
      );
      await c.close();
      expect(stuck.bmc.model.openSessions).toBe(0);
    } finally {
      await stuck.bmc.close();
      await stuck.guest.close();
    }
  });

  it('clients of one BMC share its session; the last one out ends it; stop() ends them all', async () => {
    const { bmc, guest } = await bmcOf('session-limited');
    const other = await bmcOf('session-only');
    const sessions = new BmcSessions();
    try {
      const a = await open(bmc.rootUrl, { sessions });
      const b = await open(bmc.rootUrl, { sessions });
      await Promise.all([a.readSystem(), b.readSlots(), a.readSlots()]);
      watch(bmc);
      expect(bmc.model.sessionsCreated).toBe(1);
      await a.close();
      expect(bmc.model.openSessions).toBe(1); // b still holds it
      await b.readSystem();
      expect(bmc.model.sessionsCreated).toBe(1);
      const c = await open(other.bmc.rootUrl, { sessions });
      await c.readSystem();
      watch(other.bmc);
      expect(sessions.openSessions()).toBe(2);
      await sessions.stop(); // service stop: b and c still open their clients, their sessions end
      expect(bmc.model.openSessions).toBe(0);
      expect(other.bmc.model.openSessions).toBe(0);
      const e = await failure(b.readSystem());
      expect(e.message).toMatch(/the service is stopping/);
      expect(bmc.model.openSessions).toBe(0);
    } finally {
      await bmc.close();
      await guest.close();
      await other.bmc.close();
      await other.guest.close();
    }
  });
});
