// Workload 13, `ipxe-fleet` (issue 32, deliverable 7's second half): 100 iPXE clients at once
// through the PXE front door to their InfraEnvs' scripts. Each client does what iPXE does after
// its DHCP answer names /boot.ipxe: GET /boot.ipxe, then the URL of its `chain` line with the
// client's own ${netX/mac:hexhyp}, ${uuid}, ${serial:uristring}, ${buildarch} and ${platform}
// filled in, which answers the InfraEnv's iPXE script; it stops there (no kernel, no initrd). A
// new connection per request from its own loopback address (127.13.x.y); a failed second hop is
// retried as boot.ipxe says (its `sleep`, at most its attempts), as iPXE would run it. A leg is
// ROUNDS such fleets one after another (more samples per hop; CPU read per thread from
// /proc/<pid>/task/*/schedstat, as 100 static answers cost nginx less than /proc/<pid>/stat's tick).
//
// The hosts are matched by a mix of sources, a quarter each: an assignment by MAC (the admin
// API), an InfraEnv's mac_interface_map, an earlier registration (host id = the System UUID in
// dmidecode's byte order; the client sends iPXE's), and unknown (PXE_DEFAULT_INFRA_ENV, a pool):
// four InfraEnvs, so each client's script names the InfraEnv its source must give. bootsmith
// runs with PXE_FRONT_DOOR=on on the embedded PostgreSQL; it is restarted once after the set-up
// (the pool's id is a setting). A first pass, untimed in the ratios, records every host's first
// decision (the boot events are written then: one per host per 10 minutes afterwards) and
// captures each answer; the comparator is nginx serving those same bytes as static files over
// the same two hops (boot.ipxe with nginx's address; `location = /pxe/host.ipxe` answers
// `hosts/$arg_mac.ipxe`). Legs alternate per repeat (ABBA). Checked on every leg: each client's
// final script names its InfraEnv (nginx: byte for byte the captured answer), and statuses and
// bytes; after the bootsmith legs its own answer counters
// (bootsmith_pxe_front_door_answers_total) by source.
// Does NOT: fetch the kernel or initrd, speak DHCP or TFTP (bench/pxe-fleet.mjs does), or keep
// connections alive.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { type Bootsmith, sumMetric } from '../lib/bootsmith.js';
import { accounted, type Context, type CpuAccount } from '../lib/context.js';
import { Nginx } from '../lib/nginx.js';
import { treeCpuSeconds } from '../lib/proc.js';
import { type Figure, figure } from '../lib/report.js';
import { median, percentile, spread } from '../lib/stats.js';
import { backgroundLoad, type Background, round } from '../lib/system.js';

const PXE_ADMIN = '/api/bootsmith/v1';
const SOURCES = ['assignment', 'mac_interface_map', 'registration', 'default'] as const;
type Source = (typeof SOURCES)[number];
type Server = 'bootsmith' | 'nginx';
const REQUEST_TIMEOUT_MS = 30_000;
/** Fleets per leg, one after another: more samples per hop, and CPU above /proc's resolution. */
const ROUNDS = 5;
const NETWORK_YAML = 'interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n';

interface IpxeHost {
  index: number;
  mac: string;
  /** As iPXE's ${uuid} reads it. */
  uuid: string;
  serial: string;
  source: Source;
  infraEnvId: string;
  /** A loopback address of its own. */
  address: string;
}

interface ClientResult {
  ok: boolean;
  error: string | undefined;
  /** connect → last byte of /boot.ipxe, and of the answered host script (its last attempt). */
  bootMs: number;
  scriptMs: number;
  /** Its fleet's start → its script. */
  doneMs: number;
  attempts: number;
  statuses: number[];
  bytes: number;
  script: string;
}

/** dmidecode's spelling of a System UUID iPXE reads the other way (the first three fields byte-swapped). */
function dmidecodeOrder(uuid: string): string {
  const swap = (hex: string) => (hex.match(/../g) ?? []).reverse().join('');
  const [a = '', b = '', c = '', ...rest] = uuid.split('-');
  return [swap(a), swap(b), swap(c), ...rest].join('-');
}

