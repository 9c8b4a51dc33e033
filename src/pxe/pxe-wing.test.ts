// The wing assembled on loopback (interface `lo`, ports the kernel picks, "broadcast" replies to
// 127.0.0.1): the ProxyDHCP's answers reach the client, the 4011 exchange and the relay path go
// where RFC 2131 sends them, bad input is dropped and counted, operator-worthy refusals are logged
// once a minute, the front door's clock fires, status() says what /health will show, and a start
// that cannot finish says why and leaves nothing bound.
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGE_TYPE, OPTION } from './dhcp/options.js';
import { headerText } from './dhcp/packet.js';
import { ProxyDhcpServer } from './dhcp/proxy-dhcp-server.js';
import { PxeMetrics } from './pxe-metrics.js';
import { parsePxeSettings } from './pxe-settings.js';
import { PxeStartError } from './pxe-start-error.js';
import { createPxeWing, preparePxe, type PxeWing } from './pxe-wing.js';
import { buildRequest, DhcpListener, FIRMWARE } from './test-support/pxe-client-stand-in.js';
import { StaticFrontDoor } from './test-support/static-front-door.js';

const LOADERS_DIR = mkdtempSync(path.join(tmpdir(), 'bs-pxe-wing-'));
for (const name of ['undionly.kpxe', 'ipxe.efi', 'snponly.efi', 'shimx64.efi', 'grubx64.efi'])
  writeFileSync(path.join(LOADERS_DIR, name), `${name} bytes`);
const IPXE_URL = 'http://127.0.0.1:8080/boot.ipxe';
const HTTP_URL = 'http://127.0.0.1:8080/byid/e/4.17/x86_64/minimal.iso';
const MAC = '52:54:00:0a:0b:0c';
afterAll(() => rmSync(LOADERS_DIR, { recursive: true, force: true }));

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function wingOn(client: DhcpListener, frontDoor: StaticFrontDoor, logs: LogLine[], env: Record<string, string> = {}) {
  const registry = new Registry();
  const wing = createPxeWing({
    settings: parsePxeSettings({ PXE_INTERFACE: 'lo', PXE_LOADERS_DIR: LOADERS_DIR, ...env }),
    frontDoor,
    registry,
    log: {
      info: (fields, message) => logs.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
      warn: (fields, message) => logs.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
    },
    listen: { dhcp: 0, proxy: 0, tftp: 0, dhcpClient: client.port, broadcastAddress: '127.0.0.1' },
  });
  return { wing, registry };
}

async function sample(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x))
    .reduce((sum, v) => sum + v.value, 0);
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`not within ${ms} ms: ${what}`);
}

