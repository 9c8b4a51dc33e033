// The PXE interface as the wing uses it: its first IPv4 address (the ProxyDHCP's siaddr and server
// identifier, what the per-interface sockets bind to), its subnet (to tell a direct client's
// source address from a foreign one) and its MTU (the largest TFTP block that is not fragmented).
// Read once at start from os.networkInterfaces() and /sys/class/net/<name>/mtu.
// Does NOT: watch the interface (an address changed later needs a restart) or bind anything.
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { PxeStartError } from './pxe-start-error.js';

/** Ethernet's MTU, when /sys does not say (not Linux, or a namespace without sysfs). */
const DEFAULT_MTU = 1500;
/** IPv4 (20), UDP (8) and TFTP DATA (4) headers: a block of MTU − 32 bytes fills one frame. */
const TFTP_FRAME_OVERHEAD = 32;

export interface PxeInterface {
  name: string;
  address: string;
  netmask: string;
  mtu: number;
  /** The largest TFTP block that fits one frame of this interface. */
  maxBlockSize: number;
}

function toInt(address: string): number {
  return address.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;
}

/** Whether `address` lies in the interface's subnet. */
export function inSubnet(address: string, iface: Pick<PxeInterface, 'address' | 'netmask'>): boolean {
  const mask = toInt(iface.netmask);
  return (toInt(address) & mask) === (toInt(iface.address) & mask);
}

function readMtu(name: string): number {
  try {
    const mtu = Number(readFileSync(`/sys/class/net/${name}/mtu`, 'utf8').trim());
    return Number.isInteger(mtu) && mtu >= 576 ? mtu : DEFAULT_MTU;
  } catch {
    return DEFAULT_MTU;
  }
}

export function resolvePxeInterface(name: string): PxeInterface {
  const all = networkInterfaces();
  const entries = all[name];
  if (!entries)
    throw new PxeStartError(
      `PXE_INTERFACE ${name} is not an interface of this host (it has ${Object.keys(all).join(', ') || 'none'})`,
      'PXE_INTERFACE',
    );
  const v4 = entries.find((e) => e.family === 'IPv4');
  if (!v4)
    throw new PxeStartError(
      `PXE_INTERFACE ${name} has no IPv4 address: PXE and the ProxyDHCP answer over IPv4; give it the address the hosts' network reaches this host at`,
      'PXE_INTERFACE',
    );
  const mtu = readMtu(name);
  return { name, address: v4.address, netmask: v4.netmask, mtu, maxBlockSize: mtu - TFTP_FRAME_OVERHEAD };
}
