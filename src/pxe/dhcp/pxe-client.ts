// Who sent a DHCP message, as the ProxyDHCP needs to know it: a PXE client (vendor class
// `PXEClient`, PXE 2.1 §2.2), a UEFI HTTP Boot client (`HTTPClient`, UEFI 2.5 §24.7) or iPXE's own
// DHCP (user class `iPXE`, option 77, or iPXE's encapsulated options, 175), with its MAC, its
// architectures (option 93, RFC 4578 §2.1: a list of 16-bit codes; the text of option 60's
// `:Arch:NNNNN` when a ROM omits 93), its machine identifier (option 97, RFC 4578 §2.3: type 0
// and a 16-byte GUID) and where it was relayed from (giaddr). Everything else is "not ours" and
// is ignored, not counted as bad; option values that break their RFC shape are malformed.
// Does NOT: decide the answer (answer-plan.ts) or look anything up. The PxeClient it makes is the
// front door's vocabulary (front-door-port.ts).
import type { PxeClient, VendorClass } from '../front-door-port.js';
import { firstKnownArch } from './arch-table.js';
import { DhcpFormatError, OPTION } from './options.js';
import { BOOT_REQUEST, type DhcpMessage, HTYPE_ETHERNET } from './packet.js';

export type Classified = { kind: 'client'; client: PxeClient } | { kind: 'ignore'; reason: string };

const ZERO_ADDRESS = '0.0.0.0';
/** Option 97's fixed size: the type byte and a 16-byte GUID (RFC 4578 §2.3). */
const MACHINE_ID_BYTES = 17;

function formatMac(chaddr: Buffer): string {
  return [...chaddr.subarray(0, 6)].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/** A 16-byte EFI GUID (first three fields little-endian) as the usual 8-4-4-4-12 text. */
export function guidText(g: Buffer): string {
  const hex = (b: Buffer) => b.toString('hex');
  const le = (b: Buffer) => hex(Buffer.from(b).reverse());
  return `${le(g.subarray(0, 4))}-${le(g.subarray(4, 6))}-${le(g.subarray(6, 8))}-${hex(g.subarray(8, 10))}-${hex(g.subarray(10, 16))}`;
}

function vendorClassOf(value: Buffer | undefined): VendorClass | undefined {
  if (!value) return undefined;
  const text = value.toString('latin1');
  if (text.startsWith('PXEClient')) return 'PXEClient';
  if (text.startsWith('HTTPClient')) return 'HTTPClient';
  return undefined;
}

/** Option 93's codes, or the `:Arch:NNNNN` of option 60 when 93 is absent (PXE 2.1 ROMs send both). */
function archCodesOf(message: DhcpMessage, vendorText: string): number[] {
  const option = message.options.get(OPTION.clientArchitecture);
  if (option) {
    if (option.length === 0 || option.length % 2 !== 0)
      throw new DhcpFormatError(
        'option_value',
        `option 93 (client architecture) of ${option.length} bytes is not a list of 16-bit codes`,
      );
    const codes: number[] = [];
    for (let at = 0; at < option.length; at += 2) codes.push(option.readUInt16BE(at));
    return codes;
  }
  const fromVendor = /:Arch:(\d{5})/.exec(vendorText);
  return fromVendor ? [Number(fromVendor[1])] : [];
}

/**
 * iPXE's own DHCP: user class `iPXE` (iPXE sends the bare text; RFC 3004's length-prefixed list
 * is also read), or iPXE's encapsulated options (175), as dnsmasq's `dhcp-match=…,175` tells it apart.
 */
function isIpxe(message: DhcpMessage): boolean {
  if (message.options.has(OPTION.ipxeEncapsulated)) return true;
  const userClass = message.options.get(OPTION.userClass);
  if (!userClass) return false;
  if (userClass.toString('latin1') === 'iPXE') return true;
  for (let at = 0; at < userClass.length;) {
    const length = userClass[at]!;
    if (length === 0 || at + 1 + length > userClass.length) return false;
    if (userClass.subarray(at + 1, at + 1 + length).toString('latin1') === 'iPXE') return true;
    at += 1 + length;
  }
  return false;
}

function machineIdOf(message: DhcpMessage): { machineId: Buffer | undefined; uuid: string | undefined } {
  const id = message.options.get(OPTION.clientMachineId);
  if (!id || id.length === 0) return { machineId: undefined, uuid: undefined };
  if (id.length !== MACHINE_ID_BYTES)
    throw new DhcpFormatError(
      'option_value',
      `option 97 (machine identifier) of ${id.length} bytes, not ${MACHINE_ID_BYTES}`,
    );
  if (id[0] !== 0)
    throw new DhcpFormatError('option_value', `option 97 (machine identifier) of type ${id[0]}, not 0 (a GUID)`);
  const guid = id.subarray(1);
  return { machineId: Buffer.from(id), uuid: guid.every((b) => b === 0) ? undefined : guidText(guid) };
}

/** Classifies a decoded request; throws DhcpFormatError for option values that break their shape. */
export function classifyClient(message: DhcpMessage): Classified {
  if (message.op !== BOOT_REQUEST) return { kind: 'ignore', reason: `op ${message.op} is not a BOOTREQUEST` };
  const messageType = message.options.get(OPTION.messageType);
  if (!messageType) return { kind: 'ignore', reason: 'a BOOTP request (no DHCP message type)' };
  if (messageType.length !== 1)
    throw new DhcpFormatError('option_value', `option 53 of ${messageType.length} bytes, not 1`);
  const vendorValue = message.options.get(OPTION.vendorClass);
  const vendorClass = vendorClassOf(vendorValue);
  if (!vendorClass) return { kind: 'ignore', reason: 'not a PXE or HTTP Boot client (vendor class)' };
  if (message.htype !== HTYPE_ETHERNET || message.hlen !== 6)
    return { kind: 'ignore', reason: `hardware type ${message.htype}/${message.hlen} is not Ethernet` };
  const { machineId, uuid } = machineIdOf(message);
  const archCodes = archCodesOf(message, vendorValue!.toString('latin1'));
  const arch = firstKnownArch(archCodes);
  return {
    kind: 'client',
    client: {
      mac: formatMac(message.chaddr),
      vendorClass,
      archCodes,
      cpu: arch?.cpu,
      platform: arch?.platform,
      ipxe: isIpxe(message),
      machineId,
      uuid,
      relay: message.giaddr === ZERO_ADDRESS ? undefined : message.giaddr,
      clientAddress: message.ciaddr === ZERO_ADDRESS ? undefined : message.ciaddr,
      messageType: messageType[0]!,
    },
  };
}
