// The dnsmasq snippet `bootsmith pxe dhcp-snippet --server dnsmasq` prints, run by Debian's
// dnsmasq as a site's DHCP server: `dnsmasq --test` takes it, and in a pair of network namespaces
// (a veth between the site's server and a client) busybox's udhcpc, a real DHCP client, asks the
// way each boot stage does: iPXE (user class `iPXE`) gets boot.ipxe's URL, never a loader again
// (the loop broken); a UEFI x86-64 PXE ROM (vendor class PXEClient, option 93 = 7) gets ipxe.efi
// from the TFTP server; a BIOS one gets undionly.kpxe; a host assigned with Secure Boot (its MAC)
// gets shimx64.efi from the TFTP server as its next server. udhcpc stands in for the firmware's and
// iPXE's DHCP only as far as the options they send (77, 60, 93), which is what dnsmasq matches.
// Needs root (namespaces), ip, dnsmasq and busybox; skipped (or failed under CI) without them.
import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolWorks, unavailable } from '../../test/support/requirements.js';
import { dhcpSnippet } from './dhcp-snippets.js';

const ROOT = process.getuid?.() === 0;
const TAG = `bsfd${process.pid}`;
const SERVER_NS = `${TAG}-site`;
const CLIENT_NS = `${TAG}-host`;
const SERVER_IP = '10.79.0.1';
const BOOT_URL = `http://${SERVER_IP}:8080/boot.ipxe`;
/** A host assigned with Secure Boot: its lines in the snippet send it to shim on the TFTP server. */
const SECURE_BOOT_MAC = '52:54:00:e2:5b:01';
const STEP_TIMEOUT_MS = 15_000;

function run(cmd: string, args: string[]): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: STEP_TIMEOUT_MS });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.status ?? r.signal} ${r.stderr}`);
  return r;
}
const inNs = (ns: string, ...args: string[]) => run('ip', ['netns', 'exec', ns, ...args]);

describe.skipIf(
  unavailable({
    root: ROOT,
    ip: toolWorks('ip', ['-V']),
    dnsmasq: toolWorks('dnsmasq', ['--version']),
    busybox: toolWorks('busybox', ['udhcpc', '--help']) || toolWorks('busybox', ['--list']),
  }),
)('the dnsmasq snippet, run by dnsmasq', () => {
  let dir: string;
  let conf: string;
  let dnsmasq: ReturnType<typeof spawn> | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), `${TAG}-`));
    conf = path.join(dir, 'dnsmasq.conf');
    writeFileSync(
      conf,
      [
        // the site's own server: addresses on one interface, no DNS
        'port=0',
        'interface=site0',
        'bind-interfaces',
        'dhcp-range=10.79.0.50,10.79.0.60,1h',
        `dhcp-leasefile=${path.join(dir, 'leases')}`,
        'dhcp-authoritative',
        'log-dhcp',
        dhcpSnippet('dnsmasq', { bootUrl: BOOT_URL, tftpServer: SERVER_IP, secureBootMacs: [SECURE_BOOT_MAC] }),
      ].join('\n'),
    );
    run('ip', ['netns', 'add', SERVER_NS]);
    run('ip', ['netns', 'add', CLIENT_NS]);
    run('ip', ['link', 'add', 'site0', 'netns', SERVER_NS, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', CLIENT_NS]);
    inNs(SERVER_NS, 'ip', 'addr', 'add', `${SERVER_IP}/24`, 'dev', 'site0');
    for (const [ns, dev] of [
      [SERVER_NS, 'site0'],
      [SERVER_NS, 'lo'],
      [CLIENT_NS, 'eth0'],
      [CLIENT_NS, 'lo'],
    ] as const)
      inNs(ns, 'ip', 'link', 'set', dev, 'up');
    dnsmasq = spawn('ip', ['netns', 'exec', SERVER_NS, 'dnsmasq', '--keep-in-foreground', '--user=root', '-C', conf], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise((r) => setTimeout(r, 500));
  });

  afterAll(() => {
    dnsmasq?.kill('SIGTERM');
    spawnSync('ip', ['netns', 'del', CLIENT_NS], { timeout: STEP_TIMEOUT_MS });
    spawnSync('ip', ['netns', 'del', SERVER_NS], { timeout: STEP_TIMEOUT_MS });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes dnsmasq --test', () => {
    const r = spawnSync('dnsmasq', ['--test', '-C', conf], { encoding: 'utf8', timeout: STEP_TIMEOUT_MS });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/syntax check OK/);
  });

  /** One DHCP exchange of udhcpc with these extra options; what the offer's file and siaddr were. */
  function ask(name: string, options: string[]): { bootFile: string; siaddr: string } {
    const out = path.join(dir, `${name}.env`);
    const script = path.join(dir, `${name}.sh`);
    writeFileSync(script, `#!/bin/sh\n[ "$1" = bound ] && echo "$boot_file|$siaddr" > ${out}\nexit 0\n`);
    chmodSync(script, 0o755);
    inNs(
      CLIENT_NS,
      'busybox',
      'udhcpc',
      '-i',
      'eth0',
      '-n',
      '-q',
      '-f',
      '-t',
      '5',
      '-T',
      '1',
      '-s',
      script,
      ...options,
    );
    const [bootFile = '', siaddr = ''] = readFileSync(out, 'utf8').trim().split('|');
    return { bootFile, siaddr };
  }

  it("hands iPXE's own request the front door's URL: the loop is broken", () => {
    // user class "iPXE" (option 77), as iPXE sends it, on a UEFI x86-64 build
    expect(ask('ipxe', ['-x', '0x4d:69505845', '-x', '0x5d:0007']).bootFile).toBe(BOOT_URL);
  });

  it('hands a UEFI x86-64 PXE ROM ipxe.efi and a BIOS one undionly.kpxe, from the TFTP server', () => {
    expect(ask('efi', ['-V', 'PXEClient:Arch:00007:UNDI:003016', '-x', '0x5d:0007'])).toEqual({
      bootFile: 'ipxe.efi',
      siaddr: SERVER_IP,
    });
    expect(ask('bios', ['-V', 'PXEClient:Arch:00000:UNDI:002001', '-x', '0x5d:0000'])).toEqual({
      bootFile: 'undionly.kpxe',
      siaddr: SERVER_IP,
    });
  });

  it('hands a host assigned with Secure Boot, as UEFI x86-64 PXE, shimx64.efi from the TFTP server', () => {
    inNs(CLIENT_NS, 'ip', 'link', 'set', 'eth0', 'address', SECURE_BOOT_MAC);
    expect(ask('efi-sb', ['-V', 'PXEClient:Arch:00007:UNDI:003016', '-x', '0x5d:0007'])).toEqual({
      bootFile: 'shimx64.efi',
      siaddr: SERVER_IP,
    });
    // as BIOS it is no Secure Boot host
    expect(ask('bios-sb', ['-V', 'PXEClient:Arch:00000:UNDI:002001', '-x', '0x5d:0000']).bootFile).toBe(
      'undionly.kpxe',
    );
  });
});
