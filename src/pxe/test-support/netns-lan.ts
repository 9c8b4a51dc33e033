// A throwaway Ethernet segment made of network namespaces, for the PXE wing's real-socket tests
// and bench: a namespace holding a bridge (the "switch"), and one namespace per node (the PXE
// server, the site's DHCP server, clients), each joined to the bridge by a veth pair whose node
// end is `eth0` inside the node. Nothing touches the host's own namespace, interfaces or routes, so
// the subnet is fixed (10.77.0.0/24) and only the namespace names (`bs-pxe-<pid>-<node>`) must be
// unique; a tap for qemu can be added to the bridge. close() kills what was started in the
// namespaces and deletes them.
// Does: `ip` calls (bounded), spawn in a namespace. Does NOT: start any server itself.
import { type ChildProcess, spawn, type SpawnOptions, spawnSync } from 'node:child_process';
import { toolWorks } from '../../../test/support/requirements.js';

const IP_TIMEOUT_MS = 15_000;
export const LAN_PREFIX = '10.77.0';

/** Root, `ip` and namespaces that can be created here. */
export const HAVE_NETNS =
  process.getuid?.() === 0 && toolWorks('ip', ['-V']) && spawnSync('ip', ['netns', 'list']).status === 0;

export interface LanNode {
  name: string;
  ns: string;
  /** The node's first address on the segment. */
  address: string;
  addresses: string[];
}

export class PxeLan {
  readonly nodes = new Map<string, LanNode>();
  private readonly children = new Set<ChildProcess>();
  private readonly tag = `${process.pid}`;
  readonly switchNs: string;

  private constructor() {
    this.switchNs = `bs-pxe-${this.tag}-lan`;
  }

  static create(): PxeLan {
    const lan = new PxeLan();
    try {
      ip(['netns', 'add', lan.switchNs]);
      ip(['link', 'set', 'lo', 'up'], lan.switchNs);
      ip(['link', 'add', 'br0', 'type', 'bridge'], lan.switchNs);
      // No STP and no forwarding delay: a port forwards at once, as an access switch with portfast.
      ip(['link', 'set', 'br0', 'type', 'bridge', 'stp_state', '0', 'forward_delay', '0'], lan.switchNs);
      ip(['link', 'set', 'br0', 'up'], lan.switchNs);
    } catch (err) {
      lan.close();
      throw err;
    }
    return lan;
  }

  /**
   * A namespace joined to the segment, with these host numbers (10.77.0.N/24) on its eth0 (none: no
   * address). `defaultRoute` gives it a route for the limited broadcast a client sends (255.255.255.255).
   */
  addNode(name: string, hosts: number[], options: { defaultRoute?: boolean } = {}): LanNode {
    const ns = `bs-pxe-${this.tag}-${name}`;
    const port = `p-${name}`.slice(0, 15);
    ip(['netns', 'add', ns]);
    ip(['link', 'add', 'eth0', 'netns', ns, 'type', 'veth', 'peer', 'name', port, 'netns', this.switchNs]);
    ip(['link', 'set', port, 'master', 'br0'], this.switchNs);
    ip(['link', 'set', port, 'up'], this.switchNs);
    ip(['link', 'set', 'lo', 'up'], ns);
    const addresses = hosts.map((h) => `${LAN_PREFIX}.${h}`);
    for (const a of addresses) ip(['addr', 'add', `${a}/24`, 'dev', 'eth0'], ns);
    ip(['link', 'set', 'eth0', 'up'], ns);
    if (options.defaultRoute) ip(['route', 'add', 'default', 'dev', 'eth0'], ns);
    const node = { name, ns, address: addresses[0] ?? '', addresses };
    this.nodes.set(name, node);
    return node;
  }

  /**
   * A point-to-point link outside the segment: `ifName` in node `a` (10.78.0.1/24) to `eth0` of a
   * new node `b` (10.78.0.2/24, or no address, as firmware before its lease), e.g. a second
   * interface of the PXE server facing another network.
   */
  addPointToPoint(a: string, ifName: string, b: string, options: { bAddress?: boolean } = {}): LanNode {
    const from = this.node(a);
    const ns = `bs-pxe-${this.tag}-${b}`;
    ip(['netns', 'add', ns]);
    ip(['link', 'add', ifName, 'netns', from.ns, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
    ip(['addr', 'add', '10.78.0.1/24', 'dev', ifName], from.ns);
    ip(['link', 'set', ifName, 'up'], from.ns);
    ip(['link', 'set', 'lo', 'up'], ns);
    const addresses = options.bAddress === false ? [] : ['10.78.0.2'];
    for (const address of addresses) ip(['addr', 'add', `${address}/24`, 'dev', 'eth0'], ns);
    ip(['link', 'set', 'eth0', 'up'], ns);
    ip(['route', 'add', 'default', 'dev', 'eth0'], ns);
    const node = { name: b, ns, address: addresses[0] ?? '0.0.0.0', addresses };
    this.nodes.set(b, node);
    return node;
  }

  /** A tap on the bridge, for a qemu NIC (qemu then runs in `switchNs`). */
  addTap(name: string): void {
    ip(['tuntap', 'add', name, 'mode', 'tap'], this.switchNs);
    ip(['link', 'set', name, 'master', 'br0'], this.switchNs);
    ip(['link', 'set', name, 'up'], this.switchNs);
  }

  node(name: string): LanNode {
    const n = this.nodes.get(name);
    if (!n) throw new Error(`no node ${name} on the PXE test LAN`);
    return n;
  }

  /** Runs a command inside a namespace and waits (bounded). */
  run(ns: string, command: string, args: string[], timeoutMs = 30_000) {
    return spawnSync('ip', ['netns', 'exec', ns, command, ...args], { encoding: 'utf8', timeout: timeoutMs });
  }

  /** Starts a command inside a namespace; close() kills it. */
  spawn(ns: string, command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
    const child = spawn('ip', ['netns', 'exec', ns, command, ...args], { stdio: ['pipe', 'pipe', 'pipe'], ...options });
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    return child;
  }

  close(): void {
    for (const child of this.children) child.kill('SIGKILL');
    for (const node of this.nodes.values()) spawnSync('ip', ['netns', 'del', node.ns], { timeout: IP_TIMEOUT_MS });
    spawnSync('ip', ['netns', 'del', this.switchNs], { timeout: IP_TIMEOUT_MS });
  }
}

function ip(args: string[], ns?: string): void {
  const argv = ns ? ['-n', ns, ...args] : args;
  const r = spawnSync('ip', argv, { encoding: 'utf8', timeout: IP_TIMEOUT_MS });
  if (r.status !== 0) throw new Error(`ip ${argv.join(' ')}: ${(r.stderr || r.error?.message || '').trim()}`);
}
