// The PXE wing on a real segment: network namespaces joined by a bridge, the standalone runner on
// the server's eth0 with Debian's loaders, Debian's dnsmasq as the site's DHCP server handing out
// addresses and nothing else, and real clients beside the packet-level stand-in:
//   - busybox udhcpc: an ordinary client gets its lease from the site server untouched; with a
//     PXE vendor class and option 93 it gets the offer the stand-in gets (so the stand-in speaks
//     what a real client speaks, and the server reads a real client's DISCOVER);
//   - the stand-in fleet: DISCOVER broadcast → OFFER broadcast, the 4011 exchange, TFTP of the loader;
//   - curl, atftp and tftp-hpa fetch loaders and a host's grub.cfg with their own option sets, and
//     tftp-hpa's path outside the loaders gets the access-violation error;
//   - the clocks: a client that never acknowledges sees the resends stop; the runner frees the slot;
//   - privilege: as nobody the runner refuses to start naming what to grant; with exactly
//     CAP_NET_BIND_SERVICE it starts;
//   - the interface: a broadcast arriving on another interface of the server is answered out of the
//     PXE interface only, so that client gets nothing (the documented limit of binding without
//     SO_BINDTODEVICE).
// Needs root (namespaces), ip, dnsmasq, busybox, curl, atftp, tftp-hpa, setpriv and Debian's ipxe,
// shim-signed and grub-efi-amd64-signed; skipped with a line naming what is missing (fails under CI).
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolWorks, unavailable } from '../../test/support/requirements.js';
import type { ClientResult, FleetConfig } from './test-support/fleet-runner.js';
import { HAVE_NETNS, PxeLan } from './test-support/netns-lan.js';
import { metricValue, removeRunners, runFleet, RunnerProcess } from './test-support/runner-process.js';

const DEBIAN_LOADERS = [
  '/usr/lib/ipxe/undionly.kpxe',
  '/usr/lib/ipxe/ipxe.efi',
  '/usr/lib/shim/shimx64.efi.signed',
  '/usr/lib/grub/x86_64-efi-signed/grubnetx64.efi.signed',
];
const MISSING = {
  'root, ip and network namespaces': HAVE_NETNS,
  'dnsmasq (dnsmasq-base)': toolWorks('dnsmasq', ['--version']),
  'busybox (udhcpc)': toolWorks('busybox', ['--help']),
  curl: toolWorks('curl', ['--version']),
  atftp: toolWorks('atftp', ['--version']),
  'tftp (tftp-hpa)': existsSync('/usr/bin/tftp'),
  'setpriv (util-linux)': toolWorks('setpriv', ['--version']),
  "Debian's ipxe, shim-signed and grub-efi-amd64-signed": DEBIAN_LOADERS.every((f) => existsSync(f)),
};
const SERVER = '10.77.0.1';
const SITE = '10.77.0.2';
const SECURE_MAC = '52:54:00:5b:00:01';
const IPXE_URL = `http://${SERVER}:8080/boot.ipxe`;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const PORTS = { dhcp: 67, dhcpClient: 68, proxy: 4011, tftp: 69 };

