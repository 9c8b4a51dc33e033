// Who counts as one client for the per-address share of the artifact slots
// (MAX_CONCURRENT_REQUESTS_PER_ADDRESS, src/http/face/request-cap.ts).
//
// Does: turn a socket's remote address into the key its share is counted under: an IPv4
// address as it is (also when written IPv4-mapped, `::ffff:192.0.2.7`), an IPv6 address as its
// /64 prefix (one host or site is normally given a whole /64, so counting single IPv6 addresses
// would give one machine 2^64 shares), `unknown` when there is none.
// Does NOT: trust headers (X-Forwarded-For can be written by anyone), or know about balancers.
import net from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The share key of `address` (a socket's remoteAddress). */
export function clientAddressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const zoneless = address.replace(/%.*$/, '');
  const mapped = MAPPED_IPV4.exec(zoneless);
  if (mapped) return mapped[1]!;
  if (net.isIPv4(zoneless)) return zoneless;
  if (!net.isIPv6(zoneless)) return zoneless;
  return `${ipv6Groups(zoneless).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase();
  // A trailing dotted quad (::ffff:… is handled above; other forms such as 64:ff9b::1.2.3.4).
  const quad = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}
