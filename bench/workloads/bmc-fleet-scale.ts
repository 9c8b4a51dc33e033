// Workload 11, bmc-fleet-scale (issue 33, deliverable 6): a fleet of N (default 1,000) emulated
// BMCs over HTTPS with virtual guests (each reading from its own loopback address in qemu's curl
// pattern, then registering as the discovery agent would), of which one in twenty each
// (test/support/redfish-emulator/fleet-mix.ts) reads at 50 KB/s, accepts TCP and never answers,
// answers 409 to power-on for a minute after power-off, or allows at most 8 sessions. ONE
// `bootsmith bmc boot --all --wait registered` (the real CLI) boots them all.
//
// Checked, before any figure: every healthy host registered; each faulty one ended as its fault
// says, within its bound, alone (test/support/redfish-emulator/fleet-outcomes.ts); no session left open on any BMC.
// Recorded: hosts per hour (registered hosts over the time from the command to the last
// registration), Redfish calls per host, service CPU per host (its Node process; with its
// PostgreSQL) and the whole machine's (the emulators and guests in this process included), the
// service's peak RSS, the range reads' p50/p99 under the fleet; beside the published anchors:
// Ironic's 300 nodes per conductor (800–1,000 reported) and ACM's 500 single-node clusters per hour.
// Scaled for a bench run: BMC_BOOT_TIMEOUT is 120 s (default 15 min: a 50 KB/s reader of the
// 25.5 MiB boot files needs ~9 min, so at the default it would still finish) — documented in
// bench/README.md.
// Does NOT: measure the reads without the fleet (workload 10 does, for the range path's ratio).
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { curlReadPlan, makeTestCertificates } from '../../test/support/redfish-emulator/index.js';
import {
  closeGuests,
  type FleetMember,
  openSessions,
  startFleetMember,
} from '../../test/support/redfish-emulator/fleet-mix.js';
import { judgeFleet, type RoleBounds } from '../../test/support/redfish-emulator/fleet-outcomes.js';
import { PULL_SECRET } from '../lib/bootsmith.js';
import {
  addBmc,
  bootableIso,
  databaseTransactions,
  hostTimings,
  listBmcs,
  runCli,
  serviceCpu,
  waitBmcsSettled,
} from '../lib/bmc-fleet.js';
import { percentile } from '../lib/stats.js';
import type { Context } from '../lib/context.js';
import { machineCpu, memoryStatus, resetPeakRss, sleep } from '../lib/proc.js';
import { type Figure, figure } from '../lib/report.js';
import { round } from '../lib/system.js';
import { fleetAddress, VIRTUAL_FLEET_PROFILES } from './bmc-fleet-virtual.js';

const PASSWORD = 'bench-scale-BMC-pass';
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bench@bootsmith';
const ADD_CONCURRENCY = 20;
/** Scaled from the 15 min default (see the header). */
const BOOT_TIMEOUT_S = 120;
/** Published anchors (issue 33): Ironic per conductor, its reported upper range, ACM's SNO rate. */
const IRONIC_NODES_PER_CONDUCTOR = 300;
const ACM_SNO_PER_HOUR = 500;

