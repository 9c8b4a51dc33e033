// A throwaway NetworkManager: the real daemon (Debian's network-manager) in its own network and
// mount namespaces (`unshare --net --mount`), with veth "NICs" carrying chosen MACs, a private
// D-Bus system bus, and a keyfile directory holding only the profiles under test.
//
// Inside the namespace: sysfs is remounted read-only (NetworkManager then runs without udev
// and takes links as initialized), and tmpfs covers /etc/NetworkManager, /run/NetworkManager
// and /var/lib/NetworkManager, so nothing of the machine's own NetworkManager is read or
// touched. Each veth's peer is left unmanaged. DHCP and router-advertisement waits are
// shortened so start-up completes quickly (there is no DHCP server: the fallback profiles
// time out). nmcli talks to the daemon from outside through the private bus.
// Does: start, wait (bounded) for start-up to complete, report devices/connections/addresses,
// stop everything it started. Does not: need or touch the host's networking.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolWorks } from '../../../../test/support/requirements.js';
import type { Keyfile } from '../convert.js';

/** Bound on start-up (NetworkManager completes in a few seconds with the short DHCP/RA waits below). */
const STARTUP_BOUND_MS = 180_000;
const POLL_MS = 250;
/** Bound on one nmcli / ip call. */
const CALL_TIMEOUT_MS = 15_000;

export interface Nic {
  /** Interface name in the namespace (as the host's kernel would name it; profiles do not use it). */
  name: string;
  mac: string;
}

export interface NmSnapshot {
  /** device → { type, state, connection name } (nmcli device). */
  devices: Map<string, { type: string; state: string; connection: string }>;
  /** connection uuid → { name, device } for every profile NetworkManager holds. */
  connections: Map<string, { name: string; device: string }>;
  /** interface → its addresses (`ip -j addr` inside the namespace), `a.b.c.d/len`. */
  addresses: Map<string, string[]>;
  /** `nmcli -t -f <fields> connection show <uuid>` for a profile. */
  show(uuid: string, fields: string): Map<string, string>;
  /**
   * NetworkManager's automatic DHCP profile for a NIC no profile matched ("Wired connection N",
   * bound to the NIC's name, ipv4.method auto), or undefined. Without a DHCP server here its
   * activation times out, so the profile, not the device state, is what shows the fallback.
   */
  dhcpFallback(nic: string): string | undefined;
}

export const HAVE_NM_NAMESPACE =
  process.getuid?.() === 0 &&
  toolWorks('NetworkManager', ['--version']) &&
  toolWorks('nmcli', ['--version']) &&
  toolWorks('dbus-daemon', ['--version']) &&
  toolWorks('unshare', ['--version']) &&
  toolWorks('nsenter', ['--version']) &&
  toolWorks('ip', ['-V']);

const DBUS_CONF = (socket: string) => `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
`;

const NM_CONF = `[main]
plugins=keyfile

[logging]
level=DEBUG

[connection]
ipv4.dhcp-timeout=3
ipv6.ra-timeout=3

[device-peers]
match-device=interface-name:peer*
managed=0
`;

const SCRIPT = (dir: string, nics: readonly Nic[]) => `set -eu
mount -t sysfs -o ro sysfs /sys
for d in /etc/NetworkManager /run/NetworkManager /var/lib/NetworkManager; do
  mkdir -p "$d"
  mount -t tmpfs -o mode=0755 tmpfs "$d"
done
mkdir -p /etc/NetworkManager/system-connections
cp ${dir}/NetworkManager.conf /etc/NetworkManager/NetworkManager.conf
for f in ${dir}/keyfiles/*; do [ -e "$f" ] && install -m 0600 "$f" /etc/NetworkManager/system-connections/; done
ip link set lo up
${nics
  .map(
    (n, i) =>
      `ip link add ${n.name} type veth peer name peer${i}\nip link set ${n.name} address ${n.mac}\nip link set peer${i} up`,
  )
  .join('\n')}
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=${dir}/bus
exec NetworkManager --no-daemon --debug
`;

export class NmNamespace {
  private constructor(
    private readonly dir: string,
    private readonly dbus: ChildProcess,
    private readonly nm: ChildProcess,
  ) {}

