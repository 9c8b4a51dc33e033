// TFTP packets (RFC 1350 §5, option extension RFC 2347): decoding (RRQ, WRQ, ACK, ERROR, DATA and
// OACK, the last two for the test clients; with the options of a request as name → value, names lower-cased) and encoding
// what the server sends (DATA, OACK, ERROR). A request is at most 512 bytes (RFC 2347 §2), its
// strings NUL-terminated, its options whole name/value pairs; anything else is a TftpFormatError.
// Does NOT: judge option values (options.ts), names (path-policy.ts) or run a transfer (transfer.ts).
import { FormatError } from '../../errors.js';

export const OPCODE = { rrq: 1, wrq: 2, data: 3, ack: 4, error: 5, oack: 6 } as const;

/** RFC 1350 §5 and RFC 2347 §2 error codes. */
export const TFTP_ERROR = {
  notDefined: 0,
  fileNotFound: 1,
  accessViolation: 2,
  diskFull: 3,
  illegalOperation: 4,
  unknownTransferId: 5,
  fileExists: 6,
  noSuchUser: 7,
  optionRefused: 8,
} as const;

/** RFC 2347 §2: "the request packet … must not exceed 512 octets". */
export const MAX_REQUEST_BYTES = 512;
/** A datagram larger than the largest DATA a client could send (65464 + 4) is not read. */
const MAX_DATAGRAM_BYTES = 65_468;

/** What is wrong with a dropped TFTP packet, as a metric label (a short, closed set). */
export type TftpMalformedKind =
  'short' | 'long' | 'unterminated' | 'request_shape' | 'ack_length' | 'oack_shape' | 'opcode';

export class TftpFormatError extends FormatError {
  /** The label of bootsmith_pxe_malformed_total. */
  readonly malformed: TftpMalformedKind;
  readonly reason: string;
  constructor(kind: TftpMalformedKind, reason: string) {
    super(`malformed TFTP packet: ${reason}`, { reason });
    this.malformed = kind;
    this.reason = reason;
  }
}

export type TftpRequest = {
  opcode: typeof OPCODE.rrq | typeof OPCODE.wrq;
  fileName: string;
  mode: string;
  /** Option names lower-cased; the first of a repeated name counts. */
  options: Map<string, string>;
};

export type TftpPacket =
  | ({ kind: 'request' } & TftpRequest)
  | { kind: 'ack'; block: number }
  | { kind: 'error'; code: number; message: string }
  | { kind: 'data'; block: number; length: number }
  | { kind: 'oack'; options: Map<string, string> };

/** The NUL-terminated strings of `bytes`; throws when the last one is not terminated. */
function cStrings(bytes: Buffer): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf(0, at);
    if (end < 0) throw new TftpFormatError('unterminated', 'a string without its terminating NUL');
    out.push(bytes.subarray(at, end).toString('latin1'));
    at = end + 1;
  }
  return out;
}

export function decodeTftp(datagram: Buffer): TftpPacket {
  if (datagram.length < 4) throw new TftpFormatError('short', `${datagram.length} bytes, shorter than any TFTP packet`);
  if (datagram.length > MAX_DATAGRAM_BYTES) throw new TftpFormatError('long', `${datagram.length} bytes`);
  const opcode = datagram.readUInt16BE(0);
  switch (opcode) {
    case OPCODE.rrq:
    case OPCODE.wrq: {
      if (datagram.length > MAX_REQUEST_BYTES)
        throw new TftpFormatError('long', `a ${datagram.length}-byte request, more than ${MAX_REQUEST_BYTES}`);
      // Some clients pad a request with NULs after its last string: empty strings at the end are padding.
      const strings = cStrings(datagram.subarray(2));
      while (strings.length > 2 && strings.at(-1) === '' && strings.length % 2 === 1) strings.pop();
      if (strings.length < 2) throw new TftpFormatError('request_shape', 'a request without file name and mode');
      if (strings.length % 2 !== 0)
        throw new TftpFormatError('request_shape', `option ${JSON.stringify(strings.at(-1))} without a value`);
      const options = new Map<string, string>();
      for (let i = 2; i < strings.length; i += 2) {
        const name = strings[i]!.toLowerCase();
        if (!options.has(name)) options.set(name, strings[i + 1]!);
      }
      return { kind: 'request', opcode, fileName: strings[0]!, mode: strings[1]!.toLowerCase(), options };
    }
    case OPCODE.ack:
      if (datagram.length !== 4) throw new TftpFormatError('ack_length', `an ACK of ${datagram.length} bytes`);
      return { kind: 'ack', block: datagram.readUInt16BE(2) };
    case OPCODE.error: {
      const end = datagram.indexOf(0, 4);
      return {
        kind: 'error',
        code: datagram.readUInt16BE(2),
        message: datagram
          .subarray(4, end < 0 ? datagram.length : end)
          .toString('latin1')
          .slice(0, 200),
      };
    }
    case OPCODE.data:
      return { kind: 'data', block: datagram.readUInt16BE(2), length: datagram.length - 4 };
    case OPCODE.oack: {
      const strings = cStrings(datagram.subarray(2));
      if (strings.length % 2 !== 0) throw new TftpFormatError('oack_shape', 'an OACK option without a value');
      const options = new Map<string, string>();
      for (let i = 0; i < strings.length; i += 2) options.set(strings[i]!.toLowerCase(), strings[i + 1]!);
      return { kind: 'oack', options };
    }
    default:
      throw new TftpFormatError('opcode', `opcode ${opcode}`);
  }
}

export function encodeData(block: number, payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(4 + payload.length);
  out.writeUInt16BE(OPCODE.data, 0);
  out.writeUInt16BE(block & 0xffff, 2);
  payload.copy(out, 4);
  return out;
}

export function encodeOack(options: ReadonlyMap<string, string>): Buffer {
  const parts = [Buffer.from([0, OPCODE.oack])];
  for (const [name, value] of options) parts.push(Buffer.from(`${name}\0${value}\0`, 'latin1'));
  return Buffer.concat(parts);
}

export function encodeError(code: number, message: string): Buffer {
  const text = Buffer.from(message.slice(0, 200), 'latin1');
  const out = Buffer.alloc(5 + text.length);
  out.writeUInt16BE(OPCODE.error, 0);
  out.writeUInt16BE(code, 2);
  text.copy(out, 4);
  return out;
}
