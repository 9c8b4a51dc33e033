// A client that half-closes its connection after sending its request (`socket.end()` after the
// write, as HTTP/1.0-style clients and the hostile-paths fuzz's do) gets a whole answer on every
// kind of route of the all-in-one service, the very first request after the start included. Seen
// before the listeners answered half-closed requests (listener-limits.ts, "half-close"): the first
// `/byapikey/` request with an unknown token got no answer at all (its 401 waits for the database;
// Node had aborted the request when it read the FIN), later ones with the same token got theirs
// (from the resolver's cache, within the same turn of the event loop).
//
// The real path: the service started as the tests do (test/support/all-in-one.ts), real
// PostgreSQL, loopback, one raw socket per request. Each row asks for something the service has
// not answered before (a fresh token or id), so its answer waits for I/O (the database, a file).
import { randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../../test/support/all-in-one.js';

/** Bound on one answer (a hung request fails the test here, not at vitest's timeout). */
const ANSWER_BOUND_MS = 10_000;

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/** One request on its own connection, half-closed once written; what came back until the server closed. */
function halfClosedRequest(port: number, method: string, target: string, headers: string[] = []): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${method} ${target}: no answer within ${ANSWER_BOUND_MS} ms`));
    }, ANSWER_BOUND_MS);
    socket.on('connect', () =>
      socket.end([`${method} ${target} HTTP/1.1`, 'Host: localhost', ...headers, '', ''].join('\r\n')),
    );
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) {
        reject(new Error(`${method} ${target}: connection closed after ${raw.length} bytes, no whole head`));
        return;
      }
      const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
      if (!status) {
        reject(new Error(`${method} ${target}: not an HTTP/1.1 status line: ${JSON.stringify(statusLine)}`));
        return;
      }
      const parsed = new Map<string, string>();
      for (const line of lines) {
        const colon = line.indexOf(':');
        parsed.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      resolve({ status: Number(status[1]), headers: parsed, body: raw.subarray(end + 4) });
    });
  });
}

/** A whole answer: a body exactly as long as its Content-Length says (none for HEAD). */
function expectWhole(answer: RawAnswer, method: string): void {
  const length = answer.headers.get('content-length');
  expect(length, 'Content-Length').toMatch(/^\d+$/);
  expect(answer.body.length).toBe(method === 'HEAD' ? 0 : Number(length));
}

const unknownToken = (): string => randomBytes(24).toString('base64url');

interface Row {
  what: string;
  method: 'GET' | 'HEAD';
  target: () => string;
  headers?: () => string[];
  status: number;
}

describe('half-closed requests on the real service (AUTH_TYPE=local)', () => {
  let s: AllInOne;
  beforeAll(async () => {
    s = await startAllInOne({ AUTH_TYPE: 'local' });
  }, 60_000);
  afterAll(() => s?.close());
  const port = (): number => Number(new URL(s.service.url).port);

  const iso = `${DEMO_VERSION}/x86_64/full.iso`;
  const rows: Row[] = [
    // first: the request of the report, the first the service answers after its start
    {
      what: 'hot /byapikey/ with an unknown short token',
      method: 'GET',
      target: () => `/byapikey/${unknownToken()}/${iso}`,
      status: 401,
    },
    { what: 'hot /byapikey/, HEAD', method: 'HEAD', target: () => `/byapikey/${unknownToken()}/${iso}`, status: 401 },
    {
      what: 'hot /bytoken/ with an unknown short token',
      method: 'GET',
      target: () => `/bytoken/${unknownToken()}/${iso}`,
      status: 401,
    },
    {
      what: 'hot /byid/ without a credential',
      method: 'GET',
      target: () => `/byid/${randomUUID()}/${iso}`,
      status: 401,
    },
    {
      what: 'express /byapikey/ (a query string: not the hot route)',
      method: 'GET',
      target: () => `/byapikey/${unknownToken()}/${iso}?x=1`,
      status: 401,
    },
    {
      what: 'express /images/{id} without a credential',
      method: 'GET',
      target: () => `/images/${randomUUID()}?version=${DEMO_VERSION}&arch=x86_64&type=full-iso`,
      status: 401,
    },
    {
      what: 'express /images/{id}/pxe-initrd without a credential',
      method: 'GET',
      target: () => `/images/${randomUUID()}/pxe-initrd?version=${DEMO_VERSION}&arch=x86_64`,
      status: 401,
    },
    {
      what: 'express /boot-artifacts/kernel, a range',
      method: 'GET',
      target: () => `/boot-artifacts/kernel?version=${DEMO_VERSION}&arch=x86_64`,
      headers: () => ['Range: bytes=0-4095'],
      status: 206,
    },
    { what: 'assisted API without a credential', method: 'GET', target: () => `${API}/infra-envs`, status: 401 },
    {
      what: 'assisted API, the admin',
      method: 'GET',
      target: () => `${API}/infra-envs`,
      headers: () => [`Authorization: ${s.admin.Authorization}`],
      status: 200,
    },
    { what: '/live', method: 'GET', target: () => '/live', status: 200 },
  ];

  it.each(rows)('$what: $status, whole', async (row) => {
    const answer = await halfClosedRequest(port(), row.method, row.target(), row.headers?.() ?? []);
    expect(answer.status).toBe(row.status);
    expectWhole(answer, row.method);
  });

  it('an InfraEnv’s own short URL: a range of its spliced ISO, whole', async () => {
    const created = await s.call('POST', `${API}/infra-envs`, {
      name: 'half-close',
      pull_secret: PULL_SECRET,
      openshift_version: DEMO_VERSION,
    });
    expect(created.status).toBe(201);
    const { download_url } = (await created.json()) as { download_url: string };
    const answer = await halfClosedRequest(port(), 'GET', new URL(download_url).pathname, ['Range: bytes=32768-65535']);
    expect(answer.status).toBe(206);
    expectWhole(answer, 'GET');
    expect(answer.body.length).toBe(32768);
    expect(answer.body.subarray(1, 6).toString('latin1')).toBe('CD001'); // the primary volume descriptor
  });
});
