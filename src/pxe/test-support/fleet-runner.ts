// A fleet of packet-level PXE clients in one process (pxe-client-stand-in.ts), run inside a network
// namespace by the bench and the real-socket tests (`ip netns exec NS node fleet-runner.js
// CONFIG.json`): every client at once does what EDK2's PXE stack does on a LAN: DISCOVER
// (broadcast, resent after 4, 8, 16, 32 s), the 4011 request to the offering server when the offer
// says to ask there (no boot file, or no option 43: EDK2's "BINL" path), then the TFTP fetch of the
// boot file from siaddr, from the client's own address. Prints one JSON line: per client the
// times of each step, retransmissions, bytes and whether they match the expected SHA-256.
// `mode: "listen"` instead records the DHCP replies broadcast on the segment for a while (to see
// what a real client such as udhcpc was offered); `mode: "stall"` sends one RRQ and never
// acknowledges anything, recording what the server sends (its resends, then silence).
// Does NOT: take leases (clients have static addresses; the site's DHCP is not in this picture).
import { createHash } from 'node:crypto';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { MESSAGE_TYPE, OPTION } from '../dhcp/options.js';
import { type DhcpMessage, headerText } from '../dhcp/packet.js';
import { buildRequest, DhcpListener, FIRMWARE, isProxyReply, tftpGet } from './pxe-client-stand-in.js';

export interface FleetConfig {
  mode: 'boot' | 'listen' | 'stall';
  clients: Array<{ mac: string; address: string }>;
  profile: keyof typeof FIRMWARE;
  broadcastAddress: string;
  ports: { dhcp: number; dhcpClient: number; proxy: number; tftp: number };
  blksize: number;
  windowsize?: number;
  expectSha256?: string;
  deadlineMs: number;
  listenMs?: number;
  /** Overrides EDK2's DISCOVER schedule (tests that expect no offer). */
  discoverWaitsMs?: number[];
  /** `stall`: the file to ask for (from the first client's address), then never acknowledge. */
  stall?: { server: string; file: string; options: string[] };
}

export interface ClientResult {
  mac: string;
  ok: boolean;
  error?: string;
  offerMs?: number;
  ackMs?: number;
  doneMs?: number;
  file?: string;
  via4011: boolean;
  dhcpRetries: number;
  tftpRetransmits: number;
  tftpDuplicates: number;
  bytes: number;
}

/** EDK2's DISCOVER schedule (mPxeDhcpTimeout: 4, 8, 16, 32 s). */
const DISCOVER_WAITS_MS = [4_000, 8_000, 16_000, 32_000];
/** EDK2's boot-server request: PXEBC_BOOT_REQUEST_TIMEOUT 1 s × try, 3 tries (PXEBC_BOOT_REQUEST_RETRIES). */
const BOOT_REQUEST_WAITS_MS = [1_000, 2_000, 3_000];

const ipv4Of = (b: Buffer | undefined) => (b && b.length === 4 ? [...b].join('.') : undefined);

