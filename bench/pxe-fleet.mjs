// 100 PXE clients at once (issue 32 deliverable 7, first half): bootsmith's PXE wing against
// Debian's dnsmasq in its ProxyDHCP mode (`dhcp-range=…,proxy`, `pxe-service`, `enable-tftp`)
// serving the same ipxe.efi, in the same run, on a segment of network namespaces (a bridge, the
// server's namespace, the clients' namespace; nothing touches the host's own network).
//
// Each client is the packet-level stand-in of EDK2's PXE (src/pxe/test-support/fleet-runner.ts,
// checked against real clients by src/pxe/pxe-netns.root.test.ts): DHCPDISCOVER broadcast on EDK2's
// schedule, the port-4011 boot-server request when the offer asks for it (bootsmith's does;
// dnsmasq's carries its PXE menu and file, so EDK2 goes straight to TFTP), then TFTP of ipxe.efi
// with blksize 1468 and tsize from its own address, bytes checked by SHA-256. Recorded per leg:
// time until all loaded, per-client p50/p99, DHCP retries, TFTP retransmits seen by the clients
// (duplicates) and sent by bootsmith, errors, whole-machine CPU seconds during the leg and the
// server's own, the 1-minute load before each leg. Legs alternate (A B, B A, …) per repeat.
//
//   npm run build && node bench/pxe-fleet.mjs [--clients 100] [--repeats 1]
//
// Needs root, ip, dnsmasq and Debian's ipxe (/usr/lib/ipxe/ipxe.efi). Writes
// bench/results/<date>-pxe-fleet.json and prints a line per leg. Not part of npm test.
/* global performance */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const CLIENTS = Number(opt('clients', '100'));
const REPEATS = Number(opt('repeats', '1'));
const LOADER = '/usr/lib/ipxe/ipxe.efi';
const SERVER = '10.88.0.1';
const TAG = `bs-pxebench-${process.pid}`;
const FLEET_TIMEOUT_MS = 300_000;

if (process.getuid?.() !== 0) throw new Error('pxe-fleet needs root (network namespaces, ports 67/69)');
for (const [tool, argv] of [
  ['ip', ['-V']],
  ['dnsmasq', ['--version']],
])
  execFileSync(tool, argv, { stdio: 'ignore' }); // throws naming the missing tool
const loaderSha = createHash('sha256').update(readFileSync(LOADER)).digest('hex');

mkdirSync(path.join(ROOT, 'bench', 'work'), { recursive: true });
const work = mkdtempSync(path.join(ROOT, 'bench', 'work', 'pxe-fleet-'));
const children = new Set();
const namespaces = [];
const ip = (argv) => execFileSync('ip', argv, { timeout: 15_000 });

function cleanup() {
  for (const child of children) child.kill('SIGKILL');
  for (const ns of namespaces.reverse()) execFile('ip', ['netns', 'del', ns], () => undefined);
  rmSync(work, { recursive: true, force: true });
}
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

/** The runners (standalone wing, client fleet), compiled as the tests compile them (src/pxe/test-support/runners.tsconfig.json). */
function buildRunners() {
  const tsconfig = path.join(ROOT, 'src', 'pxe', 'test-support', 'runners.tsconfig.json');
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', tsconfig, '--outDir', path.join(work, 'build')], {
    cwd: ROOT,
    timeout: 300_000,
    stdio: 'inherit',
  });
  const out = (name) => path.join(work, 'build', 'src', 'pxe', 'test-support', `${name}.js`);
  return { wing: out('standalone-runner'), fleet: out('fleet-runner') };
}

