// Fuzz category "pxe-datagrams" (issue 32 deliverable 8): the PXE wing's real UDP sockets
// (src/pxe/pxe-wing.ts on loopback, ports the kernel picks, in this process beside the all-in-one
// service, so one event loop serves both) under hostile datagrams, seeded:
//   dhcp   mutated PXE requests to ports 67 and 4011: bytes flipped, truncated, lengths running
//          past their area, option 52 overloading with loops (52 inside the overloaded fields),
//          values of option 53/93/97 out of shape, random bytes, oversize datagrams
//   tftp   read requests with random modes, options (blksize, tsize, timeout, windowsize with
//          values below, at and past their bounds, non-numbers, unknown options), names that
//          reach outside the loaders (`../`, absolute, backslashes, NUL, percent-escapes), then a
//          client that acknowledges right, with wrong block numbers, not at all, or answers junk
//   flood  junk at 67, 4011 and 69 as fast as the socket sends, and one address asking for the
//          loader hundreds of times at once
// Crash: an uncaught exception or rejection in this process, or the wing no longer listening. Hang:
// a datagram the wing never counted, or a transfer still in flight after its bound (5 resends of
// RETRANSMIT_MS). Wrong acceptance: a reply that is not a well-formed DHCP message (an answer with
// garbage), an answer to a datagram the decoder calls malformed, a malformed datagram not counted
// by reason, DATA for a name outside the loaders, a transfer from one address past its bound, or
// bytes of a completed transfer that are not the loader's. /live is asked every 50 ms throughout:
// every answer must be a 200 within LIVE_BOUND_MS.
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DhcpFormatError, OPTION } from '../../src/pxe/dhcp/options.js';
import { decodeDhcp } from '../../src/pxe/dhcp/packet.js';
import { classifyClient } from '../../src/pxe/dhcp/pxe-client.js';
import { parsePxeSettings } from '../../src/pxe/pxe-settings.js';
import { createPxeWing, type PxeWing } from '../../src/pxe/pxe-wing.js';
import { buildRequest, FIRMWARE } from '../../src/pxe/test-support/pxe-client-stand-in.js';
import { StaticFrontDoor } from '../../src/pxe/test-support/static-front-door.js';
import { fuzzParameters } from './support/budget.js';
import { recordFigures } from './support/figures.js';
import { type InProcessService, startInProcessService } from './support/in-process-service.js';

const RETRANSMIT_MS = 100;
/** A transfer nobody acknowledges ends after 5 resends; this is past that, with room for load. */
const TRANSFER_BOUND_MS = 6 * RETRANSMIT_MS + 4_000;
const LIVE_BOUND_MS = 2_000;
const PER_ADDRESS = 4;
const LOADERS: Record<string, Buffer> = {
  'undionly.kpxe': randomBytes(70_000),
  'ipxe.efi': randomBytes(1_100_000),
  'shimx64.efi': randomBytes(950_000),
  'grubx64.efi': randomBytes(1_500_000),
};

const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0, dataLost: 0 };
const failures: string[] = [];
function note(kind: 'crashes' | 'hangs' | 'wrongAcceptances' | 'dataLost', what: string): void {
  figures[kind]++;
  if (failures.length < 10) failures.push(`${kind}: ${what.slice(0, 300)}`);
}

let service: InProcessService;
let wing: PxeWing;
let registry: Registry;
let replies: dgram.Socket;
let ports: { dhcp: number; proxy: number; tftp: number };
let loadersDir: string;
const rawReplies: Buffer[] = [];
const live = { asked: 0, worstMs: 0, failed: 0 };
let liveTimer: NodeJS.Timeout | undefined;
const onCrash = (err: unknown) => note('crashes', `uncaught: ${String(err)}`);

async function total(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x))
    .reduce((sum, v) => sum + v.value, 0);
}

