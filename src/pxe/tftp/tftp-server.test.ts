// The TFTP server on loopback, through real sockets: fetches with every option combination the
// firmware of the issue uses (EDK2: tsize + blksize 1468 + windowsize 4; GRUB: blksize 1024 +
// tsize; iPXE: blksize), block-number wrap-around, netascii, the refusals as ERROR packets, and
// every clock and bound firing: a resend after silence, a transfer given up after its resends, a
// transfer's deadline, the per-address and global bounds, the front door's clock.
import dgram from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoaderFile } from '../loaders/loader-set.js';
import { PxeMetrics } from '../pxe-metrics.js';
import { tftpGet } from '../test-support/pxe-client-stand-in.js';
import { StaticFrontDoor } from '../test-support/static-front-door.js';
import { decodeTftp, encodeError, TFTP_ERROR, type TftpPacket } from './packet.js';
import { GRUB_STUB_CONFIG } from './path-policy.js';
import { TftpServer, type TftpLimits } from './tftp-server.js';
import { MAX_RETRANSMITS } from './transfer.js';

const FILES: Record<string, Buffer> = {
  'ipxe.efi': randomBytes(300_000),
  'exact.bin': randomBytes(4 * 1468),
  'tiny.bin': Buffer.from('x'),
  'lines.txt': Buffer.from('a\nb\r\nc\r'),
  'wrap.bin': randomBytes(65_536 * 8 + 3),
};
const RETRANSMIT_MS = 200;
const silentLog = { info: () => undefined, warn: () => undefined };

interface Harness {
  server: TftpServer;
  metrics: PxeMetrics;
  registry: Registry;
  frontDoor: StaticFrontDoor;
  port: number;
}

async function startServer(
  limits: Partial<TftpLimits> = {},
  frontDoor = new StaticFrontDoor({
    grubConfigTemplate: 'linux /k mac={mac}\n',
    grubConfigMacs: ['52:54:00:00:00:01'],
  }),
): Promise<Harness> {
  const registry = new Registry();
  const metrics = new PxeMetrics(registry);
  const loaders = new Map<string, LoaderFile>(
    Object.entries(FILES).map(([name, bytes]) => [name, { tftpName: name, path: `/x/${name}`, bytes }]),
  );
  const server = await TftpServer.start({
    address: '127.0.0.1',
    port: 0,
    loaders,
    frontDoor,
    limits: {
      maxTransfers: 16,
      maxPerAddress: 4,
      deadlineMs: 60_000,
      maxBlockSize: 1468,
      retransmitMs: RETRANSMIT_MS,
      ...limits,
    },
    metrics,
    log: silentLog,
  });
  return { server, metrics, registry, frontDoor, port: server.boundPort };
}

async function counter(h: Harness, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await h.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x))
    .reduce((sum, v) => sum + v.value, 0);
}

/** Polls `check` until it holds (generous bound: the machine may be loaded). */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`not within ${ms} ms: ${what}`);
}

/** A bare UDP client: sends what the test says, records what arrives, answers nothing by itself. */
class RawClient {
  readonly got: Array<{ packet: TftpPacket; port: number; at: number }> = [];
  private constructor(readonly socket: dgram.Socket) {
    socket.on('message', (d, r) => this.got.push({ packet: decodeTftp(d), port: r.port, at: Date.now() }));
  }
  static async open(address = '127.0.0.1'): Promise<RawClient> {
    const s = dgram.createSocket('udp4');
    await new Promise<void>((r) => s.bind(0, address, r));
    return new RawClient(s);
  }
  send(bytes: Buffer, port: number): void {
    this.socket.send(bytes, port, '127.0.0.1');
  }
  rrq(port: number, name: string, ...options: string[]): void {
    this.send(
      Buffer.concat([
        Buffer.from([0, 1]),
        Buffer.from([name, 'octet', ...options].map((s) => `${s}\0`).join(''), 'latin1'),
      ]),
      port,
    );
  }
  ack(port: number, block: number): void {
    this.send(Buffer.from([0, 4, block >> 8, block & 0xff]), port);
  }
  data(block: number) {
    return this.got.filter((g) => g.packet.kind === 'data' && g.packet.block === block);
  }
  errors() {
    return this.got.flatMap((g) => (g.packet.kind === 'error' ? [g.packet] : []));
  }
  close() {
    this.socket.close();
  }
}

