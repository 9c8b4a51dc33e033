// IP addresses, prefixes, MAC addresses and interface names, parsed strictly (pure functions).
//
// Parses textual IPv4 (dotted quad, no leading zeros) and IPv6 (RFC 4291 text forms, `::`,
// an embedded IPv4 tail; no zone ids) addresses and `address/length` prefixes, and returns
// them in canonical text (RFC 5952 for IPv6), so whatever is written into a configuration
// file is text this module produced, never the caller's. Also checks MAC-48 addresses and
// Linux interface names (the kernel's dev_valid_name rules). Does not resolve names, know
// routing, or validate nmstate documents (src/network/nmstate/ does).

export type IpFamily = 4 | 6;

export interface IpAddress {
  family: IpFamily;
  /** Canonical text: dotted quad, or RFC 5952 lower-case IPv6. */
  text: string;
}

export interface IpPrefix extends IpAddress {
  prefixLength: number;
}

/** IFNAMSIZ (16) less the terminating NUL. */
export const MAX_INTERFACE_NAME_BYTES = 15;

const DECIMAL_OCTET = /^(?:0|[1-9]\d{0,2})$/;
const HEXTET = /^[0-9A-Fa-f]{1,4}$/;

function ipv4Octets(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const octets = parts.map((p) => (DECIMAL_OCTET.test(p) ? Number(p) : NaN));
  return octets.every((o) => o >= 0 && o <= 255) ? octets : undefined;
}

function ipv6Hextets(s: string): number[] | undefined {
  if (s.length > 45) return undefined; // longest text form: 8 hextets with an IPv4 tail
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const items = part.split(':');
    for (const [i, item] of items.entries()) {
      if (i === items.length - 1 && item.includes('.')) {
        const v4 = ipv4Octets(item);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (HEXTET.test(item)) {
        out.push(parseInt(item, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  if (!head) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  if (halves[0]!.includes('.')) return undefined; // an IPv4 tail only at the very end
  const tail = groups(halves[1]!);
  if (!tail || head.length + tail.length > 7) return undefined;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** RFC 5952: lower case, no leading zeros, the longest run (≥ 2) of zero groups as `::`. */
function ipv6Text(h: readonly number[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (h[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && h[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = h.map((x) => x.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** A textual IPv4 or IPv6 address, or undefined. */
export function parseIpAddress(s: unknown): IpAddress | undefined {
  if (typeof s !== 'string') return undefined;
  if (s.includes(':')) {
    const h = ipv6Hextets(s);
    return h ? { family: 6, text: ipv6Text(h) } : undefined;
  }
  const v4 = ipv4Octets(s);
  return v4 ? { family: 4, text: v4.join('.') } : undefined;
}

/** Whether `n` is a prefix length of the family (0–32 or 0–128). */
export function isPrefixLength(family: IpFamily, n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= (family === 4 ? 32 : 128);
}

/** `address/length` (the length in decimal, no leading zeros), or undefined. */
export function parseIpPrefix(s: unknown): IpPrefix | undefined {
  if (typeof s !== 'string') return undefined;
  const slash = s.lastIndexOf('/');
  if (slash < 0) return undefined;
  const addr = parseIpAddress(s.slice(0, slash));
  const len = s.slice(slash + 1);
  if (!addr || !/^(?:0|[1-9]\d{0,2})$/.test(len) || !isPrefixLength(addr.family, Number(len))) return undefined;
  return { ...addr, prefixLength: Number(len) };
}

/** A MAC-48 address with `:` separators, returned in upper case; undefined otherwise. */
export function parseMacAddress(s: unknown): string | undefined {
  if (typeof s !== 'string' || !/^[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}$/.test(s)) return undefined;
  return s.toUpperCase();
}

/**
 * The kernel's dev_valid_name: 1–15 bytes, not `.` or `..`, no `/`, `:` or whitespace. Control
 * characters (which the kernel would take) are refused too: names end up in files.
 */
export function isInterfaceName(s: unknown): s is string {
  if (typeof s !== 'string' || s === '' || s === '.' || s === '..') return false;
  if (Buffer.byteLength(s, 'utf8') > MAX_INTERFACE_NAME_BYTES) return false;
  return !/[/:\s\u0000-\u001f\u007f]/.test(s);
}