/** One GET on a connection of its own, from `localAddress`; never rejects (status 0: no answer). */
function get(url: string, localAddress: string): Promise<{ status: number; body: string; ms: number; error?: string }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const done = (status: number, body: string, error?: string) =>
      resolve({ status, body, ms: performance.now() - t0, ...(error ? { error } : {}) });
    const req = http.get(
      url,
      { agent: false, localAddress, headers: { 'User-Agent': 'iPXE/1.21.1 (bench)' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
        res.on('error', (err) => done(0, '', err.message));
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) => done(0, '', err.message));
  });
}

/** What boot.ipxe tells iPXE: the chain URL with this host's settings, and its retry rule. */
function chainOf(script: string, host: Pick<IpxeHost, 'mac' | 'uuid' | 'serial'>) {
  const settings: Record<string, string> = {
    'netX/mac:hexhyp': host.mac.replaceAll(':', '-'),
    uuid: host.uuid,
    'serial:uristring': encodeURIComponent(host.serial),
    buildarch: 'x86_64',
    platform: 'efi',
  };
  const line = /^chain (?:--\S+ )*(\S+)/m.exec(script);
  if (!line) throw new Error(`boot.ipxe has no chain line:\n${script}`);
  const url = line[1]!.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
    const value = settings[name];
    if (value === undefined) throw new Error(`boot.ipxe asks for \${${name}}, which this client does not fill in`);
    return value;
  });
  const attempts = Number(/iseq \$\{attempt\} (\d+)/.exec(script)?.[1] ?? 1);
  const sleepSeconds = Number(/^sleep (\d+)$/m.exec(script)?.[1] ?? 0);
  return { url, attempts, sleepSeconds };
}

async function client(bootUrl: string, host: IpxeHost, legStart: number): Promise<ClientResult> {
  const r: ClientResult = {
    ok: false,
    error: undefined,
    bootMs: NaN,
    scriptMs: NaN,
    doneMs: NaN,
    attempts: 0,
    statuses: [],
    bytes: 0,
    script: '',
  };
  const boot = await get(bootUrl, host.address);
  r.bootMs = boot.ms;
  r.statuses.push(boot.status);
  r.bytes += Buffer.byteLength(boot.body);
  if (boot.status !== 200 || !boot.body.startsWith('#!ipxe')) {
    r.error = `boot.ipxe: ${boot.status} ${boot.error ?? boot.body.slice(0, 120)}`;
    return r;
  }
  const chain = chainOf(boot.body, host);
  for (;;) {
    r.attempts++;
    const answer = await get(chain.url, host.address);
    r.statuses.push(answer.status);
    r.bytes += Buffer.byteLength(answer.body);
    r.scriptMs = answer.ms;
    if (answer.status === 200) {
      r.script = answer.body;
      r.doneMs = performance.now() - legStart;
      r.ok = true;
      return r;
    }
    r.error = `host script: ${answer.status} ${answer.error ?? answer.body.slice(0, 120)}`;
    if (r.attempts >= chain.attempts) return r;
    await new Promise((resolve) => setTimeout(resolve, chain.sleepSeconds * 1000));
  }
}

interface Leg {
  repeat: number;
  server: Server;
  background: Background;
  rounds: number;
  /** Median over the rounds of the time until every client had its script. */
  allScriptsMs: number;
  allScriptsMsPerRound: number[];
  /** Over every client of every round. */
  bootP50: number;
  bootP99: number;
  scriptP50: number;
  scriptP99: number;
  doneP50: number;
  errors: number;
  retried: number;
  firstErrors: string[];
  statuses: Record<string, number>;
  bytes: number;
  /** For the whole leg; the figures divide by the rounds. */
  cpu: CpuAccount;
  serverCpuPerRound: number;
  machineCpuPerRound: number;
}

/**
 * `rounds` times, all clients at once against one server (the next round when the last client
 * of this one is done); checks each final script with `check`.
 */