  static async start(keyfiles: readonly Keyfile[], nics: readonly Nic[]): Promise<NmNamespace> {
    const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-nm-'));
    mkdirSync(path.join(dir, 'keyfiles'));
    for (const k of keyfiles) writeFileSync(path.join(dir, 'keyfiles', k.name), k.contents, { mode: 0o600 });
    writeFileSync(path.join(dir, 'NetworkManager.conf'), NM_CONF);
    writeFileSync(path.join(dir, 'dbus.conf'), DBUS_CONF(path.join(dir, 'bus')));
    writeFileSync(path.join(dir, 'run.sh'), SCRIPT(dir, nics));
    const dbus = spawn('dbus-daemon', ['--nofork', `--config-file=${path.join(dir, 'dbus.conf')}`], {
      stdio: 'ignore',
    });
    const nm = spawn('unshare', ['--net', '--mount', '--propagation', 'private', 'bash', path.join(dir, 'run.sh')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log: Buffer[] = [];
    nm.stdout?.on('data', (b: Buffer) => log.length < 4096 && log.push(b));
    nm.stderr?.on('data', (b: Buffer) => log.length < 4096 && log.push(b));
    const ns = new NmNamespace(dir, dbus, nm);
    try {
      await ns.waitForStartup(() => Buffer.concat(log).toString('utf8').slice(-4000));
    } catch (err) {
      ns.stop();
      throw err;
    }
    return ns;
  }

  private nmcli(args: string[]): string {
    const r = spawnSync('nmcli', args, {
      encoding: 'utf8',
      timeout: CALL_TIMEOUT_MS,
      env: { ...process.env, DBUS_SYSTEM_BUS_ADDRESS: `unix:path=${path.join(this.dir, 'bus')}` },
    });
    if (r.status !== 0) throw new Error(`nmcli ${args.join(' ')}: ${r.status} ${r.stderr}`);
    return r.stdout;
  }

  private async waitForStartup(log: () => string): Promise<void> {
    const deadline = Date.now() + STARTUP_BOUND_MS;
    for (;;) {
      if (this.nm.exitCode !== null) throw new Error(`NetworkManager namespace exited ${this.nm.exitCode}:\n${log()}`);
      try {
        if (this.nmcli(['-t', '-f', 'STARTUP', 'general']).trim() === 'started') return;
      } catch {
        // not on the bus yet
      }
      if (Date.now() > deadline)
        throw new Error(`NetworkManager did not complete start-up in ${STARTUP_BOUND_MS} ms:\n${log()}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  snapshot(): NmSnapshot {
    const rows = (text: string) =>
      text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split(/(?<!\\):/).map((f) => f.replaceAll('\\:', ':')));
    const devices = new Map(
      rows(this.nmcli(['-t', '-f', 'DEVICE,TYPE,STATE,CONNECTION', 'device'])).map(([d, type, state, connection]) => [
        d!,
        { type: type!, state: state!, connection: connection! },
      ]),
    );
    const connections = new Map(
      rows(this.nmcli(['-t', '-f', 'NAME,UUID,DEVICE', 'connection', 'show'])).map(([name, uuid, device]) => [
        uuid!,
        { name: name!, device: device! },
      ]),
    );
    const ip = spawnSync('nsenter', ['-t', String(this.nm.pid), '-n', 'ip', '-j', 'addr'], {
      encoding: 'utf8',
      timeout: CALL_TIMEOUT_MS,
    });
    const links = JSON.parse(ip.stdout || '[]') as {
      ifname: string;
      addr_info?: { local: string; prefixlen: number }[];
    }[];
    const addresses = new Map(
      links.map((l) => [l.ifname, (l.addr_info ?? []).map((a) => `${a.local}/${a.prefixlen}`)]),
    );
    const show = (uuid: string, fields: string) =>
      new Map(rows(this.nmcli(['-t', '-f', fields, 'connection', 'show', uuid])).map(([k, ...v]) => [k!, v.join(':')]));
    const dhcpFallback = (nic: string) =>
      [...connections].find(([u, c]) => {
        if (!/^Wired connection \d+$/.test(c.name)) return false;
        const p = show(u, 'connection.interface-name,ipv4.method');
        return p.get('connection.interface-name') === nic && p.get('ipv4.method') === 'auto';
      })?.[1].name;
    return { devices, connections, addresses, show, dhcpFallback };
  }

  stop(): void {
    if (this.nm.exitCode === null) this.nm.kill('SIGKILL');
    if (this.dbus.exitCode === null) this.dbus.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
