// A throwaway LAN for network-booting guests: a network namespace holding a bridge, the tap qemu's
// NIC uses, and Debian's dnsmasq answering DHCP, joined to this host by a veth pair whose host end
// (`hostInterface`, `hostAddress`) the service listens on. With a boot URL, dnsmasq gives clients
// of the `HTTPClient` vendor class (UEFI HTTP Boot, UEFI 2.5 §24.7) that URL as their boot file
// name and option 60 back, as the UEFI HTTP Boot DHCP exchange expects; without one it is a site's
// DHCP server that hands out addresses and nothing else (the PXE front door's ProxyDHCP, on the
// host end, says what to boot). Other clients (the booted guest) get a plain lease.
// qemu runs inside the namespace (`qemuWrapper`). Names and the /24 are chosen per process, so
// concurrent runs do not collide; `close()` kills dnsmasq and removes the namespace and the veth.
// Does: create, start dnsmasq (bounded wait for it to listen), tear down. Does NOT: touch the
// host's other interfaces or routes (the /24 is only on the veth), or boot anything.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { toolWorks } from '../../support/requirements.js';

/** dnsmasq reports its DHCP range within a second; this bounds a start that never comes. */
const DNSMASQ_START_MS = 15_000;
/** Bound on each `ip` call. */
const IP_TIMEOUT_MS = 15_000;

export const HAVE_NETBOOT_LAN =
  process.getuid?.() === 0 &&
  toolWorks('ip', ['-V']) &&
  toolWorks('dnsmasq', ['--version']) &&
  spawnSync('sh', ['-c', 'test -c /dev/net/tun']).status === 0;

export interface NetbootLan {
  ns: string;
  /** The host end of the veth (the service listens here; the guests' gateway). */
  hostAddress: string;
  /** The name of that host end (PXE_INTERFACE for the PXE front door's ProxyDHCP and TFTP). */
  hostInterface: string;
  /** qemu for `BootOptions.qemu`: runs it inside the namespace, where the tap is. */
  qemuWrapper: string;
  /**
   * The qemu NIC arguments for the tap: by default no option ROM (OVMF's own network stack does
   * PXE and HTTP Boot); `ipxeRom` keeps qemu's iPXE ROM (what a BIOS machine PXE-boots with).
   */
  nicArgs(mac: string, options?: { ipxeRom?: boolean }): string[];
  /**
   * Starts dnsmasq offering `bootUrl` to HTTPClient clients (undefined: plain leases only),
   * replacing a dnsmasq started before (the emulated BMC's hand-off of its HttpBootUri).
   */
  startDnsmasq(bootUrl: string | undefined): Promise<void>;
  /** dnsmasq's log so far. */
  dnsmasqLog(): Promise<string>;
  close(): Promise<void>;
}

function ip(args: string[], ns?: string): void {
  const argv = ns ? ['netns', 'exec', ns, 'ip', ...args] : args;
  const r = spawnSync('ip', argv, { encoding: 'utf8', timeout: IP_TIMEOUT_MS });
  if (r.status !== 0) throw new Error(`ip ${argv.join(' ')}: ${(r.stderr || r.error?.message || '').trim()}`);
}

