// The boot-event report the face fills from a request (boot-event-report.ts): the address with an
// IPv4-mapped IPv6 address shown as IPv4, virtual media for a HEAD or a Range, the cleaned
// User-Agent; once from a real request over loopback, then as a table of what a request shows.
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { reportOf } from './boot-event-report.js';

const ID = '0b0c2f5e-7c8d-4e6f-9a1b-2c3d4e5f6a7b';

describe('reportOf', () => {
  it('reports a real request over loopback', async () => {
    const seen: ReturnType<typeof reportOf>[] = [];
    const server = http.createServer((req, res) => {
      seen.push(reportOf(req, ID, 'full-iso'));
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      await (await fetch(url, { headers: { 'User-Agent': 'iPXE/1.21\u0085', Range: 'bytes=0-1' } })).arrayBuffer();
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(seen).toEqual([
      { infraEnvId: ID, artifact: 'full-iso', address: '127.0.0.1', mode: 'virtual media', userAgent: 'iPXE/1.21' },
    ]);
  });

  it.each([
    ['::ffff:10.1.2.3', 'GET', {}, '10.1.2.3', 'download', ''],
    ['fd00::1', 'HEAD', { 'user-agent': ' BMC/1 ' }, 'fd00::1', 'virtual media', 'BMC/1'],
    ['::ffff:abcd', 'GET', { range: 'bytes=0-' }, '::ffff:abcd', 'virtual media', ''],
    [undefined, 'GET', {}, 'unknown', 'download', ''],
  ])('%s %s %j → %s, %s, %j', (remoteAddress, method, headers, address, mode, userAgent) => {
    const req = { method, headers, socket: { remoteAddress } } as unknown as IncomingMessage;
    expect(reportOf(req, ID, 'kernel')).toEqual({ infraEnvId: ID, artifact: 'kernel', address, mode, userAgent });
  });
});
