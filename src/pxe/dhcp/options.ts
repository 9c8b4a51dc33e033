// DHCP options (RFC 2132) as they travel in a BOOTP message: the option codes the ProxyDHCP reads
// and writes, the walk over one option area (pad, end, code–length–value), the long-option
// concatenation of RFC 3396 (an option split over several instances is their bytes joined, in
// order), and the option-overload order of RFC 2131 §4.1 (options field, then `file`, then
// `sname`, as option 52 says). Bounds: an area is walked once, front to back; option 52 counts only
// in the options field (one byte, 1–3), so an overloaded `file` or `sname` naming 52 again is
// malformed rather than a loop; a length running past its area is malformed.
// Does NOT: read the fixed header (packet.ts) or judge what a client asked for (pxe-client.ts).
import { FormatError } from '../../errors.js';

/** The option codes bootsmith's ProxyDHCP reads or writes, by their RFC names. */
export const OPTION = {
  pad: 0,
  hostName: 1,
  requestedAddress: 50,
  overload: 52,
  messageType: 53,
  serverIdentifier: 54,
  parameterRequestList: 55,
  maxMessageSize: 57,
  vendorClass: 60,
  clientIdentifier: 61,
  tftpServerName: 66,
  bootfileName: 67,
  userClass: 77,
  clientArchitecture: 93,
  clientNetworkInterface: 94,
  clientMachineId: 97,
  vendorSpecific: 43,
  ipxeEncapsulated: 175,
  end: 255,
} as const;

/** DHCP message types (option 53, RFC 2132 §9.6). */
export const MESSAGE_TYPE = {
  discover: 1,
  offer: 2,
  request: 3,
  decline: 4,
  ack: 5,
  nak: 6,
  release: 7,
  inform: 8,
} as const;

/** Option 52's values: which header fields carry more options. */
const OVERLOAD_FILE = 1;
const OVERLOAD_SNAME = 2;

/** What is wrong with a dropped DHCP message, as a metric label (a short, closed set). */
export type DhcpMalformedKind = 'short' | 'long' | 'no_cookie' | 'hlen' | 'option_length' | 'overload' | 'option_value';

export class DhcpFormatError extends FormatError {
  /** The label of bootsmith_pxe_malformed_total. */
  readonly malformed: DhcpMalformedKind;
  /** A sentence for the log line (which option, how many bytes). */
  readonly reason: string;
  constructor(kind: DhcpMalformedKind, reason: string) {
    super(`malformed DHCP message: ${reason}`, { reason });
    this.malformed = kind;
    this.reason = reason;
  }
}

/**
 * Appends the options of one area to `into` (RFC 3396: a repeated code's values concatenate later).
 * `area` names the field in errors; option 52 is refused outside the options field.
 */
function walkArea(bytes: Buffer, area: string, into: Map<number, Buffer[]>, allowOverload: boolean): void {
  let at = 0;
  while (at < bytes.length) {
    const code = bytes[at]!;
    if (code === OPTION.pad) {
      at++;
      continue;
    }
    if (code === OPTION.end) return;
    if (at + 1 >= bytes.length)
      throw new DhcpFormatError('option_length', `option ${code} in ${area} has no length byte`);
    const length = bytes[at + 1]!;
    const start = at + 2;
    if (start + length > bytes.length)
      throw new DhcpFormatError(
        'option_length',
        `option ${code} in ${area} runs ${start + length - bytes.length} bytes past its end`,
      );
    if (code === OPTION.overload && !allowOverload)
      throw new DhcpFormatError('overload', `option 52 (overload) inside the overloaded ${area} field`);
    const parts = into.get(code);
    const value = bytes.subarray(start, start + length);
    if (parts) parts.push(value);
    else into.set(code, [value]);
    at = start + length;
  }
  // No end option before the area's last byte: RFC 2131 asks for one, but firmware that fills an
  // area exactly to its end exists; what was read is whole, so it stands.
}

export interface OptionAreas {
  options: Buffer;
  file: Buffer;
  sname: Buffer;
}

export interface ParsedOptions {
  options: Map<number, Buffer>;
  /** Option 52: 0 when absent; 1 file, 2 sname, 3 both carry options (their text is then not a name). */
  overload: 0 | 1 | 2 | 3;
}

/** All options of a message, overloaded fields included, each code's instances concatenated. */
export function parseOptions(areas: OptionAreas): ParsedOptions {
  const parts = new Map<number, Buffer[]>();
  walkArea(areas.options, 'options', parts, true);
  const overloadParts = parts.get(OPTION.overload);
  let overload: ParsedOptions['overload'] = 0;
  if (overloadParts) {
    const value = Buffer.concat(overloadParts);
    if (value.length !== 1 || value[0]! < 1 || value[0]! > 3)
      throw new DhcpFormatError(
        'overload',
        `option 52 (overload) must be one byte 1–3, not ${value.toString('hex') || 'empty'}`,
      );
    overload = value[0] as 1 | 2 | 3;
    if (overload & OVERLOAD_FILE) walkArea(areas.file, 'file', parts, false);
    if (overload & OVERLOAD_SNAME) walkArea(areas.sname, 'sname', parts, false);
  }
  const options = new Map<number, Buffer>();
  for (const [code, values] of parts) options.set(code, values.length === 1 ? values[0]! : Buffer.concat(values));
  return { options, overload };
}

/**
 * The bytes of options in wire order, each value split into 255-byte instances (RFC 3396), and
 * the end option. Values come in as given: the caller keeps them within what the reply can hold.
 */
export function encodeOptions(options: ReadonlyArray<readonly [number, Buffer]>): Buffer {
  const chunks: Buffer[] = [];
  for (const [code, value] of options) {
    if (code <= OPTION.pad || code >= OPTION.end) throw new RangeError(`option code ${code} cannot carry a value`);
    let at = 0;
    do {
      const piece = value.subarray(at, at + 255);
      chunks.push(Buffer.from([code, piece.length]), piece);
      at += 255;
    } while (at < value.length);
  }
  chunks.push(Buffer.from([OPTION.end]));
  return Buffer.concat(chunks);
}
