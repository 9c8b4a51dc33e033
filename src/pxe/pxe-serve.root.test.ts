// The PXE wing as the service runs it: the built `bootsmith serve` in a network namespace with
// PXE_INTERFACE set (src/assembly/pxe-wing.ts, its row in src/assembly/wings.ts, its settings in
// src/config.ts). It starts with Debian's loaders, /health shows the `pxe` part (listening, the
// interface, its address, the ports, the loaders, the counts), a stand-in PXE client on the
// segment gets its offer, the 4011 answer and ipxe.efi, and /metrics counts them. Refused starts
// exit 2 with one line before anything listens: as `nobody` (no CAP_NET_BIND_SERVICE) naming what
// to grant; with a loaders directory missing files, naming each file and the package that ships
// it; with PXE_INTERFACE naming no interface.
// Needs root (namespaces), ip, setpriv, curl and Debian's ipxe, shim-signed and
// grub-efi-amd64-signed; skipped with a line naming what is missing (fails under CI).
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolWorks, unavailable } from '../../test/support/requirements.js';
import { buildCli, type BuiltCli, REPO_ROOT } from '../../test/support/build-cli.js';
import { postgresProcesses } from '../../test/support/serve-child.js';
import type { ClientResult } from './test-support/fleet-runner.js';
import { HAVE_NETNS, PxeLan } from './test-support/netns-lan.js';
import { metricValue, removeRunners, runFleet } from './test-support/runner-process.js';

const MISSING = {
  'root, ip and network namespaces': HAVE_NETNS,
  'setpriv (util-linux)': toolWorks('setpriv', ['--version']),
  curl: toolWorks('curl', ['--version']),
  "Debian's ipxe, shim-signed and grub-efi-amd64-signed": [
    '/usr/lib/ipxe/undionly.kpxe',
    '/usr/lib/ipxe/ipxe.efi',
    '/usr/lib/shim/shimx64.efi.signed',
    '/usr/lib/grub/x86_64-efi-signed/grubnetx64.efi.signed',
  ].every((f) => existsSync(f)),
};
const SERVER = '10.77.0.1';
const START_TIMEOUT_MS = 120_000;

