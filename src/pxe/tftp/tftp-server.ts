// The TFTP server on the PXE interface, read only: port 69 takes read requests; each admitted one
// gets a transfer (transfer.ts) on a socket of its own (its transfer id, RFC 1350 §4) bound to the
// interface's address. What a name is comes from path-policy.ts: a loader (in memory since start),
// GRUB's stub, or a host's grub.cfg from the front door's port (bounded in time and in calls at
// once). Bounds: PXE_TFTP_MAX_TRANSFERS at once (lookups included), a per-address share, a
// deadline per transfer; a retransmitted RRQ (same client address and port) while its transfer
// runs is ignored. Refusals are TFTP ERROR packets from port 69 (not found 1, access violation 2
// for writes and paths outside the loaders, illegal operation 4 for modes, option refused 8,
// "busy" 0); malformed datagrams and stray ACK/DATA/ERROR on port 69 are dropped and counted.
// Does NOT: read files (loaders/loader-set.ts did, at start) or know who a host is (the port does).
import type dgram from 'node:dgram';
import { describeError } from '../../errors.js';
import { bindUdp } from '../bind-udp.js';
import { boundedCall, MAX_PORT_CALLS_IN_FLIGHT, PORT_CALL_TIMEOUT_MS } from '../bounded-call.js';
import type { PxeFrontDoorPort } from '../front-door-port.js';
import type { LoaderFile } from '../loaders/loader-set.js';
import type { PxeMetrics } from '../pxe-metrics.js';
import { type PxeLog, RateLimitedLog } from '../rate-limited-log.js';
import { MAX_WINDOW_SIZE, negotiate } from './options.js';
import { decodeTftp, encodeError, OPCODE, TFTP_ERROR, TftpFormatError, type TftpRequest } from './packet.js';
import { GRUB_STUB_CONFIG, resolveTftpName } from './path-policy.js';
import { DEFAULT_RETRANSMIT_MS, Transfer, type TransferEnd } from './transfer.js';

/** A grub.cfg is a few hundred bytes; a port answering more is refused rather than sent. */
export const MAX_GRUB_CONFIG_BYTES = 64 * 1024;

export interface TftpLimits {
  maxTransfers: number;
  maxPerAddress: number;
  deadlineMs: number;
  /** The interface's MTU less headers (interface-address.ts). */
  maxBlockSize: number;
  maxWindowSize?: number;
  retransmitMs?: number;
}

export interface TftpServerOptions {
  address: string;
  port: number;
  loaders: ReadonlyMap<string, LoaderFile>;
  frontDoor: PxeFrontDoorPort;
  limits: TftpLimits;
  metrics: PxeMetrics;
  log: PxeLog;
}

export interface TftpCounts {
  active: number;
  complete: number;
  failed: number;
  refused: number;
}

interface Active {
  transfer: Transfer | undefined;
  socket: dgram.Socket | undefined;
}

/** netascii (RFC 764): CR LF for a line end, CR NUL for a bare CR. Made once per file, on first use. */
function toNetascii(bytes: Buffer): Buffer {
  const out: number[] = [];
  for (const b of bytes) {
    if (b === 0x0a) out.push(0x0d, 0x0a);
    else if (b === 0x0d) out.push(0x0d, 0x00);
    else out.push(b);
  }
  return Buffer.from(out);
}

export class TftpServer {
  private readonly rateLog: RateLimitedLog;
  private readonly active = new Map<string, Active>();
  private readonly perAddress = new Map<string, number>();
  private readonly netascii = new WeakMap<Buffer, Buffer>();
  private readonly loaderNames: ReadonlySet<string>;
  private portCalls = 0;
  private stopping = false;
  private readonly counts = { complete: 0, failed: 0, refused: 0 };
  readonly boundPort: number;

  private constructor(
    private readonly options: TftpServerOptions,
    private readonly listener: dgram.Socket,
  ) {
    this.rateLog = new RateLimitedLog(options.log);
    this.loaderNames = new Set(options.loaders.keys());
    this.boundPort = listener.address().port;
    listener.on('message', (d, r) => this.onRequestDatagram(d, r));
    listener.on('error', (err) => options.log.warn({ err: describeError(err) }, 'PXE TFTP socket error'));
  }

