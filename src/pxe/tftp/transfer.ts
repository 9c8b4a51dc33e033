// One TFTP read transfer (RFC 1350 §2, with RFC 2347's OACK and RFC 7440's window): the file is a
// Buffer already in memory; blocks are slices of it. The server sends the OACK (when options were
// acknowledged) and waits for ACK 0, then sends a window of blocks and waits for the ACK of the
// window's last block; an ACK inside the window restarts from the block after it (RFC 7440 §4);
// a duplicate or stale ACK is ignored, never answered with a resend (RFC 1123 §4.2.3.1, the
// Sorcerer's Apprentice). With no ACK for one retransmission interval the OACK or the window is
// sent again, at most MAX_RETRANSMITS times in a row, then the transfer ends. A deadline bounds
// the whole transfer whatever the client does. Block numbers wrap from 65535 to 0 (files past
// 32 MiB at 512-byte blocks), as tftp-hpa and dnsmasq do.
// Does NOT: own a socket (the server gives it `send`) or decide who may transfer (tftp-server.ts).
import { encodeData, encodeError, encodeOack, TFTP_ERROR, type TftpPacket } from './packet.js';
import type { Negotiated } from './options.js';

/** RFC 1350 leaves the interval to the implementation; 1 s is what tftp-hpa and dnsmasq start from. */
export const DEFAULT_RETRANSMIT_MS = 1_000;
/** Consecutive unanswered sends before a transfer is given up (dnsmasq: 5, tftp-hpa: 6 over 63 s). */
export const MAX_RETRANSMITS = 5;

export type TransferEnd =
  /** The client acknowledged the last block. */
  | 'complete'
  /** The client sent an ERROR (EDK2 does after reading tsize). */
  | 'client_error'
  /** MAX_RETRANSMITS sends in a row went unanswered. */
  | 'timeout'
  /** The transfer's deadline passed. */
  | 'deadline'
  /** The server closed it (stopping). */
  | 'closed';

export interface TransferHooks {
  send(packet: Buffer): void;
  /** Called once per OACK or DATA sent: the DATA's payload size (0 for an OACK) and whether it is a resend. */
  onSent?(payloadBytes: number, resend: boolean): void;
  onEnd(end: TransferEnd, detail: { blocksAcked: number; resends: number }): void;
}

export interface TransferPlan {
  bytes: Buffer;
  negotiated: Negotiated;
  retransmitMs: number;
  deadlineMs: number;
}

export class Transfer {
  readonly blockSize: number;
  readonly windowSize: number;
  /** Blocks in the file, the last one shorter than blockSize (empty when the size is a multiple). */
  readonly lastBlock: number;
  private acked = 0;
  private sentUpTo = 0;
  private oackPending: boolean;
  private unanswered = 0;
  private resends = 0;
  private retransmitTimer: NodeJS.Timeout | undefined;
  private readonly deadline: NodeJS.Timeout;
  private ended = false;

  constructor(
    private readonly plan: TransferPlan,
    private readonly hooks: TransferHooks,
  ) {
    this.blockSize = plan.negotiated.blockSize;
    this.windowSize = plan.negotiated.windowSize;
    this.lastBlock = Math.floor(plan.bytes.length / this.blockSize) + 1;
    this.oackPending = plan.negotiated.oack !== undefined;
    this.deadline = setTimeout(() => {
      this.hooks.send(encodeError(TFTP_ERROR.notDefined, 'transfer deadline passed'));
      this.end('deadline');
    }, plan.deadlineMs);
    this.deadline.unref();
  }

  start(): void {
    this.transmit(false);
  }

  /** A packet from the client's transfer id (address and port). */
  onPacket(packet: TftpPacket): void {
    if (this.ended) return;
    if (packet.kind === 'error') return this.end('client_error');
    if (packet.kind !== 'ack') return; // a DATA or a request on a read transfer: nothing to do with it
    if (this.oackPending) {
      if (packet.block !== 0) return;
      this.oackPending = false;
      this.unanswered = 0;
      return this.transmit(false);
    }
    const delta = (packet.block - (this.acked & 0xffff) + 0x10000) & 0xffff;
    if (delta === 0 || delta > this.sentUpTo - this.acked) return; // duplicate, stale or not yet sent
    this.acked += delta;
    this.unanswered = 0;
    if (this.acked >= this.lastBlock) return this.end('complete');
    this.transmit(false);
  }

  close(): void {
    this.end('closed');
  }

  private transmit(resend: boolean): void {
    if (this.oackPending) {
      this.hooks.send(encodeOack(this.plan.negotiated.oack!));
      this.hooks.onSent?.(0, resend);
    } else {
      const last = Math.min(this.acked + this.windowSize, this.lastBlock);
      for (let block = this.acked + 1; block <= last; block++) {
        const start = (block - 1) * this.blockSize;
        const payload = this.plan.bytes.subarray(start, Math.min(start + this.blockSize, this.plan.bytes.length));
        this.hooks.send(encodeData(block, payload));
        this.hooks.onSent?.(payload.length, resend || block <= this.sentUpTo);
      }
      this.sentUpTo = Math.max(this.sentUpTo, last);
    }
    this.armRetransmit();
  }

  private armRetransmit(): void {
    clearTimeout(this.retransmitTimer);
    this.retransmitTimer = setTimeout(() => {
      if (this.ended) return;
      if (++this.unanswered > MAX_RETRANSMITS) return this.end('timeout');
      this.resends++;
      this.transmit(true);
    }, this.plan.retransmitMs);
    this.retransmitTimer.unref();
  }

  private end(end: TransferEnd): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.retransmitTimer);
    clearTimeout(this.deadline);
    this.hooks.onEnd(end, { blocksAcked: this.acked, resends: this.resends });
  }
}
