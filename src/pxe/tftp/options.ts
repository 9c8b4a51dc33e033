// TFTP option negotiation for a read request, pure: which of the client's options the server
// acknowledges (OACK, RFC 2347) and with what value. blksize (RFC 2348: 8–65464; the server's
// ceiling is the interface MTU less IP, UDP and TFTP headers, so no block is fragmented), tsize
// (RFC 2349: the server answers the file's size), timeout (RFC 2349: 1–255 s, the retransmission
// interval, echoed as asked), windowsize (RFC 7440: 1–65535, capped at the server's ceiling).
// An option the server does not know, or whose value is not a number, is not acknowledged (RFC
// 2347 §3); a blksize below 8 or a windowsize of 0 is refused with error 8.
// Does NOT: send anything. Next: transfer.ts runs a transfer with the result.
export const DEFAULT_BLOCK_SIZE = 512;
/** RFC 2348's range. */
export const MIN_BLOCK_SIZE = 8;
export const MAX_BLOCK_SIZE = 65_464;
/** RFC 2349's range, in seconds. */
const MIN_TIMEOUT_S = 1;
const MAX_TIMEOUT_S = 255;
/**
 * Blocks in flight before an ACK. RFC 7440 measured its gains up to 16–32; beyond, a loss costs a
 * whole window again. 64 bounds what one client can make the server send unasked.
 */
export const MAX_WINDOW_SIZE = 64;

export interface NegotiationLimits {
  /** The largest block that fits the interface's MTU unfragmented. */
  maxBlockSize: number;
  maxWindowSize: number;
}

export interface Negotiated {
  blockSize: number;
  windowSize: number;
  /** The client's timeout option in milliseconds, when it sent a valid one. */
  timeoutMs: number | undefined;
  /** The OACK's options in the order the client sent them; undefined when none is acknowledged (DATA 1 starts at once). */
  oack: Map<string, string> | undefined;
}

export type Negotiation = { ok: true; negotiated: Negotiated } | { ok: false; refusal: string };

const integer = (text: string): number | undefined => (/^\d{1,10}$/.test(text) ? Number(text) : undefined);

export function negotiate(
  requested: ReadonlyMap<string, string>,
  fileSize: number,
  limits: NegotiationLimits,
): Negotiation {
  const oack = new Map<string, string>();
  let blockSize = DEFAULT_BLOCK_SIZE;
  let windowSize = 1;
  let timeoutMs: number | undefined;
  for (const [name, raw] of requested) {
    const value = integer(raw);
    switch (name) {
      case 'blksize':
        if (value === undefined) break;
        if (value < MIN_BLOCK_SIZE) return { ok: false, refusal: `blksize ${value} is below ${MIN_BLOCK_SIZE}` };
        blockSize = Math.min(value, MAX_BLOCK_SIZE, limits.maxBlockSize);
        oack.set(name, String(blockSize));
        break;
      case 'tsize':
        if (value === undefined) break;
        oack.set(name, String(fileSize));
        break;
      case 'timeout':
        if (value === undefined || value < MIN_TIMEOUT_S || value > MAX_TIMEOUT_S) break;
        timeoutMs = value * 1000;
        oack.set(name, String(value));
        break;
      case 'windowsize':
        if (value === undefined) break;
        if (value < 1) return { ok: false, refusal: 'windowsize 0' };
        windowSize = Math.min(value, limits.maxWindowSize);
        oack.set(name, String(windowSize));
        break;
      default:
        break;
    }
  }
  return { ok: true, negotiated: { blockSize, windowSize, timeoutMs, oack: oack.size > 0 ? oack : undefined } };
}