  static async start(options: TftpServerOptions): Promise<TftpServer> {
    const socket = await bindUdp({ address: options.address, port: options.port, purpose: 'TFTP' });
    return new TftpServer(options, socket);
  }

  stats(): TftpCounts {
    return { active: this.active.size, ...this.counts };
  }

  /** Closes the listener and every running transfer; a second call does nothing. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const a of this.active.values()) a.transfer?.close();
    await new Promise<void>((resolve) => this.listener.close(() => resolve()));
  }

  private outcome(outcome: string): void {
    this.options.metrics.tftpRequests.inc({ outcome });
  }

  /** A datagram dropped unanswered: counted by its reason too. */
  private malformed(err: TftpFormatError): void {
    this.outcome('malformed');
    this.options.metrics.malformed.inc({ protocol: 'tftp', reason: err.malformed });
  }

  private refuse(to: dgram.RemoteInfo, code: number, message: string, outcome: string, log?: string): void {
    this.counts.refused++;
    this.outcome(outcome);
    this.listener.send(encodeError(code, message), to.port, to.address);
    if (log)
      this.rateLog.warn(`${outcome}:${to.address}`, { client: to.address, reason: log }, `PXE TFTP: refused: ${log}`);
  }

  private onRequestDatagram(datagram: Buffer, from: dgram.RemoteInfo): void {
    if (this.stopping) return;
    let packet;
    try {
      packet = decodeTftp(datagram);
    } catch (err) {
      if (!(err instanceof TftpFormatError)) throw err;
      this.malformed(err);
      return;
    }
    if (packet.kind !== 'request') return this.outcome('stray');
    if (packet.opcode === OPCODE.wrq)
      return this.refuse(
        from,
        TFTP_ERROR.accessViolation,
        'read-only server',
        'write',
        `a write request for ${JSON.stringify(packet.fileName.slice(0, 80))}`,
      );
    if (packet.mode !== 'octet' && packet.mode !== 'netascii')
      return this.refuse(
        from,
        TFTP_ERROR.illegalOperation,
        `mode ${JSON.stringify(packet.mode.slice(0, 20))} not supported (octet, netascii)`,
        'bad_mode',
      );
    const key = `${from.address}:${from.port}`;
    if (this.active.has(key)) return this.outcome('duplicate');
    const { maxTransfers, maxPerAddress } = this.options.limits;
    if (this.active.size >= maxTransfers)
      return this.refuse(
        from,
        TFTP_ERROR.notDefined,
        'server busy, retry later',
        'busy',
        `PXE_TFTP_MAX_TRANSFERS (${maxTransfers}) reached`,
      );
    const mine = this.perAddress.get(from.address) ?? 0;
    if (mine >= maxPerAddress)
      return this.refuse(
        from,
        TFTP_ERROR.notDefined,
        'too many transfers from this address',
        'busy',
        `${from.address} has ${mine} transfers running`,
      );
    const slot: Active = { transfer: undefined, socket: undefined };
    this.active.set(key, slot);
    this.perAddress.set(from.address, mine + 1);
    this.options.metrics.tftpInFlight.set(this.active.size);
    void this.admit(packet, from, key, slot).catch((err: unknown) => {
      this.release(key, from.address);
      this.options.log.warn({ client: from.address, err: describeError(err) }, 'PXE TFTP: a transfer could not start');
    });
  }

  private release(key: string, address: string): void {
    if (!this.active.delete(key)) return;
    const left = (this.perAddress.get(address) ?? 1) - 1;
    if (left > 0) this.perAddress.set(address, left);
    else this.perAddress.delete(address);
    this.options.metrics.tftpInFlight.set(this.active.size);
  }

