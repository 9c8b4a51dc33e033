// RemoteUrlTokenResolver as a table: each row what the core's `GET …/image-url-tokens/self`
// answers (over loopback; the 200 body in the shape src/core/handlers/image-url-tokens.ts writes,
// refusals with the core's error bodies) and what the image side then makes of a token — the
// InfraEnv, or the typed error with its status and message — and whether a second use asks the
// core again (answers and refusals are cached; failures are not). The same path against a real
// core is src/core/auth/url-tokens.postgres.test.ts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { errorBody } from '../../platform/api/error-handler.js';
import { statusForError } from '../../error-status.js';
import { RemoteUrlTokenResolver } from './remote-url-tokens.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const ID = '0f0e0d0c-0b0a-4009-8807-060504030201';
const TOKEN = 'AbCdEfGh0123456789_-AbCdEfGh0123';

type Upstream = { status: number; body: string } | 'hang';

const json = (status: number, body: unknown): Upstream => ({ status, body: JSON.stringify(body) });
const resolved = (infraEnvId: string, expiresAt: number): Upstream =>
  json(200, { infra_env_id: infraEnvId, expires_at: new Date(expiresAt).toISOString() });

type Outcome = { infraEnvId: string } | { status: number; message: string | RegExp };

interface Row {
  name: string;
  token?: string;
  upstream: Upstream;
  outcome: Outcome;
  /** Calls the core gets for two uses of the token. */
  calls: number;
}

const REFUSED = { status: 401, message: 'invalid, revoked or expired image URL token' };
/** Where the core was asked, as messages name it. */
const WHERE = 'http://127\\.0\\.0\\.1:\\d+/api/assisted-install/v2/image-url-tokens/self';
const upstreamError = (pattern: string): Outcome => ({ status: 502, message: new RegExp(`^${pattern}$`) });
/** The resolver's timeout in the row whose core never answers, and in every other row. */
const HANG_TIMEOUT_MS = 300;
const ANSWER_TIMEOUT_MS = 30_000;

const ROWS: Row[] = [
  {
    name: 'a live token: its InfraEnv, asked once',
    upstream: resolved(ID, NOW + 60_000),
    outcome: { infraEnvId: ID },
    calls: 1,
  },
  {
    name: 'an upper-case InfraEnv id is lower-cased',
    upstream: resolved(ID.toUpperCase(), NOW + 60_000),
    outcome: { infraEnvId: ID },
    calls: 1,
  },
  { name: 'a token that expired', upstream: resolved(ID, NOW), outcome: REFUSED, calls: 1 },
  {
    name: 'the core refuses it (401): cached',
    upstream: json(401, errorBody(401, 'nope')),
    outcome: REFUSED,
    calls: 1,
  },
  {
    name: 'an upstream without the endpoint (a real assisted-service: 404)',
    upstream: json(404, errorBody(404, 'not found')),
    outcome: {
      status: 401,
      message: 'short image URL tokens are issued only by bootsmith; this assisted-service issues JWTs',
    },
    calls: 1,
  },
  {
    name: 'a 500: not cached',
    upstream: json(500, errorBody(500, 'boom')),
    outcome: upstreamError(`assisted-service answered 500 resolving an image URL token at ${WHERE}`),
    calls: 2,
  },
  {
    name: 'an answer that is not JSON',
    upstream: { status: 200, body: '<html>' },
    outcome: upstreamError(`assisted-service answered an image URL token resolution that is not JSON \\(${WHERE}\\)`),
    calls: 2,
  },
  {
    name: 'an answer without a UUID',
    upstream: json(200, { infra_env_id: 'x', expires_at: new Date(NOW + 60_000).toISOString() }),
    outcome: upstreamError(`assisted-service answered a malformed image URL token resolution \\(${WHERE}\\)`),
    calls: 2,
  },
  {
    name: 'an answer without an expiry',
    upstream: json(200, { infra_env_id: ID }),
    outcome: upstreamError(`assisted-service answered a malformed image URL token resolution \\(${WHERE}\\)`),
    calls: 2,
  },
  {
    name: 'a core that never answers: the timeout fires',
    upstream: 'hang',
    outcome: upstreamError(
      `assisted-service is unreachable: resolving an image URL token at ${WHERE}: no answer within 300 ms`,
    ),
    calls: 2,
  },
  {
    name: 'a token with a space is never sent',
    token: 'a b',
    upstream: resolved(ID, NOW + 60_000),
    outcome: REFUSED,
    calls: 0,
  },
  { name: 'an empty token is never sent', token: '', upstream: resolved(ID, NOW + 60_000), outcome: REFUSED, calls: 0 },
  {
    name: 'a 65-character token is never sent',
    token: 'a'.repeat(65),
    upstream: resolved(ID, NOW + 60_000),
    outcome: REFUSED,
    calls: 0,
  },
];

describe('RemoteUrlTokenResolver: table', () => {
  let upstream: Upstream = 'hang';
  const seen: Array<{ url: string; token: string | undefined }> = [];
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url!, token: req.headers['image-token'] as string | undefined });
      if (upstream === 'hang') return; // never answers; the resolver's timeout ends it
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(upstream.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function outcomeOf(resolver: RemoteUrlTokenResolver, token: string): Promise<Outcome> {
    try {
      return { infraEnvId: await resolver.infraEnvOf(token) };
    } catch (err) {
      return { status: statusForError(err), message: (err as Error).message };
    }
  }

  it.each(ROWS.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    upstream = row.upstream;
    seen.length = 0;
    // The short timeout only where the core never answers: an answering core on a loaded machine
    // may take longer than 300 ms, and the row would test the machine's speed instead.
    const timeoutMs = row.upstream === 'hang' ? HANG_TIMEOUT_MS : ANSWER_TIMEOUT_MS;
    const resolver = new RemoteUrlTokenResolver({ baseUrl: base, timeoutMs, now: () => NOW });
    const token = row.token ?? TOKEN;
    for (let use = 0; use < 2; use++) {
      const outcome = await outcomeOf(resolver, token);
      if ('infraEnvId' in row.outcome) expect(outcome).toEqual(row.outcome);
      else expect(outcome).toEqual({ status: row.outcome.status, message: expect.stringMatching(row.outcome.message) });
      if ('message' in outcome) expect(outcome.message).not.toContain(TOKEN);
    }
    expect(seen).toHaveLength(row.calls);
    for (const s of seen) expect(s).toEqual({ url: '/api/assisted-install/v2/image-url-tokens/self', token });
  });
});