describe('TftpServer: fetches', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startServer();
  });
  afterAll(() => h.server.stop());

  const FETCHES: [string, string, Parameters<typeof tftpGet>[0] extends infer O ? Partial<O> : never][] = [
    ['plain RFC 1350: 512-byte lock-step', 'ipxe.efi', {}],
    ["EDK2's fetch: tsize, blksize 1468, windowsize 4", 'ipxe.efi', { tsize: true, blksize: 1468, windowsize: 4 }],
    ["GRUB's: blksize 1024 and tsize", 'ipxe.efi', { blksize: 1024, tsize: true }],
    ['a window of 64 blocks', 'ipxe.efi', { blksize: 1468, windowsize: 64 }],
    ['a size that is a multiple of the block: an empty last block', 'exact.bin', { blksize: 1468 }],
    ['one byte', 'tiny.bin', { blksize: 1468, windowsize: 8 }],
    ['block numbers wrap past 65535 (65,537 blocks of 8 bytes)', 'wrap.bin', { blksize: 8, windowsize: 64 }],
    ['the timeout option', 'ipxe.efi', { timeoutOption: 2, blksize: 1468 }],
  ];

  it.each(FETCHES)('%s', async (_name, file, options) => {
    const got = await tftpGet({ server: '127.0.0.1', port: h.port, file, retryMs: 2_000, ...options });
    expect(got.error).toBeUndefined();
    expect(got.bytes.equals(FILES[file]!)).toBe(true);
    if (options.tsize) expect(got.oack?.get('tsize')).toBe(String(FILES[file]!.length));
  });

  it('caps blksize at the interface MTU and says so in the OACK', async () => {
    const got = await tftpGet({ server: '127.0.0.1', port: h.port, file: 'ipxe.efi', blksize: 9000 });
    expect(got.oack?.get('blksize')).toBe('1468');
    expect(got.bytes.equals(FILES['ipxe.efi']!)).toBe(true);
  });

  it("answers EDK2's size probe (tsize, then the client's ERROR) and ends the transfer", async () => {
    const before = await counter(h, 'bootsmith_pxe_tftp_transfers_total', { end: 'client_error' });
    const got = await tftpGet({ server: '127.0.0.1', port: h.port, file: 'ipxe.efi', tsize: true });
    expect(got.oack?.get('tsize')).toBe('300000');
    await until(
      async () => (await counter(h, 'bootsmith_pxe_tftp_transfers_total', { end: 'client_error' })) === before + 1,
      'the probe ended',
    );
  });

  it('translates netascii (CR LF line ends, CR NUL for a bare CR)', async () => {
    const got = await tftpGet({ server: '127.0.0.1', port: h.port, file: 'lines.txt', mode: 'netascii' });
    expect(got.bytes.toString('latin1')).toBe('a\r\nb\r\0\r\nc\r\0');
  });

  it('serves GRUB its stub and a host its grub.cfg from the front door', async () => {
    const stub = await tftpGet({
      server: '127.0.0.1',
      port: h.port,
      file: '/grub/grub.cfg',
      blksize: 1024,
      tsize: true,
    });
    expect(stub.bytes.toString()).toBe(GRUB_STUB_CONFIG);
    const own = await tftpGet({
      server: '127.0.0.1',
      port: h.port,
      file: '/grub/grub.cfg-52:54:00:00:00:01',
      blksize: 1024,
    });
    expect(own.bytes.toString()).toBe('linux /k mac=52:54:00:00:00:01\n');
    const pxelinuxStyle = await tftpGet({ server: '127.0.0.1', port: h.port, file: 'grub.cfg-01-52-54-00-00-00-01' });
    expect(pxelinuxStyle.bytes.toString()).toBe('linux /k mac=52:54:00:00:00:01\n');
    expect(h.frontDoor.calls.filter((c) => c.method === 'grubConfig').map((c) => c.mac)).toEqual([
      '52:54:00:00:00:01',
      '52:54:00:00:00:01',
    ]);
  });

  const REFUSALS: [string, string, string[], number, string][] = [
    ['a missing file', 'pxelinux.0', [], TFTP_ERROR.fileNotFound, 'not_found'],
    ['a host without grub.cfg', '/grub/grub.cfg-52:54:00:00:00:99', [], TFTP_ERROR.fileNotFound, 'not_found'],
    ['a path outside the loaders', '../../etc/passwd', [], TFTP_ERROR.accessViolation, 'refused'],
    ['a path climbing out from GRUB\'s prefix', '/grub/../../../etc/shadow', [], TFTP_ERROR.accessViolation, 'refused'],
    ['blksize 4', 'ipxe.efi', ['blksize', '4'], TFTP_ERROR.optionRefused, 'bad_option'],
    ['windowsize 0', 'ipxe.efi', ['windowsize', '0'], TFTP_ERROR.optionRefused, 'bad_option'],
  ]; // prettier-ignore

  it.each(REFUSALS)('refuses %s with an ERROR packet', async (_name, file, options, code, outcome) => {
    const before = await counter(h, 'bootsmith_pxe_tftp_requests_total', { outcome });
    const client = await RawClient.open();
    client.rrq(h.port, file, ...options);
    await until(() => client.errors().length > 0, 'an ERROR');
    expect(client.errors()[0]!.code).toBe(code);
    expect(await counter(h, 'bootsmith_pxe_tftp_requests_total', { outcome })).toBe(before + 1);
    client.close();
  });

  it('refuses a write (read-only) and an unknown mode', async () => {
    const client = await RawClient.open();
    client.send(Buffer.concat([Buffer.from([0, 2]), Buffer.from('ipxe.efi\0octet\0')]), h.port);
    client.send(Buffer.concat([Buffer.from([0, 1]), Buffer.from('ipxe.efi\0mail\0')]), h.port);
    await until(() => client.errors().length === 2, 'two ERRORs');
    expect(
      client
        .errors()
        .map((e) => e.code)
        .sort(),
    ).toEqual([TFTP_ERROR.accessViolation, TFTP_ERROR.illegalOperation]);
    client.close();
  });

  it('drops malformed datagrams and stray ACKs on port 69 without answering, and counts them', async () => {
    const malformed = await counter(h, 'bootsmith_pxe_tftp_requests_total', { outcome: 'malformed' });
    const stray = await counter(h, 'bootsmith_pxe_tftp_requests_total', { outcome: 'stray' });
    const client = await RawClient.open();
    client.send(Buffer.from([0, 9, 1, 2]), h.port);
    client.send(Buffer.from([0, 1, 0x61]), h.port);
    client.ack(h.port, 1);
    await until(
      async () => (await counter(h, 'bootsmith_pxe_tftp_requests_total', { outcome: 'malformed' })) === malformed + 2,
      'counted',
    );
    expect(await counter(h, 'bootsmith_pxe_tftp_requests_total', { outcome: 'stray' })).toBe(stray + 1);
    expect(await counter(h, 'bootsmith_pxe_malformed_total', { protocol: 'tftp', reason: 'opcode' })).toBe(1);
    expect(await counter(h, 'bootsmith_pxe_malformed_total', { protocol: 'tftp', reason: 'short' })).toBe(1);
    // A real request after them is still answered, so nothing above went unanswered for lack of a reply path.
    client.rrq(h.port, 'nothing-here');
    await until(() => client.errors().length === 1, 'the ERROR for the last request');
    expect(client.got).toHaveLength(1);
    client.close();
  });
});