/** A bridge namespace, the server's namespace (10.88.0.1/16) and the clients' (10.88.1.0/16 …, one address each). */
function segment() {
  const lan = `${TAG}-lan`;
  ip(['netns', 'add', lan]);
  namespaces.push(lan);
  ip(['-n', lan, 'link', 'add', 'br0', 'type', 'bridge']);
  ip(['-n', lan, 'link', 'set', 'br0', 'type', 'bridge', 'stp_state', '0', 'forward_delay', '0']);
  ip(['-n', lan, 'link', 'set', 'br0', 'up']);
  const node = (name, addresses) => {
    const ns = `${TAG}-${name}`;
    ip(['netns', 'add', ns]);
    namespaces.push(ns);
    ip(['link', 'add', `p-${name}`, 'netns', lan, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
    ip(['-n', lan, 'link', 'set', `p-${name}`, 'master', 'br0', 'up']);
    ip(['-n', ns, 'link', 'set', 'lo', 'up']);
    for (const a of addresses) ip(['-n', ns, 'addr', 'add', `${a}/16`, 'dev', 'eth0']);
    ip(['-n', ns, 'link', 'set', 'eth0', 'up']);
    ip(['-n', ns, 'route', 'add', 'default', 'dev', 'eth0']);
    return ns;
  };
  const clients = [...Array(CLIENTS)].map((_, i) => ({
    mac: `52:54:00:88:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`,
    address: `10.88.${1 + (i >> 8)}.${i & 255}`,
  }));
  const srv = node('srv', [SERVER]);
  const cli = node(
    'cli',
    clients.map((c) => c.address),
  );
  return { srv, cli, clients };
}

/** Jiffies of the whole machine (busy, total) and of one process (user + system). */
function machineJiffies() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3] + f[4];
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}
function processJiffies(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
const HZ = 100;

function spawnIn(ns, command, argv) {
  const child = spawn('ip', ['netns', 'exec', ns, command, ...argv], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function startBootsmith(ns, runners) {
  const config = path.join(work, 'wing.json');
  writeFileSync(
    config,
    JSON.stringify({
      env: { PXE_INTERFACE: 'eth0', PXE_SECURE_BOOT: 'false' },
      frontDoor: { ipxeScriptUrl: `http://${SERVER}:8080/boot.ipxe` },
    }),
  );
  const child = spawnIn(ns, process.execPath, [runners.wing, config]);
  const lines = readline.createInterface({ input: child.stdout });
  const pending = [];
  lines.on('line', (l) => pending.shift()?.(JSON.parse(l)));
  const next = () => new Promise((resolve) => pending.push(resolve));
  const ready = await Promise.race([
    next(),
    new Promise((r) => setTimeout(() => r({ failed: 'no ready line' }), 60_000)),
  ]);
  if (!ready.ready) throw new Error(`bootsmith's PXE wing did not start: ${JSON.stringify(ready)}`);
  return {
    pid: child.pid,
    async serverRetransmits() {
      child.stdin.write('metrics\n');
      const { metrics } = await next();
      const line = metrics.split('\n').find((l) => l.startsWith('bootsmith_pxe_tftp_retransmits_total'));
      return line ? Number(line.split(' ').at(-1)) : 0;
    },
    stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))),
  };
}

async function startDnsmasq(ns) {
  const child = spawnIn(ns, 'dnsmasq', [
    '--keep-in-foreground', '--log-facility=-', '--conf-file=/dev/null', '--port=0', '--interface=eth0',
    '--bind-interfaces', `--dhcp-range=${SERVER},proxy,255.255.0.0`, '--pxe-service=x86-64_EFI,bench,ipxe.efi',
    '--enable-tftp', '--tftp-root=/usr/lib/ipxe', '--tftp-max=256', `--pid-file=${path.join(work, 'dnsmasq.pid')}`,
  ]); // prettier-ignore
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  child.stdout.on('data', (d) => (log += d));
  for (const end = Date.now() + 15_000; !/TFTP root is/.test(log);) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`dnsmasq did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    pid: child.pid,
    serverRetransmits: async () => undefined, // dnsmasq does not count them
    stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))),
  };
}

function runFleet(ns, runners, clients) {
  const config = path.join(work, `fleet-${Date.now()}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      mode: 'boot',
      clients,
      profile: 'edk2X64',
      broadcastAddress: '255.255.255.255',
      ports: { dhcp: 67, dhcpClient: 68, proxy: 4011, tftp: 69 },
      blksize: 1468,
      expectSha256: loaderSha,
      deadlineMs: 240_000,
    }),
  );
  return new Promise((resolve, reject) =>
    execFile(
      'ip',
      ['netns', 'exec', ns, process.execPath, runners.fleet, config],
      { timeout: FLEET_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const line = stdout.trim().split('\n').at(-1);
        if (!line) return reject(new Error(`the fleet failed: ${err?.message}\n${stderr}`));
        resolve(JSON.parse(line));
      },
    ),
  );
}

