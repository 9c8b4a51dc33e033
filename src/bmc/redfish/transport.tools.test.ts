// Faults on the real path: the client against emulated BMCs that refuse, hang, storm, reset, send
// garbage, or never finish TLS; each fails with a typed error naming the BMC, the step and the
// status, within a bounded time measured here loosely (the emulator records what it received),
// retried only where the policy says, and never with the password in an error or a log line.
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startVirtualBmc } from '../../../test/support/redfish-emulator/index.js';
import { HAVE_OPENSSL } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import type { RedfishClient, RedfishClientOptions } from './client.js';
import { RedfishError } from './errors.js';
import { RETRY_DELAYS_MS } from './limits.js';
import { emulatorSetup } from './test-support/emulator-setup.js';
import type { RedfishCallEvent } from './transport.js';

const PASSWORD = 'S3cr3t-Passw0rd!';
const BASIC = Buffer.from(`admin:${PASSWORD}`).toString('base64');
/** A generous bound for "failed promptly" on a loaded 2-core machine; the clocks under test are 1 s. */
const PROMPT_MS = 15_000;

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL }))('Redfish transport faults against the emulator', () => {
  const errors: unknown[] = [];
  const events: RedfishCallEvent[] = [];
  const setup = emulatorSetup('bmc-faults', {
    name: 'rack4-node2',
    username: 'admin',
    password: PASSWORD,
    timeouts: { connectMs: 1_000, tlsMs: 1_000, requestMs: 1_000 },
    log: (e) => events.push(e),
  });
  const { startBmc } = setup;

  /** A client of `address` whose waits are instant and recorded. */
  async function client(
    address: string,
    extra: Partial<RedfishClientOptions> = {},
  ): Promise<{ c: RedfishClient; sleeps: number[] }> {
    const sleeps: number[] = [];
    const sleep = (ms: number): Promise<void> => {
      sleeps.push(ms);
      return Promise.resolve();
    };
    return { c: await setup.open(address, { sleep, ...extra }), sleeps };
  }

  async function failure(p: Promise<unknown>): Promise<RedfishError> {
    const error = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    errors.push(error);
    expect(error).toBeInstanceOf(RedfishError);
    return error as RedfishError;
  }

  it('wrong password: 401 unauthorized, named BMC and step, not retried', async () => {
    const { bmc, guest } = await startBmc({
      name: 'b',
      profile: 'generic',
      password: 'the-right-one',
    });
    try {
      const { c, sleeps } = await client(bmc.rootUrl);
      const e = await failure(c.inventory());
      expect(e.failure).toBe('unauthorized');
      expect(e.status).toBe(401);
      expect(e.step).toBe('inventory');
      expect(e.message).toMatch(
        /^BMC "rack4-node2": inventory: the BMC refused the credentials \(POST \/redfish\/v1\/SessionService\/Sessions → HTTP 401: Login failed/,
      );
      expect(e.message).toMatch(/check the user name and password \(refused when creating a session\)$/);
      expect(sleeps).toEqual([]);
      expect(bmc.requests.filter((r) => r.status === 401)).toHaveLength(1);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('a 5xx storm of two, then OK: retried with the backoff, succeeds', async () => {
    const { bmc, guest } = await startBmc({
      name: 'b',
      profile: 'generic',
      faults: { serverErrors: { times: 2, status: 503, match: { path: '/Systems/1' } } },
    });
    try {
      const { c, sleeps } = await client(bmc.rootUrl);
      const system = await c.readSystem();
      expect(system.powerState).toBe('Off');
      expect(bmc.faultCount('serverErrors')).toBe(2);
      expect(sleeps).toEqual(RETRY_DELAYS_MS.slice(0, 2));
      expect(c.stats.retries).toBe(2);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('5xx forever: 4 attempts (3 retries) then an error with the status and the BMC message', async () => {
    const { bmc, guest } = await startBmc({
      name: 'b',
      profile: 'generic',
      faults: { serverErrors: { times: 'always', status: 500, match: { method: 'POST', path: '/Actions/' } } },
    });
    try {
      const { c, sleeps } = await client(bmc.rootUrl);
      const e = await failure(c.powerOnOrRestart());
      expect(e.failure).toBe('http');
      expect(e.status).toBe(500);
      expect(e.step).toBe('power');
      expect(e.details.attempts).toBe(4);
      expect(e.message).toMatch(
        /power: the BMC answered with an error \(POST \/redfish\/v1\/Systems\/1\/Actions\/ComputerSystem.Reset → HTTP 500, 4 attempts: The service is temporarily unavailable/,
      );
      expect(sleeps).toEqual([...RETRY_DELAYS_MS]);
      expect(bmc.faultCount('serverErrors')).toBe(4);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('connection resets: retried; a reset storm fails as connection-reset', async () => {
    const { bmc, guest } = await startBmc({
      name: 'b',
      profile: 'generic',
      faults: { resetConnections: { times: 2, match: { path: '/Managers' } } },
    });
    try {
      const { c } = await client(bmc.rootUrl);
      expect((await c.topology()).managers).toHaveLength(1);
      expect(bmc.faultCount('resetConnections')).toBe(2);
      bmc.setFaults({ resetConnections: { times: 'always', match: { path: '/Systems/1' } } });
      const e = await failure(c.readSystem());
      expect(e.failure).toBe('connection-reset');
      expect(e.details.attempts).toBe(4);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('a hung response: the request clock fires (server saw the request, never answered), no retry', async () => {
    const { bmc, guest } = await startBmc({
      name: 'b',
      profile: 'generic',
      faults: { hang: { times: 'always', match: { path: '/VirtualMedia' } } },
    });
    try {
      const { c, sleeps } = await client(bmc.rootUrl);
      const started = Date.now();
      const e = await failure(c.readSlots());
      const elapsed = Date.now() - started;
      expect(e.failure).toBe('request-timeout');
      expect(e.message).toMatch(
        /read-slots: no complete response in time \(GET \/redfish\/v1\/Managers\/1\/VirtualMedia\): no complete response within 1000 ms/,
      );
      expect(bmc.requests.filter((r) => r.status === 'hung')).toHaveLength(1);
      expect(sleeps).toEqual([]);
      expect(elapsed).toBeLessThan(PROMPT_MS);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('a port that accepts TCP and never completes TLS: the TLS clock fires', async () => {
    const { bmc, guest } = await startVirtualBmc({
      name: 'b',
      profile: 'generic',
      password: PASSWORD,
      faults: { tlsNeverCompletes: true },
    });
    try {
      const { c } = await client(bmc.rootUrl);
      const started = Date.now();
      const e = await failure(c.topology());
      expect(e.failure).toBe('tls-timeout');
      expect(e.message).toMatch(
        /^BMC "rack4-node2": discover: TLS handshake timed out \(GET \/redfish\/v1\): no TLS handshake within 1000 ms of connecting/,
      );
      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('never-completing TLS with the default clocks fails within the 60 s the issue allows', async () => {
    const { bmc, guest } = await startVirtualBmc({
      name: 'b',
      profile: 'generic',
      password: PASSWORD,
      faults: { tlsNeverCompletes: true },
    });
    try {
      const { c } = await client(bmc.rootUrl, { timeouts: {} });
      const started = Date.now();
      const e = await failure(c.topology());
      const elapsed = Date.now() - started;
      expect(e.failure).toBe('tls-timeout');
      expect(e.message).toMatch(/no TLS handshake within 15000 ms/);
      expect(elapsed).toBeLessThan(60_000);
    } finally {
      await bmc.close();
      await guest.close();
    }
  }, 90_000);

  it('a refused port: unreachable at once, not retried', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const { c, sleeps } = await client(`https://127.0.0.1:${port}`);
    const e = await failure(c.topology());
    expect(e.failure).toBe('unreachable');
    expect(e.message).toMatch(/discover: cannot connect \(GET \/redfish\/v1\): .*ECONNREFUSED/);
    expect(sleeps).toEqual([]);
  });

  it('malformed JSON and a huge body: typed errors, the huge one stopped at the cap', async () => {
    const { bmc, guest } = await startBmc({
      name: 'b',
      profile: 'generic',
      faults: { malformedJson: { match: { path: /^\/redfish\/v1\/?$/ } } },
    });
    try {
      const { c } = await client(bmc.rootUrl);
      const malformed = await failure(c.topology());
      expect(malformed.failure).toBe('malformed');
      expect(malformed.message).toMatch(
        /discover: malformed response \(GET \/redfish\/v1 → HTTP 200\): the body is not valid JSON/,
      );

      bmc.setFaults({ hugeJson: { bytes: 64 * 1024 * 1024, match: { path: '/Managers' } } });
      const { c: c2 } = await client(bmc.rootUrl, { maxResponseBytes: 1024 * 1024 });
      const huge = await failure(c2.topology());
      expect(huge.failure).toBe('too-large');
      expect(huge.message).toMatch(
        /response too large \(GET \/redfish\/v1\/Managers\/1\): the body is larger than 1048576 bytes/,
      );
      // A body below the cap is read whole (the cap, not the size, decides), then bounded: its one
      // string of half a MiB is past MAX_JSON_STRING_CHARS.
      bmc.setFaults({ hugeJson: { bytes: 512 * 1024, match: { path: '/Managers' } } });
      const { c: c3 } = await client(bmc.rootUrl, { maxResponseBytes: 1024 * 1024 });
      expect((await failure(c3.topology())).message).toMatch(
        /response too large \(GET \/redfish\/v1\/Managers\/1 → HTTP 200\): a string of 524,277 characters, beyond MAX_JSON_STRING_CHARS \(4,096\)/,
      );
      // A body declared past the cap is not read at all: the emulator streams it as fast as it is read.
      bmc.setFaults({ hugeJson: { bytes: 64 * 1024 * 1024, match: { path: '/Managers' } } });
      const { c: c4 } = await client(bmc.rootUrl);
      expect((await failure(c4.topology())).failure).toBe('too-large');
      expect(bmc.requests.at(-1)?.path).toBe('/redfish/v1/Managers/1');
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('TLS trust: an untrusted certificate fails as tls; insecure and the right CA pass', async () => {
    const { bmc, guest } = await startBmc({ name: 'b', profile: 'generic' });
    try {
      const { c: system } = await client(bmc.rootUrl, { trust: { verify: 'system' } });
      const e = await failure(system.topology());
      expect(e.failure).toBe('tls');
      expect(e.message).toMatch(/discover: TLS failed \(GET \/redfish\/v1\): .*(certificate|self-signed|issuer)/i);
      const { c: insecure } = await client(bmc.rootUrl, { trust: { verify: 'insecure' } });
      expect((await insecure.topology()).system.id).toBe('1');
      const { c: pinned } = await client(bmc.rootUrl, { trust: { verify: 'ca-pem', caPem: setup.certs.caPem } });
      expect((await pinned.topology()).system.id).toBe('1');
      await expect(
        client(bmc.rootUrl, {
          trust: { verify: 'ca-file', caFile: path.join(path.dirname(setup.certs.caFile), 'missing.pem') },
        }),
      ).rejects.toThrow(/tls-settings: invalid input: cannot read CA file ".*missing.pem": ENOENT/);
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('an unknown System in the address: 404 naming the path', async () => {
    const { bmc, guest } = await startBmc({ name: 'b', profile: 'generic' });
    try {
      const { c } = await client(`${bmc.rootUrl}/Systems/NoSuchSystem`);
      const e = await failure(c.topology());
      expect(e.failure).toBe('http');
      expect(e.status).toBe(404);
      expect(e.message).toMatch(
        /GET \/redfish\/v1\/Systems\/NoSuchSystem → HTTP 404: The resource at the URI \/redfish\/v1\/Systems\/NoSuchSystem was not found/,
      );
    } finally {
      await bmc.close();
      await guest.close();
    }
  });

  it('never sent the password anywhere but the Authorization header: not in any error, context or log event above', () => {
    expect(errors.length).toBeGreaterThanOrEqual(10);
    expect(events.length).toBeGreaterThan(20);
    const seen = JSON.stringify([
      errors.map((e) =>
        e instanceof RedfishError
          ? { message: e.message, context: e.context, details: e.details, stack: e.stack }
          : String(e),
      ),
      events,
    ]);
    expect(seen).not.toContain(PASSWORD);
    expect(seen).not.toContain(BASIC);
  });
});