describe('the PXE wing on loopback', () => {
  let client: DhcpListener;
  let wing: PxeWing;
  let registry: Registry;
  const logs: LogLine[] = [];
  let dhcpPort: number;
  let proxyPort: number;
  const frontDoor = new StaticFrontDoor({
    ipxeScriptUrl: IPXE_URL,
    httpBootUrl: HTTP_URL,
    secureBootMacs: ['52:54:00:0a:0b:5b'],
  });

  beforeAll(async () => {
    client = await DhcpListener.bind('127.0.0.1', 0);
    ({ wing, registry } = wingOn(client, frontDoor, logs));
    expect(wing.status().state).toBe('stopped');
    await wing.start();
    const ports = wing.status().ports!;
    dhcpPort = ports.dhcp;
    proxyPort = ports.proxy;
  });
  afterAll(async () => {
    await wing.stop();
    await client.close();
  });

  it('says what /health will show', () => {
    expect(wing.status()).toMatchObject({
      state: 'listening',
      interface: 'lo',
      address: '127.0.0.1',
      loaders: ['undionly.kpxe', 'ipxe.efi', 'shimx64.efi', 'grubx64.efi'].map((name) => ({
        name,
        bytes: name.length + 6,
        path: path.join(LOADERS_DIR, name),
      })),
      dhcp: { answered: 0, ignored: 0, malformed: 0, noOffer: 0 },
      tftp: { active: 0, complete: 0, failed: 0, refused: 0 },
      error: undefined,
    });
    expect(logs.find((l) => l.message.startsWith('PXE: ProxyDHCP and TFTP answering on lo'))).toBeDefined();
    // The stand-in GRUB is no GRUB a Secure Boot host finishes the chain with: said at start, naming it.
    const grub = logs.filter((l) => l.level === 'warn' && l.fields.loader === path.join(LOADERS_DIR, 'grubx64.efi'));
    expect(grub.map((l) => l.message)).toEqual([
      expect.stringMatching(/^PXE: the Secure Boot GRUB \S+grubx64\.efi has no HTTP module built in/),
      expect.stringMatching(/takes its TFTP server from the site DHCP server's answer/),
    ]);
  });

  it.each([
    ['EDK2 x64', FIRMWARE.edk2X64, MAC, 'ipxe.efi'],
    ['a Secure Boot host', FIRMWARE.edk2X64, '52:54:00:0a:0b:5b', 'shimx64.efi'],
    ['a BIOS ROM', FIRMWARE.bios, MAC, 'undionly.kpxe'],
    ['iPXE', FIRMWARE.ipxeEfi, MAC, IPXE_URL],
    ['UEFI HTTP Boot', FIRMWARE.httpX64, MAC, HTTP_URL],
  ] as const)('offers %s its boot file (DISCOVER on 67 → OFFER broadcast)', async (_name, profile, mac, file) => {
    const xid = Math.floor(Math.random() * 2 ** 31);
    await client.send(buildRequest({ mac, xid, profile }), dhcpPort, '127.0.0.1');
    const offer = await client.reply(xid, 10_000);
    expect(offer).toBeDefined();
    expect(offer!.yiaddr).toBe('0.0.0.0');
    expect(offer!.options.get(OPTION.bootfileName)?.toString()).toBe(file);
    expect(offer!.options.get(OPTION.messageType)?.[0]).toBe(MESSAGE_TYPE.offer);
  });

  it('answers the 4011 boot-server request with an ACK to its source', async () => {
    const own = await DhcpListener.bind('127.0.0.1', 0);
    const xid = 4011;
    await own.send(
      buildRequest({
        mac: MAC,
        xid,
        profile: FIRMWARE.edk2X64,
        type: MESSAGE_TYPE.request,
        ciaddr: '127.0.0.1',
        broadcast: false,
      }),
      proxyPort,
      '127.0.0.1',
    );
    const ack = await own.reply(xid, 10_000);
    expect(ack?.options.get(OPTION.messageType)?.[0]).toBe(MESSAGE_TYPE.ack);
    expect(headerText(ack!.file)).toBe('ipxe.efi');
    expect(ack!.ciaddr).toBe('127.0.0.1');
    expect(
      await sample(registry, 'bootsmith_pxe_dhcp_requests_total', { listener: 'proxy', outcome: 'answered' }),
    ).toBe(1);
    await own.close();
  });

  it("sends a relayed client's offer to the relay's giaddr on the server port", async () => {
    const relay = await DhcpListener.bind('127.0.0.2', dhcpPort, { reuseAddr: true });
    const xid = 67;
    await client.send(
      buildRequest({ mac: MAC, xid, profile: FIRMWARE.edk2X64, giaddr: '127.0.0.2' }),
      dhcpPort,
      '127.0.0.1',
    );
    const offer = await relay.reply(xid, 10_000);
    expect(offer?.giaddr).toBe('127.0.0.2');
    expect(headerText(offer!.file)).toBe('ipxe.efi');
    expect(client.received.some((m) => m.xid === xid)).toBe(false);
    await relay.close();
  });

  it('drops malformed messages, counts them, logs them at most once a minute per source', async () => {
    const before = wing.status().dhcp.malformed;
    const looping = buildRequest({
      mac: MAC,
      xid: 52,
      profile: FIRMWARE.edk2X64,
      extra: [[OPTION.overload, Buffer.from([1])]],
    });
    looping.fill(0, 108, 236);
    Buffer.from([52, 1, 1, 255]).copy(looping, 108); // option 52 again inside the overloaded file field
    for (const datagram of [Buffer.from('not dhcp at all'), looping, looping, looping])
      await client.send(datagram, dhcpPort, '127.0.0.1');
    await until(() => wing.status().dhcp.malformed === before + 4, 'four malformed counted');
    expect(
      await sample(registry, 'bootsmith_pxe_dhcp_requests_total', { listener: 'dhcp', outcome: 'malformed' }),
    ).toBe(before + 4);
    // …and by reason: the overload loop three times, the text (no cookie) once.
    expect(await sample(registry, 'bootsmith_pxe_malformed_total', { protocol: 'dhcp', reason: 'overload' })).toBe(3);
    expect(await sample(registry, 'bootsmith_pxe_malformed_total', { protocol: 'dhcp', reason: 'short' })).toBe(1);
    expect(logs.filter((l) => l.message === 'PXE: dropped a malformed DHCP message')).toHaveLength(1);
    expect(client.received.some((m) => m.xid === 52)).toBe(false);
  });

  it('gives an unknown architecture no offer, and logs which, once a minute', async () => {
    const profile = { name: 'arch 4242', vendorClass: 'PXEClient:Arch:04242:UNDI:003000', arch: 4242 };
    for (let i = 0; i < 5; i++)
      await client.send(buildRequest({ mac: MAC, xid: 900 + i, profile }), dhcpPort, '127.0.0.1');
    await until(
      async () => (await sample(registry, 'bootsmith_pxe_dhcp_requests_total', { outcome: 'unknown_arch' })) === 5,
      'five counted',
    );
    const lines = logs.filter((l) => l.message.includes('unknown architecture: option 93 4242'));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe('warn');
    expect(client.received.some((m) => m.xid >= 900 && m.xid < 905)).toBe(false);
  });

  it('ignores ordinary DHCP clients and requests to the site server', async () => {
    const before = wing.status().dhcp.ignored;
    const ordinary = { name: 'a laptop', vendorClass: 'MSFT 5.0', arch: undefined };
    await client.send(buildRequest({ mac: MAC, xid: 1, profile: ordinary }), dhcpPort, '127.0.0.1');
    await client.send(
      buildRequest({ mac: MAC, xid: 2, profile: FIRMWARE.edk2X64, type: MESSAGE_TYPE.request }),
      dhcpPort,
      '127.0.0.1',
    );
    await until(() => wing.status().dhcp.ignored === before + 2, 'two ignored');
  });
});

describe("the front door's clock", () => {
  it('gives no answer when the front door does not answer in time, and counts it', async () => {
    const client = await DhcpListener.bind('127.0.0.1', 0);
    const logs: LogLine[] = [];
    const { wing, registry } = wingOn(client, new StaticFrontDoor({ delayMs: 5_000 }), logs);
    await wing.start();
    const xid = 2000;
    await client.send(
      buildRequest({ mac: MAC, xid, profile: FIRMWARE.edk2X64 }),
      wing.status().ports!.dhcp,
      '127.0.0.1',
    );
    await until(
      async () => (await sample(registry, 'bootsmith_pxe_dhcp_requests_total', { outcome: 'lookup_failed' })) === 1,
      'lookup_failed',
      10_000,
    );
    expect(logs.some((l) => /did not answer within 2000 ms/.test(l.message))).toBe(true);
    expect(client.received).toHaveLength(0);
    await wing.stop();
    await client.close();
  });
});

describe('ProxyDHCP: the subnet of direct messages', () => {
  it('ignores a direct (not relayed) message from outside the interface subnet', async () => {
    const client = await DhcpListener.bind('127.0.0.5', 0);
    const server = await ProxyDhcpServer.start({
      iface: { name: 'lo', address: '127.0.0.1', netmask: '255.255.255.255', mtu: 1500, maxBlockSize: 1468 },
      ports: { dhcp: 0, dhcpClient: client.port, proxy: 0 },
      broadcastAddress: '127.0.0.5',
      loaders: { bios: 'undionly.kpxe', efiX64: 'ipxe.efi', arm64: undefined, secureBootShim: undefined },
      port: new StaticFrontDoor({}),
      metrics: new PxeMetrics(new Registry()),
      log: { info: () => undefined, warn: () => undefined },
    });
    const relay = await DhcpListener.bind('127.0.0.5', server.bound.dhcp, { reuseAddr: true });
    await client.send(buildRequest({ mac: MAC, xid: 5, profile: FIRMWARE.edk2X64 }), server.bound.dhcp, '127.0.0.1');
    await client.send(
      buildRequest({ mac: MAC, xid: 6, profile: FIRMWARE.edk2X64, giaddr: '127.0.0.5' }),
      server.bound.dhcp,
      '127.0.0.1',
    );
    expect(await relay.reply(6, 10_000)).toBeDefined();
    await until(
      () => server.stats().ignored === 1 && server.stats().answered === 1,
      'the direct one ignored, the relayed one answered',
    );
    expect(client.received).toHaveLength(0);
    await relay.close();
    await server.stop();
    await client.close();
  });
});

describe('starting', () => {
  const noop = { info: () => undefined, warn: () => undefined };
  const start = (env: Record<string, string>, listen = {}) => {
    const wing = createPxeWing({
      settings: parsePxeSettings(env),
      frontDoor: new StaticFrontDoor({}),
      registry: new Registry(),
      log: noop,
      listen: { dhcp: 0, proxy: 0, tftp: 0, ...listen },
    });
    return { wing, started: wing.start() };
  };

  it('is off without PXE_INTERFACE, and binds nothing', async () => {
    const { wing, started } = start({});
    await started;
    expect(wing.status()).toMatchObject({ state: 'off', interface: undefined, ports: undefined });
  });

  it('names the missing loaders and the packages that ship them', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'bs-pxe-empty-'));
    writeFileSync(path.join(empty, 'ipxe.efi'), 'x');
    const { wing, started } = start({ PXE_INTERFACE: 'lo', PXE_LOADERS_DIR: empty });
    const err = await started.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PxeStartError);
    const message = (err as Error).message;
    expect(message).toContain(
      `${path.join(empty, 'undionly.kpxe')} is missing (undionly.kpxe in PXE_LOADERS_DIR: Debian's ipxe (/usr/lib/ipxe/undionly.kpxe) or RHEL's ipxe-bootimgs-x86`,
    );
    expect(message).toContain(
      `${path.join(empty, 'shimx64.efi')} is missing (shimx64.efi in PXE_LOADERS_DIR: Debian's shim-signed`,
    );
    expect(message).toContain('or PXE_SECURE_BOOT=false to boot without Secure Boot');
    expect(message).not.toContain('ipxe.efi is missing');
    expect(wing.status()).toMatchObject({ state: 'failed', error: message, ports: undefined });
    rmSync(empty, { recursive: true, force: true });
  });

  it('names an interface that is not there, and one the host lists', async () => {
    const err = await start({ PXE_INTERFACE: 'nope0' }).started.catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^PXE_INTERFACE nope0 is not an interface of this host \(it has .*\blo\b/);
  });

  it('says which port is taken, and leaves nothing of itself bound', async () => {
    const taken = dgram.createSocket('udp4');
    await new Promise<void>((r) => taken.bind({ port: 0, address: '127.0.0.1', exclusive: true }, r));
    const freePort = await new Promise<number>((resolve) => {
      const s = dgram.createSocket('udp4');
      s.bind(0, '127.0.0.1', () => {
        const p = s.address().port;
        s.close(() => resolve(p));
      });
    });
    const { started } = start(
      { PXE_INTERFACE: 'lo', PXE_LOADERS_DIR: LOADERS_DIR },
      { dhcp: freePort, tftp: taken.address().port },
    );
    const err = await started.catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      `UDP port ${taken.address().port} (TFTP) on 127.0.0.1 is in use by another process on this host`,
    );
    // The DHCP sockets it had bound are closed again: the port binds exclusively.
    const again = dgram.createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.bind({ port: freePort, address: '0.0.0.0', exclusive: true }, resolve);
    });
    again.close();
    taken.close();
  });

  it('prepares without keeping anything bound: the probe names a taken port, and a start serves what it read', async () => {
    const taken = dgram.createSocket('udp4');
    await new Promise<void>((r) => taken.bind({ port: 0, address: '127.0.0.1', exclusive: true }, r));
    const settings = parsePxeSettings({ PXE_INTERFACE: 'lo', PXE_LOADERS_DIR: LOADERS_DIR });
    const err = await preparePxe(settings, { dhcp: 0, proxy: taken.address().port, tftp: 0 }).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      `UDP port ${taken.address().port} (PXE boot server) on 127.0.0.1 is in use by another process on this host`,
    );
    taken.close();
    const prepared = await preparePxe(settings, { dhcp: 0, proxy: 0, tftp: 0 });
    expect(prepared.iface).toMatchObject({ name: 'lo', address: '127.0.0.1' });
    expect([...prepared.loaders.files.keys()]).toEqual(['undionly.kpxe', 'ipxe.efi', 'shimx64.efi', 'grubx64.efi']);
    const wing = createPxeWing({
      settings,
      frontDoor: new StaticFrontDoor({}),
      registry: new Registry(),
      log: noop,
      listen: { dhcp: 0, proxy: 0, tftp: 0 },
      prepared,
    });
    await wing.start();
    expect(wing.status().loaders.map((l) => l.bytes)).toEqual(
      [...prepared.loaders.files.values()].map((f) => f.bytes.length),
    );
    await wing.stop();
  });
});