describe.skipIf(unavailable(MISSING))('the PXE wing in network namespaces, beside a site DHCP server', () => {
  let lan: PxeLan;
  let runner: RunnerProcess;
  let dir: string;
  const fleet = (over: Partial<FleetConfig>, ns: string, timeoutMs = 120_000) =>
    runFleet<{ wallMs: number; results: ClientResult[] }>(
      {
        mode: 'boot',
        clients: [],
        profile: 'edk2X64',
        broadcastAddress: '255.255.255.255',
        ports: PORTS,
        blksize: 1468,
        deadlineMs: 60_000,
        ...over,
      },
      { ns, dir, timeoutMs },
    );
  const counters = async () => {
    const text = await runner.metrics();
    return (name: string, labels: Record<string, string> = {}) => metricValue(text, name, labels);
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'bs-pxe-netns-'));
    chmodSync(dir, 0o755); // the runner started as nobody reads its config here
    lan = PxeLan.create();
    lan.addNode('srv', [1]);
    lan.addNode('site', [2]);
    lan.addNode('cli', [100, 101, 102, 103], { defaultRoute: true });
    lan.addNode('real', [], { defaultRoute: true });
    lan.addPointToPoint('srv', 'other0', 'other', { bAddress: false });
    lan.addNode('priv', [9]);
    const site = lan.spawn(lan.node('site').ns, 'dnsmasq', [
      '--keep-in-foreground', '--log-facility=-', '--log-dhcp', '--conf-file=/dev/null', '--port=0',
      '--interface=eth0', '--bind-interfaces', '--dhcp-range=10.77.0.50,10.77.0.99,255.255.255.0,1h',
      `--dhcp-leasefile=${path.join(dir, 'site.leases')}`,
    ]); // prettier-ignore
    let siteLog = '';
    site.stderr!.on('data', (d: Buffer) => (siteLog += d.toString()));
    site.stdout!.on('data', (d: Buffer) => (siteLog += d.toString()));
    for (const end = Date.now() + 15_000; !/DHCP, IP range/.test(siteLog);) {
      if (Date.now() > end || site.exitCode !== null) throw new Error(`the site's dnsmasq did not start:\n${siteLog}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    runner = await RunnerProcess.start(
      {
        env: { PXE_INTERFACE: 'eth0' },
        listen: { tftpRetransmitMs: 300 },
        frontDoor: {
          ipxeScriptUrl: IPXE_URL,
          secureBootMacs: [SECURE_MAC],
          grubConfigTemplate: 'linux (http,10.77.0.1:8080)/k mac={mac}\n',
          grubConfigMacs: [SECURE_MAC],
        },
      },
      { ns: lan.node('srv').ns, dir },
    );
  });
  afterAll(async () => {
    await runner?.stop();
    lan?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await removeRunners();
  });

  it("starts with Debian's loaders from their package paths", () => {
    expect(runner.ready).toMatchObject({
      state: 'listening',
      interface: 'eth0',
      address: SERVER,
      ports: { dhcp: 67, proxy: 4011, tftp: 69 },
    });
    expect(runner.ready.loaders.map((l) => l.path)).toEqual(DEBIAN_LOADERS);
  });

  it("leaves an ordinary client to the site's DHCP server (udhcpc gets its lease, the ProxyDHCP ignores it)", async () => {
    const before = (await runner.status()).dhcp;
    const script = path.join(dir, 'udhcpc-plain.sh');
    writeFileSync(
      script,
      `#!/bin/sh\necho "$1 ip=$ip serverid=$serverid boot_file=$boot_file" >> ${dir}/plain.events\n`,
      { mode: 0o755 },
    );
    const r = lan.run(
      lan.node('real').ns,
      'busybox',
      ['udhcpc', '-i', 'eth0', '-f', '-q', '-n', '-t', '5', '-T', '2', '-s', script],
      60_000,
    );
    expect(r.stderr).toMatch(/lease of 10\.77\.0\.\d+ obtained from 10\.77\.0\.2/);
    expect(readFileSync(path.join(dir, 'plain.events'), 'utf8')).toMatch(
      new RegExp(`^bound ip=10\\.77\\.0\\.\\d+ serverid=${SITE.replaceAll('.', '\\.')} boot_file=$`, 'm'),
    );
    const after = (await runner.status()).dhcp;
    expect(after.answered).toBe(before.answered);
    expect(after.ignored).toBeGreaterThan(before.ignored);
    lan.run(lan.node('real').ns, 'ip', ['addr', 'flush', 'dev', 'eth0']);
  });

  it("gives a real client's PXE DISCOVER (udhcpc with PXEClient and option 93) the offer the stand-in gets", async () => {
    const guid = '00112233445566778899aabbccddeeff';
    const listening = runFleet<{ replies: Array<Record<string, unknown>> }>(
      {
        mode: 'listen',
        clients: [],
        profile: 'edk2X64',
        broadcastAddress: '255.255.255.255',
        ports: PORTS,
        blksize: 1468,
        deadlineMs: 1,
        listenMs: 8_000,
      },
      { ns: lan.node('real').ns, dir, timeoutMs: 60_000 },
    );
    await new Promise((r) => setTimeout(r, 1_000));
    // The stand-in's DISCOVER for the same kind of client, first, while the listener listens.
    const standInMac = '52:54:00:77:00:01';
    const standIn = await fleet({ clients: [{ mac: standInMac, address: '10.77.0.100' }] }, lan.node('cli').ns);
    expect(standIn.results[0]).toMatchObject({ ok: true, file: 'ipxe.efi', via4011: true });
    // One DISCOVER: udhcpc would take the proxy offer for a lease, which is not what it is here for.
    lan.run(lan.node('real').ns, 'busybox', ['udhcpc', '-i', 'eth0', '-f', '-q', '-n', '-t', '1', '-T', '3',
      '-V', 'PXEClient:Arch:00007:UNDI:003000', '-x', '0x5d:0007', '-x', `0x61:00${guid}`, '-s', '/bin/true'], 30_000); // prettier-ignore
    const { replies } = await listening;
    const realMac = lan.run(lan.node('real').ns, 'cat', ['/sys/class/net/eth0/address']).stdout.trim();
    const proxyOffer = (mac: string) =>
      replies.find((r) => r.mac === mac.replaceAll(':', '') && r.yiaddr === '0.0.0.0');
    const toReal = proxyOffer(realMac);
    expect(toReal).toMatchObject({
      siaddr: SERVER,
      serverId: SERVER,
      vendorClass: 'PXEClient',
      file: 'ipxe.efi',
      bootfile: 'ipxe.efi',
      machineId: `00${guid}`,
      type: 2,
    });
    expect(toReal!.vendor43).toBeUndefined();
    // Field for field the same offer, but for the client's own identifiers.
    const own = ({ xid: _x, mac: _m, machineId: _i, ...rest }: Record<string, unknown>) => rest;
    expect(own(proxyOffer(standInMac)!)).toEqual(own(toReal!));
  });

  it('boots stand-in PXE clients: DISCOVER → OFFER, the 4011 exchange, TFTP of the loader', async () => {
    const ipxe = sha256(readFileSync('/usr/lib/ipxe/ipxe.efi'));
    const clients = [100, 101, 102, 103].map((h, i) => ({ mac: `52:54:00:77:01:0${i}`, address: `10.77.0.${h}` }));
    const efi = await fleet({ clients, expectSha256: ipxe }, lan.node('cli').ns);
    expect(efi.results.map((r) => [r.ok, r.via4011, r.file, r.error])).toEqual(
      clients.map(() => [true, true, 'ipxe.efi', undefined]),
    );
    const bios = await fleet(
      {
        clients: clients.slice(0, 2),
        profile: 'bios',
        expectSha256: sha256(readFileSync('/usr/lib/ipxe/undionly.kpxe')),
      },
      lan.node('cli').ns,
    );
    // BIOS offers carry PXE_DISCOVERY_CONTROL and the file: no 4011 round trip.
    expect(bios.results.map((r) => [r.ok, r.via4011, r.file])).toEqual([
      [true, false, 'undionly.kpxe'],
      [true, false, 'undionly.kpxe'],
    ]);
    const secure = await fleet(
      {
        clients: [{ mac: SECURE_MAC, address: '10.77.0.100' }],
        expectSha256: sha256(readFileSync('/usr/lib/shim/shimx64.efi.signed')),
      },
      lan.node('cli').ns,
    );
    expect(secure.results[0]).toMatchObject({ ok: true, file: 'shimx64.efi' });
    const get = await counters();
    expect(get('bootsmith_pxe_dhcp_answers_total', { route: 'efi-x64-loader' })).toBeGreaterThanOrEqual(2 * 5);
    expect(get('bootsmith_pxe_tftp_transfers_total', { end: 'complete' })).toBeGreaterThanOrEqual(7);
  });

  it('serves real TFTP clients: curl, atftp (windowsize) and tftp-hpa, and refuses a path outside the loaders', async () => {
    const ns = lan.node('cli').ns;
    const out = (n: string) => path.join(dir, n);
    const curl = lan.run(ns, 'curl', [
      '-sS',
      '--max-time',
      '30',
      '--tftp-blksize',
      '1468',
      '-o',
      out('curl.efi'),
      `tftp://${SERVER}/ipxe.efi`,
    ]);
    expect(curl.status, curl.stderr).toBe(0);
    expect(readFileSync(out('curl.efi')).equals(readFileSync('/usr/lib/ipxe/ipxe.efi'))).toBe(true);
    const plain = lan.run(ns, 'curl', [
      '-sS',
      '--max-time',
      '30',
      '--tftp-no-options',
      '-o',
      out('plain.kpxe'),
      `tftp://${SERVER}/undionly.kpxe`,
    ]);
    expect(plain.status, plain.stderr).toBe(0);
    expect(readFileSync(out('plain.kpxe')).equals(readFileSync('/usr/lib/ipxe/undionly.kpxe'))).toBe(true);
    const atftp = lan.run(ns, 'atftp', [
      '--get',
      '-r',
      'grubx64.efi',
      '-l',
      out('grub.efi'),
      '--option',
      'blksize 1468',
      '--option',
      'tsize 0',
      '--option',
      'windowsize 8',
      SERVER,
    ]);
    expect(atftp.status, atftp.stderr).toBe(0);
    expect(
      readFileSync(out('grub.efi')).equals(readFileSync('/usr/lib/grub/x86_64-efi-signed/grubnetx64.efi.signed')),
    ).toBe(true);
    const hpa = lan.run(ns, 'tftp', [SERVER, '-m', 'binary', '-c', 'get', 'shimx64.efi', out('shim.efi')]);
    expect(hpa.status, hpa.stderr).toBe(0);
    expect(readFileSync(out('shim.efi')).equals(readFileSync('/usr/lib/shim/shimx64.efi.signed'))).toBe(true);
    const grub = lan.run(ns, 'curl', ['-sS', '--max-time', '30', `tftp://${SERVER}/grub/grub.cfg-${SECURE_MAC}`]);
    expect(grub.stdout).toBe(`linux (http,10.77.0.1:8080)/k mac=${SECURE_MAC}\n`);
    const outside = lan.run(ns, 'tftp', ['-v', SERVER, '-m', 'binary', '-c', 'get', '../etc/passwd', out('passwd')]);
    expect(outside.stdout + outside.stderr).toMatch(/Error code 2: access violation/);
    const get = await counters();
    expect(get('bootsmith_pxe_tftp_requests_total', { outcome: 'refused' })).toBeGreaterThanOrEqual(1);
  });

  it('stops resending to a client that never acknowledges, and frees its slot', async () => {
    const before = (await runner.status()).tftp.failed;
    const { arrivals } = await runFleet<{ arrivals: Array<{ opcode: number; block: number; atMs: number }> }>(
      { mode: 'stall', clients: [{ mac: '52:54:00:77:02:00', address: '10.77.0.103' }], profile: 'edk2X64', broadcastAddress: '', ports: PORTS, blksize: 1468, deadlineMs: 1, listenMs: 5_000,
        stall: { server: SERVER, file: 'ipxe.efi', options: ['blksize', '1468'] } }, // prettier-ignore
      { ns: lan.node('cli').ns, dir, timeoutMs: 60_000 },
    );
    // The OACK (opcode 6) once and 5 times again, 300 ms apart, then nothing.
    expect(arrivals.map((a) => a.opcode)).toEqual([6, 6, 6, 6, 6, 6]);
    expect(arrivals.at(-1)!.atMs - arrivals[0]!.atMs).toBeGreaterThanOrEqual(5 * 300 - 50);
    for (const end = Date.now() + 20_000; (await runner.status()).tftp.failed === before;) {
      if (Date.now() > end) throw new Error('the stalled transfer was not given up');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await runner.status()).tftp.active).toBe(0);
  });

  it('gives a client on another interface of the server nothing: its broadcast is answered out of the PXE interface, or ignored', async () => {
    const ns = lan.node('other').ns;
    const before = (await runner.status()).dhcp;
    // Before its lease (source 0.0.0.0), as firmware sends: Node cannot tell which interface the
    // broadcast came in on, so it is answered, but out of eth0, where this client is not.
    const unaddressed = await fleet(
      { clients: [{ mac: '52:54:00:77:03:00', address: '0.0.0.0' }], discoverWaitsMs: [3_000] },
      ns,
      60_000,
    );
    expect(unaddressed.results[0]).toMatchObject({ ok: false, error: 'no offer' });
    expect((await runner.status()).dhcp.answered).toBe(before.answered + 1);
    // With an address outside the PXE interface's subnet it is not answered at all.
    lan.run(ns, 'ip', ['addr', 'add', '10.78.0.2/24', 'dev', 'eth0']);
    const addressed = await fleet(
      { clients: [{ mac: '52:54:00:77:03:01', address: '10.78.0.2' }], discoverWaitsMs: [3_000] },
      ns,
      60_000,
    );
    expect(addressed.results[0]).toMatchObject({ ok: false, error: 'no offer' });
    const after = (await runner.status()).dhcp;
    expect(after.answered).toBe(before.answered + 1);
    expect(after.ignored).toBe(before.ignored + 1);
  });

  it('refuses to start without the privilege to bind 67/69, naming what to grant; CAP_NET_BIND_SERVICE alone is enough', async () => {
    // Its own namespace: the runner above holds 67, 69 and 4011 on the server's address.
    const ns = lan.node('priv').ns;
    const config = { env: { PXE_INTERFACE: 'eth0' }, frontDoor: {} };
    const nobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
    const refused = await RunnerProcess.start(config, { ns, dir, wrap: nobody }).catch((e: unknown) => e);
    expect((refused as Error).message).toBe(
      'binding UDP port 67 (DHCP, ProxyDHCP replies) on 10.77.0.9 needs privilege this process lacks: run bootsmith as root, or grant it CAP_NET_BIND_SERVICE ' +
        '(systemd: AmbientCapabilities=CAP_NET_BIND_SERVICE; Kubernetes: securityContext.capabilities.add [NET_BIND_SERVICE]; or setcap cap_net_bind_service=+ep on the node binary), ' +
        'or lower net.ipv4.ip_unprivileged_port_start to 67',
    );
    const granted = await RunnerProcess.start(config, {
      ns,
      dir,
      wrap: [...nobody, '--inh-caps=+net_bind_service', '--ambient-caps=+net_bind_service'],
    });
    expect(granted.ready).toMatchObject({
      state: 'listening',
      address: '10.77.0.9',
      ports: { dhcp: 67, proxy: 4011, tftp: 69 },
    });
    await granted.stop();
  });
});
