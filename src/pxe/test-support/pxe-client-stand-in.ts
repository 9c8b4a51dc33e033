// A PXE client at the packet level, for tests, the fuzz campaign and the bench: DHCP requests as
// firmware sends them, and a TFTP client. It stands in for NIC firmware where booting a machine per
// case would cost minutes; what it sends is checked against the real thing in
// src/pxe/pxe-network.test.ts (busybox udhcpc's DISCOVER with the same vendor class and option 93
// gets the same offer; curl, atftp and tftp-hpa fetch what this client fetches; the same client
// fetches from dnsmasq's TFTP server in the bench) and OVMF's own PXE stack boots through the
// wing in src/pxe/pxe-ovmf.test.ts.
//
//   firmware profiles: EDK2's DISCOVER (PxeBcBuildDhcp4Options: 53, 57, 55, 97, 94, 93, 60
//                      "PXEClient:Arch:00007:UNDI:003000"), a BIOS PXE ROM's, iPXE's (user class
//                      "iPXE", option 175) and UEFI HTTP Boot's ("HTTPClient:Arch:00016")
//   tftpGet:           RRQ with blksize/tsize/timeout/windowsize, ACKs per window, retransmits on
//                      silence, a deadline; counts what it had to ask again
// Does NOT: take an address from a DHCP server (the bench and tests give clients static ones).
import dgram from 'node:dgram';
import { encodeOptions, MESSAGE_TYPE, OPTION } from '../dhcp/options.js';
import { BOOT_REQUEST, decodeDhcp, type DhcpMessage, FLAG_BROADCAST, HTYPE_ETHERNET } from '../dhcp/packet.js';
import { decodeTftp, encodeError, OPCODE } from '../tftp/packet.js';

export interface FirmwareProfile {
  name: string;
  vendorClass: string;
  /** Option 93; undefined = not sent. */
  arch: number | undefined;
  userClass?: string;
  ipxeOption175?: boolean;
  /** Option 94 (UNDI type, major, minor). */
  undi?: [number, number, number];
}

const arch5 = (n: number) => String(n).padStart(5, '0');

export const FIRMWARE: Readonly<Record<'edk2X64' | 'edk2X64Bc' | 'bios' | 'arm64' | 'ipxeEfi' | 'ipxeBios' | 'httpX64' | 'httpArm64', FirmwareProfile>> = {
  edk2X64: { name: 'EDK2 x64 PXE', vendorClass: `PXEClient:Arch:${arch5(7)}:UNDI:003000`, arch: 7, undi: [1, 3, 0] },
  edk2X64Bc: { name: 'x64 PXE sending 9', vendorClass: `PXEClient:Arch:${arch5(9)}:UNDI:003016`, arch: 9, undi: [1, 3, 16] },
  bios: { name: 'BIOS PXE ROM', vendorClass: `PXEClient:Arch:${arch5(0)}:UNDI:002001`, arch: 0, undi: [1, 2, 1] },
  arm64: { name: 'AAVMF PXE', vendorClass: `PXEClient:Arch:${arch5(11)}:UNDI:003000`, arch: 11, undi: [1, 3, 0] },
  ipxeEfi: { name: 'iPXE (EFI)', vendorClass: `PXEClient:Arch:${arch5(7)}:UNDI:003010`, arch: 7, userClass: 'iPXE', ipxeOption175: true, undi: [1, 3, 10] },
  ipxeBios: { name: 'iPXE (BIOS)', vendorClass: `PXEClient:Arch:${arch5(0)}:UNDI:002001`, arch: 0, userClass: 'iPXE', ipxeOption175: true, undi: [1, 2, 1] },
  httpX64: { name: 'EDK2 HTTP Boot x64', vendorClass: `HTTPClient:Arch:${arch5(16)}:UNDI:003000`, arch: 16, undi: [1, 3, 0] },
  httpArm64: { name: 'EDK2 HTTP Boot AArch64', vendorClass: `HTTPClient:Arch:${arch5(19)}:UNDI:003000`, arch: 19, undi: [1, 3, 0] },
}; // prettier-ignore

/** EDK2's parameter request list (PxeBcBuildDhcp4Options), 35 codes. */
const EDK2_PARAMETERS = [
  1, 2, 3, 4, 5, 6, 12, 13, 15, 17, 18, 22, 23, 28, 40, 41, 42, 43, 50, 51, 54, 58, 59, 60, 66, 67, 97, 128, 129, 130,
  131, 132, 133, 134, 135,
];

export interface RequestSpec {
  mac: string;
  xid: number;
  profile: FirmwareProfile;
  type?: number;
  /** The 16-byte GUID of option 97; undefined = not sent. */
  guid?: Buffer;
  ciaddr?: string;
  giaddr?: string;
  broadcast?: boolean;
  /** Extra options, appended as given (fuzz and edge cases). */
  extra?: ReadonlyArray<readonly [number, Buffer]>;
}