async function leg(
  hosts: readonly IpxeHost[],
  bootUrl: string,
  serverCpu: () => number,
  check: (host: IpxeHost, script: string) => string | undefined,
  rounds: number,
): Promise<{ rounds: ClientResult[][]; cpu: CpuAccount }> {
  const c0 = process.cpuUsage();
  const { result, cpu } = await accounted(serverCpu, async () => {
    const all: ClientResult[][] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      all.push(await Promise.all(hosts.map((h) => client(bootUrl, h, t0))));
    }
    const used = process.cpuUsage(c0);
    return { rounds: all, clientCpuSeconds: (used.user + used.system) / 1e6 };
  });
  for (const fleet of result.rounds)
    fleet.forEach((res, i) => {
      const wrong = res.ok ? check(hosts[i]!, res.script) : undefined;
      if (wrong) {
        res.ok = false;
        res.error = wrong;
      }
    });
  return { rounds: result.rounds, cpu };
}

function summarize(repeat: number, server: Server, background: Background, run: Awaited<ReturnType<typeof leg>>): Leg {
  const results = run.rounds.flat();
  const ok = results.filter((r) => r.ok);
  const statuses: Record<string, number> = {};
  for (const s of results.flatMap((r) => r.statuses)) statuses[s] = (statuses[s] ?? 0) + 1;
  const ms = (xs: number[], p: number) => round(percentile(xs, p), 2);
  const perRound = run.rounds.map((rs) =>
    rs.every((r) => r.ok) ? round(Math.max(...rs.map((r) => r.doneMs)), 1) : NaN,
  );
  const rounds = run.rounds.length;
  return {
    repeat,
    server,
    background,
    rounds,
    allScriptsMs: perRound.some(Number.isNaN) ? NaN : median(perRound),
    allScriptsMsPerRound: perRound,
    bootP50: ms(
      results.map((r) => r.bootMs),
      50,
    ),
    bootP99: ms(
      results.map((r) => r.bootMs),
      99,
    ),
    scriptP50: ms(
      ok.map((r) => r.scriptMs),
      50,
    ),
    scriptP99: ms(
      ok.map((r) => r.scriptMs),
      99,
    ),
    doneP50: ms(
      ok.map((r) => r.doneMs),
      50,
    ),
    errors: results.length - ok.length,
    retried: results.filter((r) => r.attempts > 1).length,
    firstErrors: [...new Set(results.flatMap((r) => (r.error && !r.ok ? [r.error] : [])))].slice(0, 5),
    statuses,
    bytes: results.reduce((a, r) => a + r.bytes, 0),
    cpu: run.cpu,
    serverCpuPerRound: round(run.cpu.serverCpuSeconds / rounds, 4),
    machineCpuPerRound: round(run.cpu.machineBusySeconds / rounds, 3),
  };
}

/** Four InfraEnvs, the hosts and what makes each source name its host. */
async function setUp(service: Bootsmith, count: number): Promise<{ hosts: IpxeHost[]; pool: string }> {
  const ids = {} as Record<Source, string>;
  for (const source of SOURCES) ids[source] = (await service.createInfraEnv(`ipxe-fleet-${source}`)).id;
  const hosts: IpxeHost[] = Array.from({ length: count }, (_, i) => {
    const source = SOURCES[i % SOURCES.length]!;
    const hex = (n: number) => n.toString(16).padStart(2, '0');
    return {
      index: i,
      mac: `52:54:00:13:${hex(i >> 8)}:${hex(i & 255)}`,
      uuid: randomUUID(),
      serial: `SN ${String(i).padStart(4, '0')}`,
      source,
      infraEnvId: ids[source],
      address: `127.13.${i >> 8}.${(i & 255) + 1}`,
    };
  });
  const of = (source: Source) => hosts.filter((h) => h.source === source);
  for (const h of of('assignment'))
    await service.api('PUT', `/pxe/assignments/${h.mac}`, { infra_env_id: h.infraEnvId }, PXE_ADMIN);
  await service.api('PATCH', `/infra-envs/${ids.mac_interface_map}`, {
    static_network_config: of('mac_interface_map').map((h) => ({
      network_yaml: NETWORK_YAML,
      mac_interface_map: [{ mac_address: h.mac, logical_nic_name: 'eth0' }],
    })),
  });
  for (const h of of('registration')) await service.registerHost(h.infraEnvId, dmidecodeOrder(h.uuid));
  return { hosts, pool: ids.default };
}