  /** The file's bytes, or undefined after refusing (the slot is released by the caller then). */
  private async content(request: TftpRequest, from: dgram.RemoteInfo): Promise<Buffer | undefined> {
    const name = resolveTftpName(request.fileName, this.loaderNames);
    const shown = JSON.stringify(request.fileName.slice(0, 80));
    switch (name.kind) {
      case 'refused':
        this.refuse(from, TFTP_ERROR.accessViolation, 'access violation', 'refused', `${shown}: ${name.why}`);
        return undefined;
      case 'not-found':
        this.refuse(from, TFTP_ERROR.fileNotFound, 'file not found', 'not_found');
        return undefined;
      case 'loader':
        return this.options.loaders.get(name.name)!.bytes;
      case 'grub-stub':
        return Buffer.from(GRUB_STUB_CONFIG);
      case 'grub-host': {
        if (this.portCalls >= MAX_PORT_CALLS_IN_FLIGHT) {
          this.refuse(from, TFTP_ERROR.notDefined, 'server busy, retry later', 'busy');
          return undefined;
        }
        this.portCalls++;
        let text: string | undefined;
        try {
          const request_ = { mac: name.mac, clientAddress: from.address, fileName: request.fileName };
          text = await boundedCall(
            () => this.options.frontDoor.grubConfig(request_),
            PORT_CALL_TIMEOUT_MS,
            'the front door (grub.cfg)',
          );
        } catch (err) {
          this.refuse(
            from,
            TFTP_ERROR.notDefined,
            'boot configuration unavailable, retry later',
            'lookup_failed',
            `${shown}: ${describeError(err)}`,
          );
          return undefined;
        } finally {
          this.portCalls--;
        }
        const bytes = text === undefined ? undefined : Buffer.from(text, 'utf8');
        if (!bytes || bytes.length > MAX_GRUB_CONFIG_BYTES) {
          this.refuse(
            from,
            TFTP_ERROR.fileNotFound,
            'file not found',
            'not_found',
            bytes ? `${shown}: a grub.cfg of ${bytes.length} bytes` : undefined,
          );
          return undefined;
        }
        return bytes;
      }
    }
  }

  private async admit(request: TftpRequest, from: dgram.RemoteInfo, key: string, slot: Active): Promise<void> {
    const found = await this.content(request, from);
    if (!found || this.stopping) return this.release(key, from.address);
    let bytes = found;
    if (request.mode === 'netascii') {
      bytes = this.netascii.get(found) ?? toNetascii(found);
      this.netascii.set(found, bytes);
    }
    const { limits, metrics } = this.options;
    const negotiation = negotiate(request.options, bytes.length, {
      maxBlockSize: limits.maxBlockSize,
      maxWindowSize: limits.maxWindowSize ?? MAX_WINDOW_SIZE,
    });
    if (!negotiation.ok) {
      this.refuse(from, TFTP_ERROR.optionRefused, negotiation.refusal, 'bad_option');
      return this.release(key, from.address);
    }
    const socket = await bindUdp({ address: this.options.address, port: 0, purpose: 'TFTP transfer' });
    slot.socket = socket;
    const transfer = new Transfer(
      {
        bytes,
        negotiated: negotiation.negotiated,
        retransmitMs: negotiation.negotiated.timeoutMs ?? limits.retransmitMs ?? DEFAULT_RETRANSMIT_MS,
        deadlineMs: limits.deadlineMs,
      },
      {
        send: (packet) => socket.send(packet, from.port, from.address),
        onSent: (payload, resend) => {
          if (resend) metrics.tftpRetransmits.inc();
          metrics.tftpBytes.inc(payload);
        },
        onEnd: (end) => this.ended(end, key, from.address, socket),
      },
    );
    slot.transfer = transfer;
    socket.on('message', (datagram, peer) => {
      if (peer.address !== from.address || peer.port !== from.port) {
        socket.send(encodeError(TFTP_ERROR.unknownTransferId, 'unknown transfer id'), peer.port, peer.address);
        return;
      }
      try {
        transfer.onPacket(decodeTftp(datagram));
      } catch (err) {
        if (!(err instanceof TftpFormatError)) throw err;
        this.malformed(err);
      }
    });
    socket.on('error', () => transfer.close());
    this.outcome('started');
    transfer.start();
  }

  private ended(end: TransferEnd, key: string, address: string, socket: dgram.Socket): void {
    this.options.metrics.tftpTransfers.inc({ end });
    if (end === 'complete') this.counts.complete++;
    else if (end === 'timeout' || end === 'deadline') this.counts.failed++;
    // Let the last packet (an ERROR at the deadline) leave before the socket goes.
    setImmediate(() => socket.close());
    this.release(key, address);
  }
}