const pct = (xs, p) => {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]);
};

async function leg(name, start, seg, runners) {
  const loadBefore = os.loadavg()[0];
  const server = await start();
  const m0 = machineJiffies();
  const p0 = processJiffies(server.pid);
  const t0 = performance.now();
  const fleet = await runFleet(seg.cli, runners, seg.clients);
  const wallMs = Math.round(performance.now() - t0);
  const m1 = machineJiffies();
  const serverCpuS = (processJiffies(server.pid) - p0) / HZ;
  const serverRetransmits = await server.serverRetransmits();
  await server.stop();
  const results = fleet.results;
  const ok = results.filter((r) => r.ok);
  const errors = results.filter((r) => !r.ok).map((r) => r.error);
  return {
    server: name,
    clients: results.length,
    loaded: ok.length,
    allLoadedMs: ok.length === results.length ? Math.round(Math.max(...ok.map((r) => r.doneMs))) : undefined,
    wallMs,
    doneMsP50: pct(
      ok.map((r) => r.doneMs),
      50,
    ),
    doneMsP99: pct(
      ok.map((r) => r.doneMs),
      99,
    ),
    via4011: results.filter((r) => r.via4011).length,
    dhcpRetries: results.reduce((a, r) => a + r.dhcpRetries, 0),
    clientTftpRetransmits: results.reduce((a, r) => a + r.tftpRetransmits, 0),
    clientTftpDuplicates: results.reduce((a, r) => a + r.tftpDuplicates, 0),
    serverTftpRetransmits: serverRetransmits,
    errors: errors.length,
    firstErrors: [...new Set(errors)].slice(0, 5),
    machineCpuS: (m1.busy - m0.busy) / HZ,
    machineCpuFraction: Number(((m1.busy - m0.busy) / Math.max(1, m1.total - m0.total)).toFixed(3)),
    serverCpuS,
    loadAverage1mBefore: loadBefore,
  };
}

try {
  mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
  const runners = buildRunners();
  const seg = segment();
  const legs = [];
  const order = [
    ['bootsmith', () => startBootsmith(seg.srv, runners)],
    ['dnsmasq', () => startDnsmasq(seg.srv)],
  ];
  for (let r = 0; r < REPEATS; r++)
    for (const [name, start] of r % 2 === 0 ? order : [...order].reverse()) {
      const result = await leg(name, start, seg, runners);
      legs.push({ repeat: r, ...result });
      console.log(JSON.stringify(legs.at(-1)));
    }
  const median = (name, key) =>
    pct(
      legs.filter((l) => l.server === name && l[key] !== undefined).map((l) => l[key]),
      50,
    );
  const summary = {
    allLoadedMs: { bootsmith: median('bootsmith', 'allLoadedMs'), dnsmasq: median('dnsmasq', 'allLoadedMs') },
    ratioAllLoaded:
      median('dnsmasq', 'allLoadedMs') && median('bootsmith', 'allLoadedMs')
        ? Number((median('bootsmith', 'allLoadedMs') / median('dnsmasq', 'allLoadedMs')).toFixed(2))
        : undefined,
  };
  const out = {
    date: new Date().toISOString(),
    workload: `pxe-fleet: ${CLIENTS} EDK2-like PXE clients at once, DISCOVER → (4011) → TFTP ${LOADER} blksize 1468`,
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memGiB: Math.round(os.totalmem() / 2 ** 30) },
    loader: { path: LOADER, bytes: readFileSync(LOADER).length, sha256: loaderSha },
    legs,
    summary,
  };
  const file = path.join(ROOT, 'bench', 'results', `${out.date.slice(0, 10)}-pxe-fleet.json`);
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(JSON.stringify(summary));
  console.log(`wrote ${path.relative(ROOT, file)}`);
} finally {
  cleanup();
}