async function bootOne(
  config: FleetConfig,
  shared: DhcpListener,
  client: { mac: string; address: string },
  index: number,
  t0: number,
): Promise<ClientResult> {
  const profile = FIRMWARE[config.profile];
  const guid = createHash('sha256').update(client.mac).digest().subarray(0, 16);
  const result: ClientResult = {
    mac: client.mac,
    ok: false,
    via4011: false,
    dhcpRetries: 0,
    tftpRetransmits: 0,
    tftpDuplicates: 0,
    bytes: 0,
  };
  const xid = (0x5000_0000 + index * 7919) >>> 0;
  const discover = buildRequest({ mac: client.mac, xid, profile, guid });
  let offer: DhcpMessage | undefined;
  for (const [i, wait] of (config.discoverWaitsMs ?? DISCOVER_WAITS_MS).entries()) {
    await shared.send(discover, config.ports.dhcp, config.broadcastAddress);
    // Only proxy offers (yiaddr 0) count: the site's DHCP server may answer too.
    const m = await shared.reply(xid, wait, isProxyReply);
    if (m) {
      offer = m;
      result.dhcpRetries = i;
      break;
    }
  }
  if (!offer) return { ...result, error: 'no offer' };
  result.offerMs = performance.now() - t0;
  const server = ipv4Of(offer.options.get(OPTION.serverIdentifier)) ?? offer.siaddr;
  let answer = offer;
  const offeredFile = offer.options.get(OPTION.bootfileName)?.toString('latin1') ?? headerText(offer.file);
  if (!offeredFile || !offer.options.has(OPTION.vendorSpecific)) {
    // EDK2's PxeBcRetryBinlOffer: a DHCPREQUEST to the server's port 4011, from port 4011.
    result.via4011 = true;
    const own = await DhcpListener.bind(client.address, config.ports.proxy);
    try {
      const request = buildRequest({
        mac: client.mac,
        xid: xid + 1,
        profile,
        guid,
        type: MESSAGE_TYPE.request,
        ciaddr: client.address,
        broadcast: false,
      });
      let ack: DhcpMessage | undefined;
      for (const wait of BOOT_REQUEST_WAITS_MS) {
        await own.send(request, config.ports.proxy, server);
        ack = await own.reply(xid + 1, wait);
        if (ack) break;
        result.dhcpRetries++;
      }
      if (!ack) return { ...result, error: 'no answer on port 4011' };
      answer = ack;
    } finally {
      await own.close();
    }
    result.ackMs = performance.now() - t0;
  }
  const file =
    answer.options.get(OPTION.bootfileName)?.toString('latin1').replace(/\0+$/, '') ?? headerText(answer.file);
  result.file = file;
  if (!file) return { ...result, error: 'no boot file' };
  const tftpServer = answer.siaddr !== '0.0.0.0' ? answer.siaddr : server;
  try {
    const got = await tftpGet({
      server: tftpServer,
      port: config.ports.tftp,
      file,
      localAddress: client.address,
      blksize: config.blksize,
      windowsize: config.windowsize,
      tsize: true,
      deadlineMs: config.deadlineMs,
    });
    result.tftpRetransmits = got.retransmits;
    result.tftpDuplicates = got.duplicates;
    result.bytes = got.bytes.length;
    if (got.error) return { ...result, error: `TFTP error ${got.error.code}: ${got.error.message}` };
    const sha = createHash('sha256').update(got.bytes).digest('hex');
    if (config.expectSha256 && sha !== config.expectSha256) return { ...result, error: `wrong bytes (sha256 ${sha})` };
  } catch (err) {
    return { ...result, error: (err as Error).message };
  }
  result.doneMs = performance.now() - t0;
  return { ...result, ok: true };
}

function describeReply(m: DhcpMessage) {
  return {
    xid: m.xid,
    mac: m.chaddr.subarray(0, 6).toString('hex'),
    yiaddr: m.yiaddr,
    siaddr: m.siaddr,
    type: m.options.get(OPTION.messageType)?.[0],
    serverId: ipv4Of(m.options.get(OPTION.serverIdentifier)),
    vendorClass: m.options.get(OPTION.vendorClass)?.toString('latin1'),
    file: headerText(m.file),
    bootfile: m.options.get(OPTION.bootfileName)?.toString('latin1'),
    vendor43: m.options.get(OPTION.vendorSpecific)?.toString('hex'),
    machineId: m.options.get(OPTION.clientMachineId)?.toString('hex'),
  };
}

/** One RRQ, no ACK ever: what arrives, and when (ms after the RRQ). */
async function stall(config: FleetConfig): Promise<void> {
  const { server, file, options } = config.stall!;
  const socket = dgram.createSocket('udp4');
  const arrivals: Array<{ opcode: number; block: number; atMs: number }> = [];
  await new Promise<void>((resolve) => socket.bind(0, config.clients[0]!.address, resolve));
  const t0 = performance.now();
  socket.on('message', (d) =>
    arrivals.push({ opcode: d.readUInt16BE(0), block: d.readUInt16BE(2), atMs: Math.round(performance.now() - t0) }),
  );
  socket.send(
    Buffer.concat([
      Buffer.from([0, 1]),
      Buffer.from([file, 'octet', ...options].map((x) => `${x}\0`).join(''), 'latin1'),
    ]),
    config.ports.tftp,
    server,
  );
  await new Promise((resolve) => setTimeout(resolve, config.listenMs ?? 10_000));
  socket.close();
  process.stdout.write(`${JSON.stringify({ arrivals })}\n`);
}

async function main(): Promise<void> {
  const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as FleetConfig;
  if (config.mode === 'stall') return stall(config);
  const shared = await DhcpListener.bind('0.0.0.0', config.ports.dhcpClient, { reuseAddr: true });
  if (config.mode === 'listen') {
    await new Promise((resolve) => setTimeout(resolve, config.listenMs ?? 10_000));
    process.stdout.write(`${JSON.stringify({ replies: shared.received.map(describeReply) })}\n`);
    await shared.close();
    return;
  }
  const t0 = performance.now();
  const results = await Promise.all(config.clients.map((c, i) => bootOne(config, shared, c, i, t0)));
  await shared.close();
  process.stdout.write(`${JSON.stringify({ wallMs: performance.now() - t0, results })}\n`);
}

void main().catch((err: unknown) => {
  process.stdout.write(`${JSON.stringify({ fatal: (err as Error).stack })}\n`);
  process.exit(1);
});
