// RemoteTokenReads against a loopback HTTP server standing in for the core's
// `POST /api/bootsmith/v1/token-reads` (the real endpoint and a real job are
// src/bmc/api/remote-reads.postgres.test.ts): the first read of a token goes at once, later ones in batches
// of at most MAX_READS_PER_POST, what waits per token is bounded, a core that never answers is cut
// off by the timeout and logged once without the token, close() sends what waits, and with a
// replica key each report carries its signature (a core that refuses says which setting to give).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import type { TokenReadReport } from '../token-read-observer.js';
import { hashUrlToken } from '../url-token-resolver.js';
import { MAX_READS_PER_POST, RemoteTokenReads } from './remote-token-reads.js';
import { isReplicaProof } from './replica-proof.js';

const TOKEN = 'Secret0123456789_-Secret01234567';

interface Post {
  token: string | undefined;
  reads: number;
  body: string;
  proof: string | undefined;
}

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function core(answer: 'ok' | 'hang' | 'refuse'): Promise<{ url: string; posts: Post[] }> {
  const posts: Post[] = [];
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      posts.push({
        token: req.headers['image-token'] as string | undefined,
        reads: JSON.parse(body).reads.length,
        body,
        proof: req.headers['bootsmith-replica-proof'] as string | undefined,
      });
      if (answer === 'ok') res.writeHead(204).end();
      if (answer === 'refuse') res.writeHead(401).end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, posts };
}

const read = (token = TOKEN): TokenReadReport => ({
  tokenHash: hashUrlToken(token),
  token,
  method: 'GET',
  ranges: [[0, 2048]],
  size: 2048,
  bootExtents: [],
  address: '10.0.0.9',
  at: new Date(),
});

async function until(probe: () => boolean, withinMs = 30_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function captured(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger('debug', { write: (l: string) => void lines.push(l) }), lines };
}

describe('reads of job URLs sent to the fronted core', () => {
  it('sends the first read at once and the rest in bounded batches with the token as proof', async () => {
    const { url, posts } = await core('ok');
    const reads = new RemoteTokenReads({ baseUrl: url, logger: captured().logger, intervalMs: 100 });
    reads.tokenRead(read());
    await until(() => posts.length === 1);
    expect(posts[0]).toMatchObject({ token: TOKEN, reads: 1, proof: undefined });
    for (let i = 0; i < 5_000; i++) reads.tokenRead(read());
    await until(() => posts.reduce((n, p) => n + p.reads, 0) >= 1 + MAX_READS_PER_POST * 4);
    await reads.close();
    // what waits for one token is bounded (a BMC's second of reads, four times over)
    expect(posts.reduce((n, p) => n + p.reads, 0)).toBe(1 + MAX_READS_PER_POST * 4);
    expect(posts.every((p) => p.reads <= MAX_READS_PER_POST && p.token === TOKEN)).toBe(true);
  });

  it('a core that never answers is cut off by the timeout, logged once, never naming the token', async () => {
    const { url, posts } = await core('hang');
    const { logger, lines } = captured();
    const reads = new RemoteTokenReads({ baseUrl: url, logger, intervalMs: 50, timeoutMs: 300 });
    reads.tokenRead(read());
    // The core never answers, so only the timeout can end the post: the reason says so (no
    // wall-clock assertion: a loaded machine may take seconds to get there).
    await until(() => lines.some((l) => l.includes('not sent to the core')), 30_000);
    expect(lines.find((l) => l.includes('not sent to the core'))).toMatch(/"reason":"[^"]*timeout/i);
    reads.tokenRead(read());
    reads.tokenRead(read());
    await until(() => posts.length === 2, 30_000);
    await reads.close();
    expect(lines.filter((l) => l.includes('not sent to the core'))).toHaveLength(1);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  it('close() sends what waits', async () => {
    const { url, posts } = await core('ok');
    const reads = new RemoteTokenReads({ baseUrl: url, logger: captured().logger, intervalMs: 60_000 });
    reads.tokenRead(read());
    await until(() => posts.length === 1);
    reads.tokenRead(read());
    reads.tokenRead(read('Other0123456789_-Other0123456789'));
    await reads.close();
    expect(posts.map((p) => p.reads)).toEqual([1, 1, 1]);
  });

  it('signs every report with the replica key; a refusal names the setting to give', async () => {
    const key = randomBytes(32);
    const { url, posts } = await core('refuse');
    const { logger, lines } = captured();
    const reads = new RemoteTokenReads({ baseUrl: url, logger, replicaKey: key, intervalMs: 50 });
    reads.tokenRead(read());
    await until(() => lines.some((l) => l.includes('not sent to the core')));
    await reads.close();
    expect(posts).toHaveLength(1);
    expect(isReplicaProof(key, TOKEN, posts[0]!.body, posts[0]!.proof)).toBe(true);
    expect(lines.join('\n')).toContain('the core takes only reports signed with its IMAGE_REPLICA_KEY_FILE');
    expect(lines.join('\n')).not.toContain(posts[0]!.proof!);
  });
});