describe.skipIf(unavailable(MISSING))('bootsmith serve with PXE_INTERFACE, in a network namespace', () => {
  let built: BuiltCli;
  let lan: PxeLan;
  let dir: string;
  const serves: Array<{ child: ChildProcess; dataDir: string }> = [];

  /** `bootsmith serve --role core` in the server's namespace (as user and group `uid` when given). */
  function serve(env: Record<string, string>, uid?: string) {
    const dataDir = mkdtempSync(path.join(dir, 'data-'));
    chmodSync(dataDir, 0o777); // nobody writes here too; the embedded PostgreSQL's user passes through
    const wrap = uid ? ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups'] : [];
    const argv = [...wrap, process.execPath, built.cli, 'serve', '--role', 'core'];
    const child = lan.spawn(lan.node('srv').ns, argv[0]!, argv.slice(1), {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: dataDir,
        DATA_DIR: dataDir,
        LISTEN_ADDRESS: SERVER,
        LISTEN_PORT: '8080',
        AUTH_TYPE: 'none',
        LOG_LEVEL: 'info',
        ...env,
      },
    });
    let output = '';
    child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    serves.push({ child, dataDir });
    return { child, exited, output: () => output };
  }

  const curl = (route: string) =>
    lan.run(lan.node('srv').ns, 'curl', ['-s', '--max-time', '10', `http://${SERVER}:8080${route}`]).stdout;

  async function refused(env: Record<string, string>, uid?: string): Promise<string> {
    const s = serve(env, uid);
    const code = await Promise.race([s.exited, new Promise((r) => setTimeout(() => r('still running'), 60_000))]);
    expect(code, s.output()).toBe(2);
    return s.output().trim().split('\n').at(-1)!;
  }

  beforeAll(async () => {
    built = await buildCli();
    chmodSync(path.resolve(built.cli, '../../..'), 0o755); // its private build dir: nobody runs it too
    dir = mkdtempSync(path.join(tmpdir(), 'bs-pxe-serve-'));
    chmodSync(dir, 0o755);
    lan = PxeLan.create();
    lan.addNode('srv', [1]);
    lan.addNode('cli', [100], { defaultRoute: true });
  }, 300_000);

  afterAll(async () => {
    for (const { child } of serves) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 3_000));
    for (const { dataDir } of serves) for (const pid of await postgresProcesses(dataDir)) process.kill(pid, 'SIGKILL');
    lan?.close();
    rmSync(dir, { recursive: true, force: true });
    await built?.remove();
    await removeRunners();
  });

  it('answers PXE clients on the interface, shows the front door in /health and counts in /metrics', async () => {
    const s = serve({ PXE_INTERFACE: 'eth0' });
    const end = Date.now() + START_TIMEOUT_MS;
    let health: { pxe?: Record<string, unknown> } = {};
    while (health.pxe?.state !== 'listening') {
      if (Date.now() > end || s.child.exitCode !== null) throw new Error(`no PXE in /health:\n${s.output()}`);
      await new Promise((r) => setTimeout(r, 500));
      health = JSON.parse(curl('/health') || '{}') as typeof health;
    }
    expect(health.pxe).toMatchObject({
      state: 'listening',
      interface: 'eth0',
      address: SERVER,
      ports: { dhcp: 67, proxy: 4011, tftp: 69 },
      dhcp: { answered: 0 },
      tftp: { active: 0, complete: 0 },
    });
    expect((health.pxe!.loaders as Array<{ name: string }>).map((l) => l.name)).toEqual([
      'undionly.kpxe',
      'ipxe.efi',
      'shimx64.efi',
      'grubx64.efi',
    ]);
    const { results } = await runFleet<{ results: ClientResult[] }>(
      {
        mode: 'boot',
        clients: [{ mac: '52:54:00:77:0a:01', address: '10.77.0.100' }],
        profile: 'edk2X64',
        broadcastAddress: '255.255.255.255',
        ports: { dhcp: 67, dhcpClient: 68, proxy: 4011, tftp: 69 },
        blksize: 1468,
        deadlineMs: 60_000,
        expectSha256: createHash('sha256').update(readFileSync('/usr/lib/ipxe/ipxe.efi')).digest('hex'),
      },
      { ns: lan.node('cli').ns, dir, timeoutMs: 120_000 },
    );
    expect(results[0]).toMatchObject({ ok: true, file: 'ipxe.efi', via4011: true });
    const after = JSON.parse(curl('/health')) as { pxe: { dhcp: { answered: number }; tftp: { complete: number } } };
    expect(after.pxe.dhcp.answered).toBe(2); // the OFFER and the 4011 ACK
    expect(after.pxe.tftp.complete).toBe(1);
    const metrics = curl('/metrics');
    expect(metricValue(metrics, 'bootsmith_pxe_dhcp_answers_total', { route: 'efi-x64-loader' })).toBe(2);
    expect(metricValue(metrics, 'bootsmith_pxe_tftp_transfers_total', { end: 'complete' })).toBe(1);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  }, 300_000);

  it('refuses to start without the privilege to bind 67/69/4011, naming root and CAP_NET_BIND_SERVICE', async () => {
    const line = await refused({ PXE_INTERFACE: 'eth0' }, '65534'); // nobody
    expect(line).toMatch(
      /^bootsmith: configuration error: binding UDP port 67 \(DHCP, ProxyDHCP replies\) on 10\.77\.0\.1 needs privilege this process lacks: run bootsmith as root, or grant it CAP_NET_BIND_SERVICE/,
    );
  }, 120_000);

  it('refuses a loaders directory missing files, naming each file and the package that ships it', async () => {
    const loaders = path.join(dir, 'loaders');
    mkdirSync(loaders, { recursive: true });
    const line = await refused({ PXE_INTERFACE: 'eth0', PXE_LOADERS_DIR: loaders });
    expect(line).toMatch(/^bootsmith: configuration error: PXE loaders missing: /);
    for (const file of ['undionly.kpxe', 'ipxe.efi', 'shimx64.efi', 'grubx64.efi'])
      expect(line).toContain(path.join(loaders, file));
    expect(line).toMatch(/Debian's ipxe \(\/usr\/lib\/ipxe\/ipxe\.efi\) or RHEL's ipxe-bootimgs-x86/);
    expect(line).toMatch(/shim-signed/);
    expect(line).toMatch(/grub-efi-amd64-signed/);
  }, 120_000);

  it('refuses a PXE_INTERFACE this host does not have', async () => {
    expect(await refused({ PXE_INTERFACE: 'nosuch0' })).toMatch(
      /^bootsmith: configuration error: PXE_INTERFACE nosuch0 is not an interface of this host \(it has lo, eth0\)$/,
    );
  }, 120_000);
});