export function createNetbootLan(runDir: string, name: string): NetbootLan {
  const tag = String(process.pid % 100000);
  const ns = `bsboot${tag}`;
  const hostIf = `bsh${tag}`;
  const nsIf = `bsn${tag}`;
  const net = `10.${200 + (process.pid % 50)}.${(process.pid >> 6) % 256}`;
  const hostAddress = `${net}.1`;
  const brAddress = `${net}.2`;
  let dnsmasq: ChildProcess | undefined;
  const logPath = path.join(runDir, `${name}.dnsmasq.log`);
  writeFileSync(logPath, ''); // this LAN's log: every dnsmasq it starts appends to it

  const stopDnsmasq = async (): Promise<void> => {
    const running = dnsmasq;
    if (running && running.exitCode === null && running.signalCode === null) {
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      running.kill('SIGKILL');
    }
  };
  const close = async (): Promise<void> => {
    await stopDnsmasq();
    spawnSync('ip', ['netns', 'del', ns], { timeout: IP_TIMEOUT_MS });
    spawnSync('ip', ['link', 'del', hostIf], { stdio: 'ignore', timeout: IP_TIMEOUT_MS });
  };

  try {
    ip(['netns', 'add', ns]);
    ip(['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf, 'netns', ns]);
    ip(['addr', 'add', `${hostAddress}/24`, 'dev', hostIf]);
    ip(['link', 'set', hostIf, 'up']);
    ip(['link', 'set', 'lo', 'up'], ns);
    ip(['link', 'add', 'br0', 'type', 'bridge'], ns);
    ip(['link', 'set', nsIf, 'master', 'br0'], ns);
    ip(['link', 'set', nsIf, 'up'], ns);
    ip(['tuntap', 'add', 'tap0', 'mode', 'tap'], ns);
    ip(['link', 'set', 'tap0', 'master', 'br0'], ns);
    ip(['link', 'set', 'tap0', 'up'], ns);
    ip(['addr', 'add', `${brAddress}/24`, 'dev', 'br0'], ns);
    ip(['link', 'set', 'br0', 'up'], ns);
  } catch (err) {
    void close();
    throw err;
  }
  const qemuWrapper = path.join(runDir, `${name}.qemu-in-netns.sh`);
  writeFileSync(
    qemuWrapper,
    `#!/bin/sh\n# qemu inside network namespace ${ns}\nexec ip netns exec ${ns} qemu-system-x86_64 "$@"\n`,
    {
      mode: 0o755,
    },
  );

  return {
    ns,
    hostAddress,
    hostInterface: hostIf,
    qemuWrapper,
    nicArgs: (mac, options = {}) => [
      '-netdev',
      'tap,id=n0,ifname=tap0,script=no,downscript=no',
      '-device',
      `virtio-net-pci,netdev=n0,mac=${mac},${options.ipxeRom ? '' : 'romfile=,'}bootindex=0`,
    ],
    async startDnsmasq(bootUrl: string | undefined): Promise<void> {
      await stopDnsmasq();
      // dnsmasq writes its log straight into the file (through a pipe it holds lines back); a
      // restart appends, so the log keeps every answer given
      const mark = await readFile(logPath, 'utf8').then(
        (t) => t.length,
        () => 0,
      );
      const log = openSync(logPath, 'a');
      dnsmasq = spawn(
        'ip',
        [
          'netns',
          'exec',
          ns,
          'dnsmasq',
          '--keep-in-foreground',
          '--log-facility=-',
          '--log-dhcp',
          '--conf-file=/dev/null',
          '--port=0', // no DNS
          '--interface=br0',
          '--bind-interfaces',
          `--dhcp-range=${net}.50,${net}.99,255.255.255.0,1h`,
          `--dhcp-option=option:router,${hostAddress}`,
          `--dhcp-leasefile=${path.join(runDir, `${name}.dnsmasq.leases`)}`,
          // UEFI HTTP Boot clients say `HTTPClient:Arch:00016:UNDI:003001` in option 60 and want
          // `HTTPClient` back with a URL as the boot file name.
          ...(bootUrl
            ? [
                '--dhcp-vendorclass=set:efihttp,HTTPClient',
                '--dhcp-option-force=tag:efihttp,60,HTTPClient',
                `--dhcp-boot=tag:efihttp,${bootUrl}`,
              ]
            : []),
        ],
        { stdio: ['ignore', log, log] },
      );
      closeSync(log);
      for (const deadline = Date.now() + DNSMASQ_START_MS; ;) {
        const text = (await readFile(logPath, 'utf8').catch(() => '')).slice(mark);
        if (/DHCP, IP range/.test(text)) return;
        if (dnsmasq.exitCode !== null || Date.now() > deadline)
          throw new Error(`dnsmasq in ${ns} did not start within ${DNSMASQ_START_MS} ms:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    dnsmasqLog: () => readFile(logPath, 'utf8').catch(() => ''),
    close,
  };
}