function ipv4(address: string): Buffer {
  return Buffer.from(address.split('.').map(Number));
}

export function macBytes(mac: string): Buffer {
  return Buffer.from(mac.split(':').map((h) => parseInt(h, 16)));
}

/** A BOOTREQUEST as PXE firmware builds it. */
export function buildRequest(spec: RequestSpec): Buffer {
  const { profile } = spec;
  const options: Array<readonly [number, Buffer]> = [
    [OPTION.messageType, Buffer.from([spec.type ?? MESSAGE_TYPE.discover])],
    [OPTION.maxMessageSize, Buffer.from([0x05, 0xc0])],
    [OPTION.parameterRequestList, Buffer.from(EDK2_PARAMETERS)],
  ];
  if (spec.guid) options.push([OPTION.clientMachineId, Buffer.concat([Buffer.from([0]), spec.guid])]);
  if (profile.undi) options.push([OPTION.clientNetworkInterface, Buffer.from(profile.undi)]);
  if (profile.arch !== undefined) {
    const a = Buffer.alloc(2);
    a.writeUInt16BE(profile.arch);
    options.push([OPTION.clientArchitecture, a]);
  }
  options.push([OPTION.vendorClass, Buffer.from(profile.vendorClass, 'latin1')]);
  if (profile.userClass) options.push([OPTION.userClass, Buffer.from(profile.userClass, 'latin1')]);
  if (profile.ipxeOption175)
    options.push([OPTION.ipxeEncapsulated, Buffer.from([0xb1, 0x05, 0x01, 0x80, 0x86, 0x10, 0x0e])]);
  options.push(...(spec.extra ?? []));
  const header = Buffer.alloc(240);
  header[0] = BOOT_REQUEST;
  header[1] = HTYPE_ETHERNET;
  header[2] = 6;
  header.writeUInt32BE(spec.xid >>> 0, 4);
  header.writeUInt16BE((spec.broadcast ?? true) ? FLAG_BROADCAST : 0, 10);
  ipv4(spec.ciaddr ?? '0.0.0.0').copy(header, 12);
  ipv4(spec.giaddr ?? '0.0.0.0').copy(header, 24);
  macBytes(spec.mac).copy(header, 28);
  header.writeUInt32BE(0x63825363, 236);
  return Buffer.concat([header, encodeOptions(options)]);
}

/** A UDP socket bound where the caller says, collecting the DHCP replies it receives. */
type Accept = (m: DhcpMessage) => boolean;

/** A UDP socket bound where the caller says, collecting the DHCP replies it receives. */
export class DhcpListener {
  private waiters: Array<{ xid: number; accept: Accept; done: (m: DhcpMessage) => void }> = [];
  readonly received: DhcpMessage[] = [];

  private constructor(readonly socket: dgram.Socket) {
    socket.on('message', (datagram) => {
      let message: DhcpMessage;
      try {
        message = decodeDhcp(datagram);
      } catch {
        return;
      }
      this.received.push(message);
      const matched = this.waiters.filter((w) => w.xid === message.xid && w.accept(message));
      this.waiters = this.waiters.filter((w) => !matched.includes(w));
      for (const w of matched) w.done(message);
    });
  }

  static async bind(address: string, port: number, opts: { reuseAddr?: boolean } = {}): Promise<DhcpListener> {
    const socket = dgram.createSocket({ type: 'udp4', reuseAddr: opts.reuseAddr ?? false });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, address, () => {
        socket.off('error', reject);
        socket.setBroadcast(true);
        resolve();
      });
    });
    return new DhcpListener(socket);
  }

  get port(): number {
    return this.socket.address().port;
  }

  send(datagram: Buffer, port: number, address: string): Promise<void> {
    return new Promise((resolve, reject) =>
      this.socket.send(datagram, port, address, (err) => (err ? reject(err) : resolve())),
    );
  }

  /** The first reply with this xid that `accept` takes (already received, or within `ms`), or undefined. */
  reply(xid: number, ms: number, accept: Accept = () => true): Promise<DhcpMessage | undefined> {
    const seen = this.received.find((m) => m.xid === xid && accept(m));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const waiter = {
        xid,
        accept,
        done: (m: DhcpMessage) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(undefined);
      }, ms);
      this.waiters.push(waiter);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

/** A ProxyDHCP answer: no address in it (the site's DHCP server's offers carry one). */
export const isProxyReply: Accept = (m) => m.yiaddr === '0.0.0.0';

export interface TftpGetOptions {
  server: string;
  port: number;
  file: string;
  localAddress?: string;
  mode?: 'octet' | 'netascii';
  blksize?: number;
  windowsize?: number;
  tsize?: boolean;
  /** The timeout option sent (seconds); the client's own wait before asking again is `retryMs`. */
  timeoutOption?: number;
  retryMs?: number;
  deadlineMs?: number;
}

