// Whether an address lies in the subnet of an interface address (for routes whose
// next-hop-interface is left out, as nmstate allows).
//
// Does: compare canonical IPv4/IPv6 text (from src/network/address.ts) as integers under a
// prefix mask. Does not: parse untrusted text (callers pass canonical addresses only).
import type { IpAddress, IpPrefix } from '../address.js';

function toBigInt(a: IpAddress): bigint {
  if (a.family === 4) return a.text.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
  const [head = '', tail] = a.text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((h) => BigInt(parseInt(h, 16))) : []);
  const h = part(head);
  const t = part(tail);
  const groups = tail === undefined ? h : [...h, ...new Array<bigint>(8 - h.length - t.length).fill(0n), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

export function inSubnet(address: IpAddress, subnet: IpPrefix): boolean {
  if (address.family !== subnet.family) return false;
  const bits = BigInt(address.family === 4 ? 32 : 128);
  const host = bits - BigInt(subnet.prefixLength);
  return toBigInt(address) >> host === toBigInt(subnet) >> host;
}