export async function bmcFleetScale(ctx: Context): Promise<Figure[]> {
  const n = ctx.options.scaleBmcs;
  const iso = await bootableIso(ctx.repoRoot, ctx.serviceMain, ctx.log);
  const read = { extents: iso.bootExtents };
  const planBytes = curlReadPlan(iso.size, read).reduce((sum, r) => sum + (r.end - r.start + 1), 0);
  const dir = path.join(ctx.runDir, 'bmc-scale');
  mkdirSync(dir, { recursive: true });
  const certs = makeTestCertificates(dir);
  const service = await ctx.startBootsmith('bmc-scale', {
    isoPath: iso.path,
    env: { LOG_LEVEL: 'warn', BMC_BOOT_TIMEOUT: `${BOOT_TIMEOUT_S}s` },
  });
  const members: FleetMember[] = [];
  try {
    const env = await service.api<{ id: string }>('POST', '/infra-envs', {
      name: 'bench-bmc-scale',
      pull_secret: PULL_SECRET,
      ssh_authorized_key: SSH_KEY,
      openshift_version: '4.17',
      cpu_architecture: 'x86_64',
      image_type: 'full-iso',
    });
    for (let i = 0; i < n; i++) {
      members.push(
        await startFleetMember(i, {
          profiles: VIRTUAL_FLEET_PROFILES,
          username: 'root',
          password: PASSWORD,
          tls: certs,
          read,
          localAddress: fleetAddress,
        }),
      );
    }
    for (let i = 0; i < n; i += ADD_CONCURRENCY) {
      await Promise.all(
        members.slice(i, i + ADD_CONCURRENCY).map(({ bmc }) =>
          addBmc(service, {
            name: bmc.name,
            address: bmc.systemUrl,
            username: 'root',
            password: PASSWORD,
            caPem: certs.caPem,
            infraEnvId: env.id,
          }),
        ),
      );
    }
    await waitBmcsSettled(service, env.id, n, 15 * 60_000);
    ctx.log(`  ${n} emulated BMCs added and checked (${members.filter((m) => m.role !== 'healthy').length} faulty)`);

    resetPeakRss(service.pid);
    const cpu0 = serviceCpu(service);
    const machine0 = machineCpu();
    const bench0 = process.cpuUsage();
    const tx0 = await databaseTransactions(service.options.dataDir);
    const load0 = os.loadavg();
    const t0 = Date.now();
    const boot = await runCli(
      ctx.serviceMain,
      ['bmc', 'boot', '--all', '--infra-env', env.id, '--wait', 'registered', '--timeout', '60m'],
      { BOOTSMITH_URL: service.controlUrl },
    );
    const cpu1 = serviceCpu(service);
    const machine1 = machineCpu();
    const benchCpu = process.cpuUsage(bench0);
    const load1 = os.loadavg();
    const peak = memoryStatus(service.pid);
    await closeGuests(members); // the slow readers' reads stop here
    await sleep(1100); // pg_stat_database is flushed at most once a second
    const tx1 = await databaseTransactions(service.options.dataDir);
    const bmcs = await listBmcs(service, env.id);
    const sessionsLeft = openSessions(members);
    const bounds: RoleBounds = { bootTimeoutMs: BOOT_TIMEOUT_S * 1000 };
    const verdict = judgeFleet(members, bmcs, bounds);
    const hosts = hostTimings(bmcs, t0);
    const registered = hosts.filter((h) => h.registered !== undefined);
    const lastRegistered = Math.max(...registered.map((h) => h.registered!));
    const latencies = members
      .filter((m) => m.role === 'healthy')
      .flatMap((m) => m.guest.requests.filter((r) => r.method === 'GET' && r.ms !== undefined).map((r) => r.ms!));
    const cpuNode = cpu1.node - cpu0.node;
    const cpuTree = cpu1.tree - cpu0.tree;
    const machineBusy = machine1.busy - machine0.busy;
    const calls = hosts.map((h) => h.redfishCalls);
    const hostsPerHour = registered.length / (lastRegistered / 3600);
    ctx.log(
      `  bmc boot --all --wait registered: exit ${boot.code} in ${boot.seconds.toFixed(1)} s; ${registered.length}/${n} registered ` +
        `(last at ${lastRegistered.toFixed(1)} s: ${Math.round(hostsPerHour)} hosts/h); service ${cpuNode.toFixed(1)} CPU-s ` +
        `(${cpuTree.toFixed(1)} with PostgreSQL), machine ${machineBusy.toFixed(1)} CPU-s; sessions left open ${sessionsLeft}`,
    );
    for (const line of verdict.roles) ctx.log(`  ${line.summary}`);
    if (verdict.problems.length > 0 || sessionsLeft !== 0)
      throw new Error(
        `the fleet did not end as its faults say: ${[...verdict.problems.slice(0, 20), ...(sessionsLeft ? [`${sessionsLeft} sessions left open`] : [])].join('; ')}`,
      );

    const details = {
      bmcs: n,
      roles: verdict.roles.map((r) => ({ role: r.role, count: r.count, outcome: r.summary })),
      scaled: {
        BMC_BOOT_TIMEOUT: `${BOOT_TIMEOUT_S} s (default 15 min)`,
        slowReaderBytesPerSecond: 50_000,
        powerOnConflictSeconds: 60,
        sessionLimit: 8,
        sessionsUsedByTheClient: false,
      },
      readPlan: { bytesPerHost: planBytes, extents: iso.bootExtents },
      cliExitCode: boot.code,
      cliSeconds: round(boot.seconds, 1),
      cliStderrTail: boot.stderr.slice(-2000),
      registered: registered.length,
      lastRegisteredSeconds: round(lastRegistered, 1),
      hostsPerHour: Math.round(hostsPerHour),
      redfish: {
        callsPerHost: round(calls.reduce((a, b) => a + b, 0) / n, 1),
        callsPerHostMedian: percentile(calls, 50),
        callsPerHostMax: Math.max(...calls),
        retriesTotal: hosts.reduce((a, h) => a + h.retries, 0),
      },
      cpuSeconds: {
        serviceNode: round(cpuNode, 1),
        serviceWithPostgres: round(cpuTree, 1),
        wholeMachine: round(machineBusy, 1),
        benchProcess: round((benchCpu.user + benchCpu.system) / 1e6, 1),
      },
      cpuPerHost: {
        serviceNode: round(cpuNode / n, 3),
        serviceWithPostgres: round(cpuTree / n, 3),
        wholeMachine: round(machineBusy / n, 3),
      },
      peakRssMiB: peak ? round(peak.hwmKiB / 1024, 1) : null,
      databaseTransactions: tx0 !== undefined && tx1 !== undefined ? tx1 - tx0 : null,
      rangeReadsHealthy: {
        requests: latencies.length,
        p50Ms: round(percentile(latencies, 50), 2),
        p99Ms: round(percentile(latencies, 99), 2),
      },
      sessionsLeftOpen: sessionsLeft,
      anchors: {
        ironicNodesPerConductor: IRONIC_NODES_PER_CONDUCTOR,
        ironicReported: '800–1,000 per conductor',
        acmSnoPerHour: ACM_SNO_PER_HOUR,
      },
      machine: {
        cpus: os.cpus().length,
        loadBefore: load0.map((x) => round(x, 2)),
        loadAfter: load1.map((x) => round(x, 2)),
      },
    };
    return [
      figure({
        id: 'bmc-scale-hosts-per-hour',
        workload: 11,
        title: `BMC fleet at scale, ${n} BMCs (1 in 20 each slow, dead, 409, session-limited): hosts registered per hour`,
        unit: 'hosts/h',
        value: hostsPerHour,
        comparator: { name: "ACM's single-node clusters per hour", value: ACM_SNO_PER_HOUR },
        higherIsBetter: true,
        details,
      }),
      figure({
        id: 'bmc-scale-hosts-per-service',
        workload: 11,
        title: 'BMC fleet at scale: hosts one service booted in this run',
        unit: 'hosts',
        value: registered.length,
        comparator: { name: "Ironic's nodes per conductor", value: IRONIC_NODES_PER_CONDUCTOR },
        higherIsBetter: true,
      }),
      figure({
        id: 'bmc-scale-cpu-per-host',
        workload: 11,
        title: 'BMC fleet at scale: service CPU per host (Node process; whole machine as comparator)',
        unit: 'CPU-s',
        value: cpuNode / n,
        comparator: { name: 'whole machine (emulators and guests included)', value: machineBusy / n },
        higherIsBetter: false,
      }),
      figure({
        id: 'bmc-scale-redfish-calls',
        workload: 11,
        title: 'BMC fleet at scale: Redfish calls per host',
        unit: 'calls',
        value: details.redfish.callsPerHost,
        comparator: { name: 'median host', value: details.redfish.callsPerHostMedian },
        higherIsBetter: false,
      }),
    ];
  } finally {
    await closeGuests(members);
    await Promise.all(members.map((m) => m.bmc.close()));
    await service.stop();
  }
}