async function answerCounts(service: Bootsmith): Promise<Record<Source, number>> {
  const text = await (await fetch(`${service.controlUrl}/metrics`)).text();
  const counts = {} as Record<Source, number>;
  for (const s of SOURCES)
    counts[s] = sumMetric(text, 'bootsmith_pxe_front_door_answers_total', { kind: 'ipxe', outcome: s });
  return counts;
}

export async function ipxeFleet(ctx: Context): Promise<Figure[]> {
  const o = ctx.options;
  const count = o.ipxeClients;
  const env = { PXE_FRONT_DOOR: 'on' };
  const first = await ctx.startBootsmith('bootsmith-ipxe-fleet', { env });
  const { hosts, pool } = await setUp(first, count).finally(() => first.stop());
  const service = await ctx.startBootsmith('bootsmith-ipxe-fleet', { env: { ...env, PXE_DEFAULT_INFRA_ENV: pool } });
  const nginxDir = path.join(ctx.runDir, 'nginx-ipxe-fleet');
  let ngx: Nginx | undefined;
  try {
    const bootUrl = `${service.url}/boot.ipxe`;
    const names = (h: IpxeHost, script: string) =>
      script.startsWith('#!ipxe') && script.includes(`/images/${h.infraEnvId}/`)
        ? undefined
        : `${h.mac} (${h.source}) was not answered InfraEnv ${h.infraEnvId}'s script: ${script.slice(0, 160)}`;
    const cpuOfService = () => treeCpuSeconds(service.pid);

    // the first pass: every host's first decision (events written), and the answers nginx will serve
    const firstPass = summarize(
      -1,
      'bootsmith',
      await backgroundLoad(),
      await leg(hosts, bootUrl, cpuOfService, names, 1),
    );
    ctx.log(
      `  first pass (bootsmith, events written): all ${count} scripts in ${firstPass.allScriptsMs} ms, ${firstPass.errors} errors, ${firstPass.retried} retried`,
    );
    const captured = (await leg(hosts, bootUrl, cpuOfService, names, 1)).rounds[0]!;
    const wrong = captured.find((r) => !r.ok);
    if (wrong) throw new Error(`capturing the answers: ${wrong.error}`);

    mkdirSync(path.join(Nginx.www(nginxDir), 'hosts'), { recursive: true });
    ngx = await Nginx.start({
      binary: ctx.tools.nginx,
      dir: nginxDir,
      workers: o.nginxWorkers,
      serverConfig:
        'location = /pxe/host.ipxe { default_type text/plain; try_files /hosts/$arg_mac.ipxe =404; }\n' +
        '    location = /boot.ipxe { default_type text/plain; }',
    });
    const bootScript = (await (await fetch(bootUrl)).text()).replaceAll(service.url, ngx.url);
    if (!bootScript.includes(`chain --autofree ${ngx.url}/pxe/host.ipxe?`))
      throw new Error(`boot.ipxe does not chain to ${service.url}/pxe/host.ipxe:\n${bootScript}`);
    writeFileSync(path.join(ngx.wwwDir, 'boot.ipxe'), bootScript);
    hosts.forEach((h, i) =>
      writeFileSync(path.join(ngx!.wwwDir, 'hosts', `${h.mac.replaceAll(':', '-')}.ipxe`), captured[i]!.script),
    );
    const same = (h: IpxeHost, script: string) =>
      script === captured[h.index]!.script ? undefined : `${h.mac}: nginx served other bytes than captured`;
    const nginxServer = ngx;

    const before = await answerCounts(service);
    const legs: Leg[] = [];
    for (let r = 0; r < o.repeats; r++) {
      const order: Server[] = r % 2 === 0 ? ['nginx', 'bootsmith'] : ['bootsmith', 'nginx'];
      for (const server of order) {
        const background = await backgroundLoad();
        const run =
          server === 'nginx'
            ? await leg(
                hosts,
                `${nginxServer.url}/boot.ipxe`,
                () => treeCpuSeconds(nginxServer.process.pid),
                same,
                ROUNDS,
              )
            : await leg(hosts, bootUrl, cpuOfService, names, ROUNDS);
        const l = summarize(r, server, background, run);
        legs.push(l);
        ctx.log(
          `  ${server.padEnd(9)} all ${count} scripts in ${l.allScriptsMs} ms; boot.ipxe p50/p99 ${l.bootP50}/${l.bootP99} ms, ` +
            `host script p50/p99 ${l.scriptP50}/${l.scriptP99} ms; ${l.errors} errors, ${l.retried} retried; ` +
            `per round: server ${l.serverCpuPerRound} CPU-s, machine ${l.machineCpuPerRound} CPU-s (load before ${l.background.loadAverage1m})`,
        );
      }
    }
    const after = await answerCounts(service);
    const bootsmithLegs = legs.filter((l) => l.server === 'bootsmith').length;
    const perSource = count / SOURCES.length;
    const bySource = Object.fromEntries(SOURCES.map((s) => [s, after[s] - before[s]])) as Record<Source, number>;
    for (const s of SOURCES)
      if (bySource[s] < Math.floor(perSource) * bootsmithLegs * ROUNDS)
        throw new Error(
          `bootsmith's own counters: ${bySource[s]} answers by ${s} in ${bootsmithLegs} legs of ${ROUNDS} rounds of ${count} hosts`,
        );
    const failed = legs.filter((l) => l.errors > 0);
    if (failed.length > 0)
      throw new Error(
        `${failed.map((l) => `${l.server} (repeat ${l.repeat}): ${l.firstErrors.join('; ')}`).join(' | ')}`,
      );

    const ratios = (f: (l: Leg) => number) =>
      [...Array(o.repeats).keys()].map((r) => {
        const b = legs.find((l) => l.repeat === r && l.server === 'bootsmith')!;
        const n = legs.find((l) => l.repeat === r && l.server === 'nginx')!;
        return f(b) / f(n);
      });
    const details = {
      clients: count,
      sources: Object.fromEntries(SOURCES.map((s) => [s, hosts.filter((h) => h.source === s).length])),
      answersBySource: bySource,
      firstPass,
      legs,
    };
    const make = (id: string, title: string, unit: string, f: (l: Leg) => number, extra = {}) => {
      const rs = ratios(f);
      return figure({
        id: `ipxe-fleet-${id}`,
        workload: 13,
        title,
        unit,
        value: median(legs.filter((l) => l.server === 'bootsmith').map(f)),
        comparator: { name: 'nginx', value: median(legs.filter((l) => l.server === 'nginx').map(f)) },
        ratio: median(rs),
        higherIsBetter: false,
        details: { ratiosPerRepeat: rs.map((x) => round(x, 3)), ratioSpread: round(spread(rs), 3), ...extra },
      });
    };
    return [
      make('all', `${count} iPXE clients at once: all have their script`, 'ms', (l) => l.allScriptsMs, details),
      make('script-p50', 'per-host script (second hop): p50', 'ms', (l) => l.scriptP50),
      make('script-p99', 'per-host script (second hop): p99', 'ms', (l) => l.scriptP99),
      make('boot-p99', 'boot.ipxe (first hop): p99', 'ms', (l) => l.bootP99),
      make('server-cpu', `server CPU per ${count} clients`, 'CPU-s', (l) => l.serverCpuPerRound),
      make('machine-cpu', `whole-machine CPU per ${count} clients`, 'CPU-s', (l) => l.machineCpuPerRound),
    ];
  } finally {
    await ngx?.stop();
    await service.stop();
  }
}
