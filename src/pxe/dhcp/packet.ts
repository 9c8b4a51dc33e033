// The BOOTP/DHCP message (RFC 2131 §2, RFC 951): the 236-byte fixed header, the magic cookie, and
// the options (options.ts), decoded from a datagram and encoded for a reply. Decoding is bounded:
// a datagram shorter than header + cookie or longer than MAX_DHCP_MESSAGE_BYTES, without the cookie,
// with a hardware address length past the 16-byte field, or with an option area that does not
// walk (options.ts) is a DhcpFormatError, never a partly read message.
// Does NOT: decide whether to answer (pxe-client.ts, answer-plan.ts) or touch a socket.
import { DhcpFormatError, encodeOptions, type OptionAreas, parseOptions } from './options.js';

/** op: a client's request and a server's reply. */
export const BOOT_REQUEST = 1;
export const BOOT_REPLY = 2;
/** htype 1: Ethernet, with 6-byte hardware addresses (RFC 1700). */
export const HTYPE_ETHERNET = 1;

const HEADER_BYTES = 236;
const MAGIC_COOKIE = 0x63825363;
const MIN_MESSAGE_BYTES = HEADER_BYTES + 4;
/**
 * Larger datagrams are not read. A PXE or HTTP Boot client's request fits one Ethernet frame
 * (1472 bytes of UDP payload); 2048 bounds the walk with room for clients that pad generously.
 */
export const MAX_DHCP_MESSAGE_BYTES = 2048;
/**
 * Replies are padded to 300 bytes: the BOOTP minimum (RFC 951) that some relay agents and old
 * PXE ROMs still drop below (RFC 1542 §2.1).
 */
const MIN_REPLY_BYTES = 300;
/** The broadcast bit of `flags` (RFC 2131 §2). */
export const FLAG_BROADCAST = 0x8000;

const SNAME_AT = 44;
const SNAME_BYTES = 64;
const FILE_AT = 108;
const FILE_BYTES = 128;

export interface DhcpMessage {
  op: number;
  htype: number;
  hlen: number;
  hops: number;
  xid: number;
  secs: number;
  flags: number;
  ciaddr: string;
  yiaddr: string;
  siaddr: string;
  giaddr: string;
  /** The client hardware address field, all 16 bytes (only the first `hlen` mean anything). */
  chaddr: Buffer;
  /** `sname` and `file` as sent (NUL-padded text, or options when overloaded). */
  sname: Buffer;
  file: Buffer;
  options: Map<number, Buffer>;
  overload: 0 | 1 | 2 | 3;
}

function ipv4At(b: Buffer, at: number): string {
  return `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
}

function writeIpv4(b: Buffer, at: number, address: string): void {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    throw new RangeError(`not an IPv4 address: ${JSON.stringify(address)}`);
  parts.forEach((p, i) => (b[at + i] = p));
}

/** The text of a NUL-terminated header field (`sname`, `file`) that is not overloaded. */
export function headerText(field: Buffer): string {
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString('latin1');
}

export function decodeDhcp(datagram: Buffer): DhcpMessage {
  if (datagram.length < MIN_MESSAGE_BYTES)
    throw new DhcpFormatError(
      'short',
      `${datagram.length} bytes, shorter than a header and cookie (${MIN_MESSAGE_BYTES})`,
    );
  if (datagram.length > MAX_DHCP_MESSAGE_BYTES)
    throw new DhcpFormatError('long', `${datagram.length} bytes, more than ${MAX_DHCP_MESSAGE_BYTES}`);
  if (datagram.readUInt32BE(HEADER_BYTES) !== MAGIC_COOKIE)
    throw new DhcpFormatError('no_cookie', 'no DHCP magic cookie (a BOOTP message without options)');
  const hlen = datagram[2]!;
  if (hlen > 16) throw new DhcpFormatError('hlen', `hardware address length ${hlen} exceeds the 16-byte chaddr field`);
  const areas: OptionAreas = {
    options: datagram.subarray(MIN_MESSAGE_BYTES),
    file: datagram.subarray(FILE_AT, FILE_AT + FILE_BYTES),
    sname: datagram.subarray(SNAME_AT, SNAME_AT + SNAME_BYTES),
  };
  const { options, overload } = parseOptions(areas);
  return {
    op: datagram[0]!,
    htype: datagram[1]!,
    hlen,
    hops: datagram[3]!,
    xid: datagram.readUInt32BE(4),
    secs: datagram.readUInt16BE(8),
    flags: datagram.readUInt16BE(10),
    ciaddr: ipv4At(datagram, 12),
    yiaddr: ipv4At(datagram, 16),
    siaddr: ipv4At(datagram, 20),
    giaddr: ipv4At(datagram, 24),
    chaddr: Buffer.from(datagram.subarray(28, 44)),
    sname: Buffer.from(areas.sname),
    file: Buffer.from(areas.file),
    options,
    overload,
  };
}

/** A reply's fields; options in the order they are written. */
export interface DhcpReplyFields {
  xid: number;
  flags: number;
  htype: number;
  hlen: number;
  chaddr: Buffer;
  ciaddr: string;
  yiaddr: string;
  siaddr: string;
  giaddr: string;
  /** At most 63 bytes of text; the rest of the field is zero. */
  sname: string;
  /** At most 127 bytes of text. */
  file: string;
  options: ReadonlyArray<readonly [number, Buffer]>;
}

export function encodeDhcp(reply: DhcpReplyFields): Buffer {
  const options = encodeOptions(reply.options);
  const out = Buffer.alloc(Math.max(MIN_MESSAGE_BYTES + options.length, MIN_REPLY_BYTES));
  out[0] = BOOT_REPLY;
  out[1] = reply.htype;
  out[2] = reply.hlen;
  out[3] = 0;
  out.writeUInt32BE(reply.xid >>> 0, 4);
  out.writeUInt16BE(0, 8);
  out.writeUInt16BE(reply.flags & 0xffff, 10);
  writeIpv4(out, 12, reply.ciaddr);
  writeIpv4(out, 16, reply.yiaddr);
  writeIpv4(out, 20, reply.siaddr);
  writeIpv4(out, 24, reply.giaddr);
  reply.chaddr.copy(out, 28, 0, 16);
  const sname = Buffer.from(reply.sname, 'latin1');
  const file = Buffer.from(reply.file, 'latin1');
  if (sname.length >= SNAME_BYTES) throw new RangeError(`sname of ${sname.length} bytes does not fit 63`);
  if (file.length >= FILE_BYTES) throw new RangeError(`file of ${file.length} bytes does not fit 127`);
  sname.copy(out, SNAME_AT);
  file.copy(out, FILE_AT);
  out.writeUInt32BE(MAGIC_COOKIE, HEADER_BYTES);
  options.copy(out, MIN_MESSAGE_BYTES);
  return out;
}

/** The longest text the `file` field holds (a NUL must follow it). */
export const FILE_FIELD_MAX = FILE_BYTES - 1;