export interface TftpGetResult {
  bytes: Buffer;
  /** RRQs and ACKs the client sent again after silence. */
  retransmits: number;
  /** Out-of-order or duplicate DATA seen (what the server sent twice). */
  duplicates: number;
  oack: Map<string, string> | undefined;
  /** The server's ERROR, when it answered with one. */
  error: { code: number; message: string } | undefined;
}

/** Fetches one file as a TFTP client does (RFC 1350, 2347–2349, 7440). */
export function tftpGet(o: TftpGetOptions): Promise<TftpGetResult> {
  const retryMs = o.retryMs ?? 1000;
  const options = new Map<string, string>();
  if (o.blksize) options.set('blksize', String(o.blksize));
  if (o.tsize) options.set('tsize', '0');
  if (o.timeoutOption) options.set('timeout', String(o.timeoutOption));
  if (o.windowsize) options.set('windowsize', String(o.windowsize));
  const rrq = Buffer.concat([
    Buffer.from([0, OPCODE.rrq]),
    Buffer.from(`${o.file}\0${o.mode ?? 'octet'}\0`, 'latin1'),
    ...[...options].map(([k, v]) => Buffer.from(`${k}\0${v}\0`, 'latin1')),
  ]);
  const socket = dgram.createSocket('udp4');
  const chunks: Buffer[] = [];
  let blockSize = 512;
  let windowSize = 1;
  let expected = 1; // absolute block number
  let inWindow = 0;
  let peer: { address: string; port: number } | undefined;
  let retransmits = 0;
  let duplicates = 0;
  let oack: Map<string, string> | undefined;
  let lastSent: Buffer = rrq;
  let silence: NodeJS.Timeout | undefined;
  let unanswered = 0;

  return new Promise<TftpGetResult>((resolve, reject) => {
    let finished = false;
    const finish = (error?: { code: number; message: string }) => {
      if (finished) return;
      finished = true;
      clearTimeout(silence);
      clearTimeout(deadline);
      socket.close();
      resolve({ bytes: Buffer.concat(chunks), retransmits, duplicates, oack, error });
    };
    const deadline = setTimeout(() => {
      clearTimeout(silence);
      socket.close();
      reject(
        new Error(
          `TFTP get ${o.file}: no end within ${o.deadlineMs ?? 60_000} ms (${Buffer.concat(chunks).length} bytes)`,
        ),
      );
    }, o.deadlineMs ?? 60_000);
    const send = (packet: Buffer, sent?: () => void) => {
      lastSent = packet;
      socket.send(packet, peer?.port ?? o.port, peer?.address ?? o.server, sent);
      clearTimeout(silence);
      silence = setTimeout(() => {
        if (++unanswered > 8) {
          clearTimeout(deadline);
          socket.close();
          reject(new Error(`TFTP get ${o.file}: the server went silent`));
          return;
        }
        retransmits++;
        send(lastSent);
      }, retryMs);
    };
    const ack = (absolute: number, sent?: () => void) => {
      const b = Buffer.alloc(4);
      b.writeUInt16BE(OPCODE.ack, 0);
      b.writeUInt16BE(absolute & 0xffff, 2);
      send(b, sent);
    };
    socket.on('message', (datagram, from) => {
      if (peer && (from.address !== peer.address || from.port !== peer.port)) return;
      let packet;
      try {
        packet = decodeTftp(datagram);
      } catch {
        return;
      }
      peer ??= { address: from.address, port: from.port };
      unanswered = 0;
      if (packet.kind === 'error') return finish({ code: packet.code, message: packet.message });
      if (packet.kind === 'oack') {
        if (oack) return; // a resent OACK
        oack = packet.options;
        blockSize = Number(oack.get('blksize') ?? 512);
        windowSize = Number(oack.get('windowsize') ?? 1);
        if (o.tsize && !o.blksize && !o.windowsize) {
          // EDK2's size probe: read tsize, then stop the transfer with an ERROR.
          socket.send(encodeError(0, 'size probe done'), peer.port, peer.address, () => finish());
          return;
        }
        return ack(0);
      }
      if (packet.kind !== 'data') return;
      const payload = datagram.subarray(4);
      if (packet.block !== (expected & 0xffff)) {
        duplicates++;
        if (inWindow === 0 || packet.block === ((expected - 1) & 0xffff)) ack(expected - 1);
        return;
      }
      chunks.push(Buffer.from(payload));
      expected++;
      inWindow++;
      if (payload.length < blockSize) {
        clearTimeout(deadline);
        ack(expected - 1, () => finish()); // the socket closes once the last ACK has left
        return;
      }
      if (inWindow >= windowSize) {
        inWindow = 0;
        ack(expected - 1);
      }
    });
    socket.on('error', (err) => {
      clearTimeout(silence);
      clearTimeout(deadline);
      reject(err);
    });
    socket.bind(0, o.localAddress, () => send(rrq));
  });
}