describe('TftpServer: clocks and bounds on the real path', () => {
  let h: Harness;
  afterEach(() => h?.server.stop());

  it('sends a block again after silence, and carries on when the ACK comes', async () => {
    h = await startServer();
    const client = await RawClient.open();
    client.rrq(h.port, 'tiny.bin');
    await until(() => client.data(1).length >= 2, 'DATA 1 sent again');
    const [first, second] = client.data(1);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(RETRANSMIT_MS - 20);
    client.ack(first!.port, 1);
    await until(() => h.server.stats().complete === 1, 'the transfer completed');
    expect(await counter(h, 'bootsmith_pxe_tftp_retransmits_total')).toBeGreaterThanOrEqual(1);
    client.close();
  });

  it('gives a transfer up after its resends go unanswered, and frees its slot', async () => {
    h = await startServer();
    const client = await RawClient.open();
    client.rrq(h.port, 'ipxe.efi', 'blksize', '1468');
    await until(() => h.server.stats().failed === 1, 'the transfer timed out');
    // The OACK, sent once and then MAX_RETRANSMITS times again; nothing after.
    expect(client.got.filter((g) => g.packet.kind === 'oack')).toHaveLength(1 + MAX_RETRANSMITS);
    expect(h.server.stats().active).toBe(0);
    expect(await counter(h, 'bootsmith_pxe_tftp_transfers_total', { end: 'timeout' })).toBe(1);
    expect(await counter(h, 'bootsmith_pxe_tftp_transfers_in_flight')).toBe(0);
    client.close();
  });

  it('ends a transfer at its deadline, however the client keeps it alive', async () => {
    h = await startServer({ deadlineMs: 1_000 });
    const client = await RawClient.open();
    client.rrq(h.port, 'ipxe.efi');
    // Acknowledge every block, slower than the server resends would need (a trickling client).
    let acked = 0;
    const trickle = setInterval(() => {
      const next = client.data(acked + 1)[0];
      if (next) client.ack(next.port, ++acked);
    }, 100);
    await until(() => client.errors().length === 1, 'the deadline ERROR');
    clearInterval(trickle);
    expect(client.errors()[0]!.message).toBe('transfer deadline passed');
    expect(acked).toBeLessThan(FILES['ipxe.efi']!.length / 512);
    await until(() => h.server.stats().active === 0, 'the slot freed');
    expect(await counter(h, 'bootsmith_pxe_tftp_transfers_total', { end: 'deadline' })).toBe(1);
    client.close();
  });

  it('bounds transfers per address and in all, with "busy" ERRORs', async () => {
    h = await startServer({ maxPerAddress: 2, maxTransfers: 3 });
    const same = await Promise.all([1, 2, 3].map(() => RawClient.open()));
    for (const c of same) c.rrq(h.port, 'ipxe.efi');
    await until(() => same.some((c) => c.errors().length === 1), 'the third from one address refused');
    expect(same.flatMap((c) => c.errors()).map((e) => e.message)).toEqual(['too many transfers from this address']);
    const others = await Promise.all(['127.0.0.2', '127.0.0.3'].map((a) => RawClient.open(a)));
    for (const c of others) c.rrq(h.port, 'ipxe.efi');
    await until(() => others.some((c) => c.errors().length === 1), 'the fourth in all refused');
    expect(others.flatMap((c) => c.errors()).map((e) => e.message)).toEqual(['server busy, retry later']);
    expect(await counter(h, 'bootsmith_pxe_tftp_requests_total', { outcome: 'busy' })).toBe(2);
    for (const c of [...same, ...others]) c.close();
  });

  it('ignores a retransmitted RRQ while its transfer runs, and answers a stranger on the transfer port with error 5', async () => {
    h = await startServer();
    const client = await RawClient.open();
    client.rrq(h.port, 'tiny.bin');
    client.rrq(h.port, 'tiny.bin');
    await until(() => client.data(1).length >= 1, 'DATA 1');
    await until(
      async () => (await counter(h, 'bootsmith_pxe_tftp_requests_total', { outcome: 'duplicate' })) === 1,
      'the duplicate counted',
    );
    const transferPort = client.data(1)[0]!.port;
    const stranger = await RawClient.open();
    stranger.ack(transferPort, 1);
    await until(() => stranger.errors().length === 1, 'error 5 to the stranger');
    expect(stranger.errors()[0]!.code).toBe(TFTP_ERROR.unknownTransferId);
    client.ack(transferPort, 1);
    await until(() => h.server.stats().complete === 1, 'the transfer completed all the same');
    client.close();
    stranger.close();
  });

  it("bounds the front door's grub.cfg lookup by its clock", async () => {
    h = await startServer({}, new StaticFrontDoor({ grubConfigTemplate: 'x', delayMs: 4_000 }));
    const client = await RawClient.open();
    client.rrq(h.port, '/grub/grub.cfg-52:54:00:00:00:01');
    await until(() => client.errors().length === 1, 'the ERROR', 10_000);
    expect(client.errors()[0]).toEqual({
      kind: 'error',
      code: TFTP_ERROR.notDefined,
      message: 'boot configuration unavailable, retry later',
    });
    expect(await counter(h, 'bootsmith_pxe_tftp_requests_total', { outcome: 'lookup_failed' })).toBe(1);
    expect(h.server.stats().active).toBe(0);
    client.close();
  });

  it('closes every running transfer when it stops', async () => {
    h = await startServer();
    const client = await RawClient.open();
    client.rrq(h.port, 'ipxe.efi');
    await until(() => h.server.stats().active === 1, 'a transfer running');
    await h.server.stop();
    expect(h.server.stats().active).toBe(0);
    expect(await counter(h, 'bootsmith_pxe_tftp_transfers_total', { end: 'closed' })).toBe(1);
    client.send(encodeError(0, 'bye'), h.port);
    client.close();
  });
});