async function until(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function udp(): Promise<dgram.Socket> {
  const socket = dgram.createSocket('udp4');
  return new Promise((resolve) => socket.bind(0, '127.0.0.1', () => resolve(socket)));
}

beforeAll(async () => {
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  service = await startInProcessService();
  loadersDir = mkdtempSync(path.join(tmpdir(), 'bs-pxe-fuzz-'));
  for (const [name, bytes] of Object.entries(LOADERS)) writeFileSync(path.join(loadersDir, name), bytes);
  replies = await udp();
  replies.on('message', (d) => rawReplies.push(d));
  registry = new Registry();
  wing = createPxeWing({
    settings: parsePxeSettings({
      PXE_INTERFACE: 'lo',
      PXE_LOADERS_DIR: loadersDir,
      PXE_TFTP_MAX_TRANSFERS: '64',
      PXE_TFTP_MAX_TRANSFERS_PER_ADDRESS: String(PER_ADDRESS),
      PXE_TFTP_TRANSFER_TIMEOUT: '10s',
    }),
    frontDoor: new StaticFrontDoor({
      ipxeScriptUrl: 'http://127.0.0.1:8080/boot.ipxe',
      httpBootUrl: 'http://127.0.0.1:8080/x.iso',
      secureBootMacs: ['52:54:00:00:00:5b'],
      grubConfigTemplate: 'linux (http,127.0.0.1:8080)/k mac={mac}\n',
    }),
    registry,
    log: { info: () => undefined, warn: () => undefined },
    listen: {
      dhcp: 0,
      proxy: 0,
      tftp: 0,
      dhcpClient: (replies.address() as { port: number }).port,
      broadcastAddress: '127.0.0.1',
      tftpRetransmitMs: RETRANSMIT_MS,
    },
  });
  await wing.start();
  ports = wing.status().ports!;
  const liveUrl = `${service.service.url}/live`;
  const ask = async () => {
    const t0 = performance.now();
    live.asked++;
    const ok = await fetch(liveUrl, { signal: AbortSignal.timeout(LIVE_BOUND_MS * 2) }).then(
      (r) => r.status === 200,
      () => false,
    );
    const ms = performance.now() - t0;
    live.worstMs = Math.max(live.worstMs, ms);
    if (!ok || ms > LIVE_BOUND_MS) live.failed++;
    liveTimer = setTimeout(() => void ask(), 50);
  };
  void ask();
}, 180_000);

afterAll(async () => {
  clearTimeout(liveTimer);
  await wing?.stop();
  replies?.close();
  await service?.close();
  rmSync(loadersDir, { recursive: true, force: true });
  process.off('uncaughtException', onCrash);
  process.off('unhandledRejection', onCrash);
  recordFigures({
    category: 'pxe-datagrams',
    ...figures,
    notes:
      `mutated DHCP to 67/4011, TFTP requests and clients that misbehave, floods, on the wing's real sockets; ` +
      `/live asked ${live.asked} times, worst ${Math.round(live.worstMs)} ms, ${live.failed} failed or over ${LIVE_BOUND_MS} ms` +
      (failures.length ? `; first: ${failures.join(' | ')}` : ''),
  });
});

// ---- DHCP ----

const MACS = ['52:54:00:00:00:01', '52:54:00:00:00:5b'];
const PROFILES = Object.values(FIRMWARE);

/** A well-formed request of some firmware, then one mutation. */
const dhcpCase = fc.record({
  profile: fc.constantFrom(...PROFILES),
  mac: fc.constantFrom(...MACS),
  toProxy: fc.boolean(),
  mutation: fc.oneof(
    fc.record({ kind: fc.constant('flip' as const), at: fc.array(fc.nat(600), { minLength: 1, maxLength: 8 }), byte: fc.nat(255) }),
    fc.record({ kind: fc.constant('truncate' as const), to: fc.nat(400) }),
    fc.record({ kind: fc.constant('overload' as const), value: fc.nat(5), file: fc.uint8Array({ maxLength: 128 }), nested: fc.boolean() }),
    fc.record({ kind: fc.constant('option' as const), code: fc.integer({ min: 1, max: 254 }), claimed: fc.nat(255), bytes: fc.uint8Array({ maxLength: 40 }) }),
    fc.record({ kind: fc.constant('shape' as const), code: fc.constantFrom(OPTION.messageType, OPTION.clientArchitecture, OPTION.clientMachineId, OPTION.vendorClass, OPTION.userClass), bytes: fc.uint8Array({ maxLength: 20 }) }),
    fc.record({ kind: fc.constant('random' as const), bytes: fc.uint8Array({ maxLength: 1500 }) }),
    fc.record({ kind: fc.constant('oversize' as const), length: fc.integer({ min: 2049, max: 9000 }) }),
    fc.constant({ kind: 'none' as const }),
  ),
}); // prettier-ignore

type DhcpCase = typeof dhcpCase extends fc.Arbitrary<infer T> ? T : never;

function dhcpDatagram(c: DhcpCase, xid: number): Buffer {
  const m = c.mutation;
  const extra: Array<[number, Buffer]> = [];
  if (m.kind === 'shape') extra.push([m.code, Buffer.from(m.bytes)]);
  if (m.kind === 'overload') extra.push([OPTION.overload, Buffer.from([m.value])]);
  let d: Buffer = buildRequest({ mac: c.mac, xid, profile: c.profile, extra, guid: randomBytes(16) });
  switch (m.kind) {
    case 'flip':
      for (const at of m.at) if (at < d.length) d[at] = m.byte;
      break;
    case 'truncate':
      d = d.subarray(0, m.to);
      break;
    case 'overload': {
      // The overloaded `file` (108..235) and `sname` (44..107) fields: options, maybe 52 again (a loop).
      d.fill(0, 44, 236);
      Buffer.from(m.file).copy(d, 108, 0, 128);
      if (m.nested) Buffer.from([OPTION.overload, 1, 3, 255]).copy(d, 108);
      break;
    }
    case 'option': {
      // An option whose length byte claims more (or less) than follows, before the end option.
      const end = d.lastIndexOf(255);
      d = Buffer.concat([
        d.subarray(0, end),
        Buffer.from([m.code, m.claimed]),
        Buffer.from(m.bytes),
        Buffer.from([255]),
      ]);
      break;
    }
    case 'random':
      d = Buffer.from(m.bytes);
      break;
    case 'oversize':
      d = Buffer.concat([d, randomBytes(m.length - d.length)]);
      break;
    default:
  }
  if (d.length >= 8 && m.kind !== 'random') d.writeUInt32BE(xid, 4);
  return d;
}

/** What the decoder says of a datagram: dropped as malformed, or read (then answered or ignored). */
function expected(d: Buffer): 'malformed' | 'read' {
  try {
    classifyClient(decodeDhcp(d));
    return 'read';
  } catch (err) {
    if (err instanceof DhcpFormatError) return 'malformed';
    throw err;
  }
}

describe('pxe-datagrams', () => {
  it('dhcp: mutated requests on 67 and 4011 are answered well-formed or dropped and counted by reason', async () => {
    const sender = await udp();
    const sentBefore = await total('bootsmith_pxe_dhcp_requests_total');
    const malformedBefore = await total('bootsmith_pxe_malformed_total', { protocol: 'dhcp' });
    let sent = 0;
    let malformed = 0;
    const malformedXids = new Set<number>();
    let xid = 0x7000_0000;
    await fc.assert(
      fc.asyncProperty(dhcpCase, async (c) => {
        figures.cases++;
        const id = ++xid;
        const d = dhcpDatagram(c, id);
        const kind = expected(d);
        if (kind === 'malformed') {
          malformed++;
          if (d.length >= 8) malformedXids.add(d.readUInt32BE(4));
        }
        await new Promise<void>((resolve) =>
          sender.send(d, c.toProxy ? ports.proxy : ports.dhcp, '127.0.0.1', () => resolve()),
        );
        sent++;
        if (sent % 25 === 0) await sleep(5); // paced: loopback drops nothing a socket buffer holds
      }),
      fuzzParameters(600),
    );
    if (!(await until(async () => (await total('bootsmith_pxe_dhcp_requests_total')) - sentBefore >= sent, 20_000)))
      note(
        'hangs',
        `${sent - ((await total('bootsmith_pxe_dhcp_requests_total')) - sentBefore)} DHCP datagrams never counted`,
      );
    const counted = (await total('bootsmith_pxe_malformed_total', { protocol: 'dhcp' })) - malformedBefore;
    if (counted !== malformed) note('wrongAcceptances', `${malformed} malformed sent, ${counted} counted by reason`);
    await sleep(500);
    for (const r of rawReplies) {
      let reply;
      try {
        reply = decodeDhcp(r);
      } catch (err) {
        note('wrongAcceptances', `a reply that does not decode: ${(err as Error).message}`);
        continue;
      }
      if (reply.yiaddr !== '0.0.0.0') note('wrongAcceptances', `a reply offering ${reply.yiaddr}`);
      if (malformedXids.has(reply.xid))
        note('wrongAcceptances', `an answer to a malformed datagram (xid ${reply.xid})`);
    }
    if (wing.status().state !== 'listening') note('crashes', `the wing is ${wing.status().state}`);
    sender.close();
    expect(rawReplies.length).toBeGreaterThan(0); // the well-formed cases were answered: the sockets work
    expect(failures).toEqual([]);
  });

  // ---- TFTP ----

  const NAMES = [
    'ipxe.efi', 'undionly.kpxe', 'grubx64.efi', 'grub.cfg-01-52-54-00-00-00-5b', 'grub.cfg',
    '../ipxe.efi', '../../etc/passwd', '/etc/passwd', `${'../'.repeat(40)}etc/shadow`, '..\\..\\etc\\passwd',
    'ipxe.efi\0../x', '%2e%2e/%2e%2e/etc/passwd', 'pxelinux.cfg/default', '', '.', '..', '/', 'IPXE.EFI',
    `/${'a'.repeat(300)}`, 'grub/../../../etc/hosts',
  ]; // prettier-ignore
  const tftpCase = fc.record({
    name: fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 60 })),
    mode: fc.oneof(fc.constantFrom('octet', 'netascii', 'OCTET', 'mail', '', 'binary'), fc.string({ maxLength: 10 })),
    options: fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom('blksize', 'tsize', 'timeout', 'windowsize', 'multicast', 'BLKSIZE'), fc.string({ maxLength: 8 })),
        fc.oneof(fc.constantFrom('-1', '0', '1', '7', '8', '512', '1468', '65464', '65465', '99999999999999', 'abc', ''), fc.nat(70_000).map(String)),
      ),
      { maxLength: 5 },
    ),
    client: fc.constantFrom('acks', 'wrong-blocks', 'silent', 'junk', 'error'),
    wrongBlock: fc.nat(65_535),
  }); // prettier-ignore
  type TftpCase = typeof tftpCase extends fc.Arbitrary<infer T> ? T : never;

  /**
   * One request and the client's behaviour; resolves once the server goes quiet with the payload
   * of the blocks received in order (1, 2, …; duplicates and gaps skipped, as a client does).
   */
  async function tftpClient(c: TftpCase): Promise<{ data: Buffer[] }> {
    const socket = await udp();
    const data: Buffer[] = [];
    let next = 1;
    let quiet: NodeJS.Timeout | undefined;
    const done = new Promise<void>((resolve) => {
      const arm = () => {
        clearTimeout(quiet);
        quiet = setTimeout(resolve, 8 * RETRANSMIT_MS);
      };
      arm();
      socket.on('message', (d, from) => {
        arm();
        if (d.length < 4) return;
        const op = d.readUInt16BE(0);
        const block = d.readUInt16BE(2);
        const reply = (b: Buffer) => socket.send(b, from.port, from.address);
        const ack = (n: number) => Buffer.from([0, 4, (n >> 8) & 255, n & 255]);
        if (op === 3 && block === (next & 0xffff)) {
          data.push(d.subarray(4));
          next++;
        }
        if (op !== 3 && op !== 6) return;
        const n = next - 1; // the last block received in order (0: the OACK)
        if (c.client === 'acks') reply(ack(n));
        else if (c.client === 'wrong-blocks') reply(ack((n + 1 + c.wrongBlock) & 0xffff));
        else if (c.client === 'junk') reply(randomBytes(1 + (c.wrongBlock % 40)));
        else if (c.client === 'error') reply(Buffer.from([0, 5, 0, 0, 0x78, 0]));
      });
    });
    const strings = [c.name, c.mode, ...c.options.flat()];
    socket.send(
      Buffer.concat([Buffer.from([0, 1]), Buffer.from(strings.map((s) => `${s}\0`).join(''), 'latin1')]),
      ports.tftp,
      '127.0.0.1',
    );
    await Promise.race([done, sleep(60_000)]);
    socket.close();
    return { data };
  }

  it('tftp: odd modes, options, traversal and misbehaving clients get errors or the loader, never more, and every transfer ends', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tftpCase, { minLength: 1, maxLength: PER_ADDRESS }), async (batch) => {
        const seen = await Promise.all(batch.map((c) => tftpClient(c)));
        for (const [i, c] of batch.entries()) {
          figures.cases++;
          const { data } = seen[i]!;
          // The loaders, the GRUB stub and a host's grub.cfg (the stand-in front door answers every MAC).
          const served = LOADERS[c.name] ?? (c.name.startsWith('grub.cfg') ? 'grub' : undefined);
          if (data.length > 0 && served === undefined)
            note('wrongAcceptances', `DATA for ${JSON.stringify(c.name)} (${c.mode}, ${JSON.stringify(c.options)})`);
          // What arrived in order is the loader's beginning (octet mode: netascii converts line ends).
          const got = Buffer.concat(data);
          if (
            Buffer.isBuffer(served) &&
            c.mode.toLowerCase() === 'octet' &&
            !got.equals(served.subarray(0, got.length))
          )
            note('dataLost', `${c.name}: ${got.length} bytes in order that are not the loader's`);
          if (Buffer.isBuffer(served) && got.length > served.length)
            note('wrongAcceptances', `${c.name}: ${got.length} bytes of a ${served.length}-byte loader`);
        }
        if (!(await until(() => wing.status().tftp.active === 0, TRANSFER_BOUND_MS)))
          note('hangs', `${wing.status().tftp.active} transfers still in flight ${TRANSFER_BOUND_MS} ms after a batch`);
      }),
      fuzzParameters(60),
    );
    if (wing.status().state !== 'listening') note('crashes', `the wing is ${wing.status().state}`);
    expect(failures).toEqual([]);
  });

  it('flood: junk on every port and one address asking hundreds of times; bounds hold, /live answers', async () => {
    const sender = await udp();
    const junk = [...Array(3_000)].map((_, i) => randomBytes(1 + (i % 700)));
    await Promise.all(
      junk.map(
        (d, i) =>
          new Promise<void>((resolve) =>
            sender.send(d, [ports.dhcp, ports.proxy, ports.tftp][i % 3]!, '127.0.0.1', () => resolve()),
          ),
      ),
    );
    figures.cases += junk.length;
    // What the sockets' buffers held is read; the rest the kernel dropped, as it would on a wire.
    await sleep(500);
    // One address, 300 requests for the loader at once, never acknowledging.
    const rrq = Buffer.concat([
      Buffer.from([0, 1]),
      Buffer.from(['ipxe.efi', 'octet', 'blksize', '1468'].map((x) => `${x}\0`).join(''), 'latin1'),
    ]);
    const flooders = await Promise.all([...Array(300)].map(() => udp()));
    let worstActive = 0;
    const sampler = setInterval(() => (worstActive = Math.max(worstActive, wing.status().tftp.active)), 5);
    for (const s of flooders) s.send(rrq, ports.tftp, '127.0.0.1');
    figures.cases += flooders.length;
    await sleep(300);
    const ended = await until(() => wing.status().tftp.active === 0, TRANSFER_BOUND_MS);
    clearInterval(sampler);
    for (const s of flooders) s.close();
    sender.close();
    if (!ended) note('hangs', `${wing.status().tftp.active} flood transfers still in flight`);
    if (worstActive > PER_ADDRESS) note('wrongAcceptances', `${worstActive} transfers at once from one address`);
    if (wing.status().state !== 'listening') note('crashes', `the wing is ${wing.status().state}`);
    expect(await total('bootsmith_pxe_tftp_requests_total', { outcome: 'busy' })).toBeGreaterThan(0);
    expect(live.failed, `/live worst ${Math.round(live.worstMs)} ms`).toBe(0);
    expect(live.asked).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  });
});
