// What a booting host tells the front door about itself, read from a request and checked: its MAC
// (any of the spellings firmware and loaders use: `52:54:00:12:34:56`, iPXE's `hexhyp`
// `52-54-00-12-34-56`, bare `525400123456`, GRUB's `01-` prefixed ARP-type form), its SMBIOS System
// UUID (both byte orders are tried: iPXE and dmidecode disagree on the first three fields for
// SMBIOS 2.6+), and, for the event only, its serial, iPXE's build architecture and platform.
// Bad input is a FrontDoorInputError (400), never a guess.
// Does NOT: match the host (./host-match.ts) or read the database.
import { BadRequestError } from '../errors.js';
import { findControlCharacter } from '../platform/api/clean-text.js';
import { isUuid } from '../uuid.js';

/** A booting host's input the front door refused: 400 (src/error-status.ts maps the kind). */
export class FrontDoorInputError extends BadRequestError {}

/** Characters kept of a serial number in an event (SMBIOS strings are short; more is noise or an attack). */
export const MAX_SERIAL_CHARS = 64;
/** iPXE's ${buildarch} and ${platform} are short words (x86_64, arm64, i386; efi, pcbios). */
const WORD = /^[a-z0-9_]{1,16}$/;
const HEX12 = /^[0-9a-f]{12}$/;

export interface HostIdentity {
  /** Lower case, colon-separated. */
  mac: string | undefined;
  /** Lower case, as sent. */
  uuid: string | undefined;
  serial: string | undefined;
  buildarch: string | undefined;
  platform: string | undefined;
}

/** A MAC in any of the spellings above, as `52:54:00:12:34:56`; a FrontDoorInputError naming `field` otherwise. */
export function parseMac(text: string, field = 'mac'): string {
  let hex = text.trim().toLowerCase();
  if (hex.length === 20 && /^01[-:]/.test(hex)) hex = hex.slice(3); // GRUB and PXELINUX: ARP type 1 first
  hex = hex.replace(/[-:.]/g, '');
  if (!HEX12.test(hex) || text.length > 20)
    throw new FrontDoorInputError(`${field} must be a MAC address (52:54:00:12:34:56 or 52-54-00-12-34-56)`);
  return hex.match(/../g)!.join(':');
}

/** A System UUID as `8-4-4-4-12` hex, lower case; a FrontDoorInputError naming `field` otherwise. */
export function parseSystemUuid(text: string, field = 'uuid'): string {
  const uuid = text.trim().toLowerCase();
  if (!isUuid(uuid)) throw new FrontDoorInputError(`${field} must be a UUID (8-4-4-4-12 hexadecimal digits)`);
  return uuid;
}

/** The UUID as given and with its first three fields byte-swapped (SMBIOS 2.6+ little-endian vs RFC 4122). */
export function uuidByteOrders(uuid: string | undefined): string[] {
  if (uuid === undefined) return [];
  const swap = (hex: string): string => (hex.match(/../g) ?? []).reverse().join('');
  const [a = '', b = '', c = '', ...rest] = uuid.split('-');
  const swapped = [swap(a), swap(b), swap(c), ...rest].join('-');
  return swapped === uuid ? [uuid] : [uuid, swapped];
}

/** Whether a UUID says nothing: iPXE expands an absent ${uuid} to '', some firmware reports all zeros or all ones. */
function isPlaceholderUuid(uuid: string): boolean {
  return /^[0-]+$/.test(uuid) || /^[f-]+$/.test(uuid);
}

function optional(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new FrontDoorInputError(`${name} must be given once`);
  return v === '' ? undefined : v;
}

/** A host's identity from a request's query (`mac`, `uuid`, `serial`, `buildarch`, `platform`); at least a MAC or a UUID. */
export function identityFromQuery(query: Record<string, unknown>): HostIdentity {
  const macText = optional(query, 'mac');
  const uuidText = optional(query, 'uuid');
  const mac = macText === undefined ? undefined : parseMac(macText);
  let uuid = uuidText === undefined ? undefined : parseSystemUuid(uuidText);
  if (uuid !== undefined && isPlaceholderUuid(uuid)) uuid = undefined;
  if (mac === undefined && uuid === undefined)
    throw new FrontDoorInputError('mac or uuid is required: chain here from /boot.ipxe, which sends both');
  const serialText = optional(query, 'serial');
  let serial: string | undefined;
  if (serialText !== undefined) {
    if (serialText.length > 4 * MAX_SERIAL_CHARS)
      throw new FrontDoorInputError(`serial: at most ${MAX_SERIAL_CHARS} characters`);
    if (findControlCharacter(serialText, 'line') !== undefined)
      throw new FrontDoorInputError('serial: control characters');
    serial = serialText.trim().slice(0, MAX_SERIAL_CHARS) || undefined;
  }
  const word = (name: string): string | undefined => {
    const v = optional(query, name);
    if (v !== undefined && !WORD.test(v))
      throw new FrontDoorInputError(`${name}: a short lower-case word (iPXE's \${${name}})`);
    return v;
  };
  return { mac, uuid, serial, buildarch: word('buildarch'), platform: word('platform') };
}

/** How a host is named in events and messages: its MAC, else its UUID, with the serial when sent. */
export function hostLabel(identity: Pick<HostIdentity, 'mac' | 'uuid' | 'serial'>): string {
  const id = identity.mac ?? `System UUID ${identity.uuid ?? '?'}`;
  return identity.serial ? `${id} (serial ${identity.serial})` : id;
}
