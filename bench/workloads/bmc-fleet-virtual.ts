// Workload 10, bmc-fleet-virtual (issue 27, deliverable 8): N (default 200) emulated BMCs (HTTPS,
// mixed vendor profiles) in front of virtual guests (no VM), each reading from its own loopback
// address (127.0.x.y, as each BMC has its own on a real network), all booted by ONE
// `bootsmith bmc boot --all --infra-env ID --wait booted` (the real CLI) and followed to `booted`:
// the guests cannot run the agent, so no host registers. At the boot from CD each guest reads the
// served ISO the way qemu's curl driver does (test/support/redfish-emulator/curl-read-plan.ts,
// block/curl.c: one GET at a time, each the guest's 64 KiB read + 256 KiB readahead): the volume
// descriptors, then the kernel, the initramfs and ignition.img — what a boot loader loads and what
// the job's "booted" rule needs covered.
//
// Recorded: wall time, jobs/s, Redfish calls and retries per host (jobs' steps, against the
// emulators' own logs), the service's CPU per host and per GiB served, p50/p99 of the guests' range
// reads under that load, the service's peak RSS (VmHWM, reset before), database transactions.
// Reference in the same run: nginx serving the plain ISO file to the same number of virtual guests
// with the same read plan from the same addresses, each starting at the same offset from the first
// as its counterpart did against bootsmith (the range path's ratio); both byte counts are checked
// against the plan before any figure.
// Does NOT: assert anything: it measures.
import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  curlReadPlan,
  type EmulatedBmc,
  emulatedMacs,
  makeTestCertificates,
  startVirtualBmc,
  VirtualGuest,
} from '../../test/support/redfish-emulator/index.js';
import { PULL_SECRET } from '../lib/bootsmith.js';
import {
  addBmc,
  bootableIso,
  databaseTransactions,
  hostTimings,
  listBmcs,
  medianGap,
  profileOf,
  runCli,
  serviceCpu,
  waitBmcsChecked,
} from '../lib/bmc-fleet.js';
import { percentile } from '../lib/stats.js';
import type { Context } from '../lib/context.js';
import { Nginx } from '../lib/nginx.js';
import { memoryStatus, resetPeakRss, sleep } from '../lib/proc.js';
import { type Figure, figure } from '../lib/report.js';
import { round } from '../lib/system.js';

/** Every emulator profile that mounts plain HTTP images (hpe-ilo7 needs HTTPS ISOs: workload 9 covers it). */
export const VIRTUAL_FLEET_PROFILES = [
  'generic',
  'dell-idrac',
  'dell-idrac10',
  'supermicro',
  'lenovo-xcc',
  'cisco',
  'transfer-stream',
];
const PASSWORD = 'bench-virtual-BMC-pass';
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bench@bootsmith';
/** BMCs added to the service at once (each add is a row and a queued refresh job). */
const ADD_CONCURRENCY = 20;

/** The i-th BMC's own loopback address: 127.0.1.1 … 127.0.1.250, 127.0.2.1 … */
export function fleetAddress(i: number): string {
  return `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
}

interface Reads {
  latenciesMs: number[];
  requests: number;
  bytes: number;
  errors: string[];
}

function readsOf(guests: readonly VirtualGuest[]): Reads {
  const latenciesMs: number[] = [];
  let bytes = 0;
  let requests = 0;
  const errors: string[] = [];
  for (const g of guests) {
    for (const r of g.requests) if (r.method === 'GET' && r.ms !== undefined) latenciesMs.push(r.ms);
    for (const b of g.boots) {
      if (!b.fromCd) continue;
      bytes += b.bytes;
      requests += b.requests;
      if (b.error) errors.push(b.error);
    }
  }
  return { latenciesMs, requests, bytes, errors };
}

export async function bmcFleetVirtual(ctx: Context): Promise<Figure[]> {
  const o = ctx.options;
  const n = o.bmcs;
  const iso = await bootableIso(ctx.repoRoot, ctx.serviceMain, ctx.log);
  const plan = curlReadPlan(iso.size, { extents: iso.bootExtents });
  const planBytes = plan.reduce((sum, r) => sum + (r.end - r.start + 1), 0);
  const dir = path.join(ctx.runDir, 'bmc-virtual');
  mkdirSync(dir, { recursive: true });
  const certs = makeTestCertificates(dir);
  const service = await ctx.startBootsmith('bmc-virtual', { isoPath: iso.path, env: { LOG_LEVEL: 'warn' } });
  const fleet: { bmc: EmulatedBmc; guest: VirtualGuest }[] = [];
  let nginx: Nginx | undefined;
  try {
    const env = await service.api<{ id: string }>('POST', '/infra-envs', {
      name: 'bench-bmc-virtual',
      pull_secret: PULL_SECRET,
      ssh_authorized_key: SSH_KEY,
      openshift_version: '4.17',
      cpu_architecture: 'x86_64',
      image_type: 'full-iso',
    });
    for (let i = 0; i < n; i++) {
      fleet.push(
        await startVirtualBmc({
          name: `v${String(i + 1).padStart(3, '0')}`,
          profile: profileOf(o.bmcProfilesVirtual, i),
          username: 'root',
          password: PASSWORD,
          tls: certs,
          macs: emulatedMacs(1000 + i),
          uuid: randomUUID(),
          read: { extents: iso.bootExtents },
          localAddress: fleetAddress(i),
          keepAlive: !o.bmcConnectionPerRead,
        }),
      );
    }
    for (let i = 0; i < n; i += ADD_CONCURRENCY) {
      await Promise.all(
        fleet.slice(i, i + ADD_CONCURRENCY).map(({ bmc }) =>
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
    await waitBmcsChecked(service, env.id, n, 10 * 60_000);
    ctx.log(
      `  ${n} emulated BMCs with virtual guests checked; each boot reads ${plan.length} ranges, ${round(planBytes / 2 ** 20, 1)} MiB`,
    );

    const bmcRequests0 = fleet.map((f) => f.bmc.requests.length);
    resetPeakRss(service.pid);
    const cpu0 = serviceCpu(service);
    const tx0 = await databaseTransactions(service.options.dataDir);
    const load0 = os.loadavg();
    const benchCpu0 = process.cpuUsage();
    const t0 = Date.now();
    const boot = await runCli(
      ctx.serviceMain,
      ['bmc', 'boot', '--all', '--infra-env', env.id, '--wait', 'booted', '--timeout', '20m'],
      { BOOTSMITH_URL: service.controlUrl },
    );
    const cpu1 = serviceCpu(service);
    const load1 = os.loadavg();
    const benchCpu = process.cpuUsage(benchCpu0);
    const peak = memoryStatus(service.pid);
    await Promise.all(fleet.map((f) => f.guest.settled()));
    await sleep(1100); // pg_stat_database is flushed at most once a second
    const tx1 = await databaseTransactions(service.options.dataDir);
    const bmcs = await listBmcs(service, env.id);
    const hosts = hostTimings(bmcs, t0);
    const booted = hosts.filter((h) => h.booted !== undefined);
    const served = readsOf(fleet.map((f) => f.guest));
    const emulatorCounts = fleet.map((f, i) => f.bmc.requests.length - bmcRequests0[i]!);
    const cpuNode = cpu1.node - cpu0.node;
    ctx.log(
      `  bmc boot --all --wait booted: exit ${boot.code} in ${boot.seconds.toFixed(1)} s; ${booted.length}/${n} booted; ` +
        `${served.requests} range reads, ${round(served.bytes / 2 ** 30, 2)} GiB; service ${cpuNode.toFixed(1)} CPU-s`,
    );
    if (boot.code !== 0) ctx.log(`  ${boot.stderr.trim().split('\n').slice(0, 20).join('\n  ')}`);
    const readAll = fleet.filter((f) => f.guest.boots.some((b) => b.fromCd && b.done)).length;
    if (served.bytes !== planBytes * readAll || served.errors.length > 0 || booted.length === 0)
      throw new Error(
        `bootsmith served ${served.bytes} bytes to ${readAll} guests that read their whole plan (${planBytes} each), ` +
          `${booted.length} booted; errors: ${served.errors.slice(0, 5).join('; ')}`,
      );
    // When each guest started reading, relative to the first: the nginx leg starts its guests alike.
    const startsAt = fleet.map((f) => f.guest.boots.find((b) => b.fromCd)?.at.getTime() ?? NaN);
    const first = Math.min(...startsAt.filter((x) => Number.isFinite(x)));

    // The range path alone: the same reads from the same addresses with the same start offsets,
    // no BMC calls, against bootsmith (the InfraEnv's own download URL) and against nginx (the
    // plain ISO file): the range path's ratio, as the other range workloads measure it.
    const replay = async (url: string, serverCpu: () => number) => {
      const guests = fleet.map(
        (_f, i) =>
          new VirtualGuest({
            read: { extents: iso.bootExtents },
            localAddress: fleetAddress(i),
            keepAlive: !o.bmcConnectionPerRead,
          }),
      );
      for (const g of guests) await g.insertMedia(url);
      const c0 = serverCpu();
      const b0 = process.cpuUsage();
      const r0 = performance.now();
      await Promise.all(
        guests.map(async (g, i) => {
          await sleep(Number.isFinite(startsAt[i]!) ? startsAt[i]! - first : 0);
          await g.powerOn(true);
          await g.settled();
        }),
      );
      const seconds = (performance.now() - r0) / 1000;
      const reads = readsOf(guests);
      if (reads.bytes !== planBytes * n || reads.errors.length > 0)
        throw new Error(`${url}: ${reads.bytes} bytes served to ${n} guests, the plan is ${planBytes} each`);
      return { seconds, cpu: serverCpu() - c0, benchCpu: process.cpuUsage(b0), reads };
    };
    const downloadUrl = (await service.api<{ download_url: string }>('GET', `/infra-envs/${env.id}`)).download_url;
    const alone = await replay(downloadUrl, () => service.cpuSeconds());
    const nginxDir = path.join(dir, 'nginx');
    mkdirSync(Nginx.www(nginxDir), { recursive: true });
    linkSync(iso.path, path.join(Nginx.www(nginxDir), 'discovery.iso'));
    nginx = await Nginx.start({
      binary: ctx.tools.nginx,
      dir: nginxDir,
      workers: o.nginxWorkers,
      sendfile: o.nginxSendfile,
    });
    const ngx = nginx;
    const reference = await replay(`${ngx.url}/discovery.iso`, () => ngx.cpuSeconds());
    const cpuOf = (u: NodeJS.CpuUsage) => round((u.user + u.system) / 1e6, 2);
    const nginxSeconds = reference.seconds;
    const nginxCpu = reference.cpu;
    ctx.log(
      `  reads alone: bootsmith ${alone.seconds.toFixed(1)} s, ${alone.cpu.toFixed(2)} CPU-s, p50/p99 ` +
        `${percentile(alone.reads.latenciesMs, 50).toFixed(1)}/${percentile(alone.reads.latenciesMs, 99).toFixed(1)} ms; ` +
        `nginx ${reference.seconds.toFixed(1)} s, ${reference.cpu.toFixed(2)} CPU-s, p50/p99 ` +
        `${percentile(reference.reads.latenciesMs, 50).toFixed(1)}/${percentile(reference.reads.latenciesMs, 99).toFixed(1)} ms; ` +
        `under the fleet bootsmith p50/p99 ${percentile(served.latenciesMs, 50).toFixed(1)}/${percentile(served.latenciesMs, 99).toFixed(1)} ms`,
    );

    const gib = served.bytes / 2 ** 30;
    const calls = hosts.map((h) => h.redfishCalls);
    const lastBooted = Math.max(...booted.map((h) => h.booted!));
    const firstReadAfter = (first - t0) / 1000;
    const details = {
      bmcs: n,
      connections: o.bmcConnectionPerRead ? 'one per range read' : 'one keep-alive connection per boot (qemu curl)',
      profiles: o.bmcProfilesVirtual,
      readPlan: { ranges: plan.length, bytes: planBytes, extents: iso.bootExtents, iso: iso.path, isoBytes: iso.size },
      cliExitCode: boot.code,
      cliSeconds: round(boot.seconds, 1),
      cliStderr: boot.stderr.slice(-4000),
      booted: booted.length,
      jobsPerSecond: round(booted.length / lastBooted, 2),
      medianSeconds: {
        startToInserted: round(
          percentile(
            hosts.map((h) => h.inserted ?? NaN),
            50,
          ),
          2,
        ),
        insertedToFirstRead: medianGap(hosts, 'inserted', 'firstRead'),
        firstReadToBooted: medianGap(hosts, 'firstRead', 'booted'),
      },
      redfish: {
        callsPerHostMedian: percentile(calls, 50),
        callsPerHostMax: Math.max(...calls),
        callsTotal: calls.reduce((a, b) => a + b, 0),
        retriesTotal: hosts.reduce((a, h) => a + h.retries, 0),
        requestsAtEmulatorTotal: emulatorCounts.reduce((a, b) => a + b, 0),
      },
      served: {
        requests: served.requests,
        bytes: served.bytes,
        p50Ms: round(percentile(served.latenciesMs, 50), 2),
        p99Ms: round(percentile(served.latenciesMs, 99), 2),
      },
      readsAlone: {
        requests: alone.reads.requests,
        bytes: alone.reads.bytes,
        p50Ms: round(percentile(alone.reads.latenciesMs, 50), 2),
        p99Ms: round(percentile(alone.reads.latenciesMs, 99), 2),
        seconds: round(alone.seconds, 1),
        cpuSeconds: round(alone.cpu, 2),
      },
      nginx: {
        requests: reference.reads.requests,
        bytes: reference.reads.bytes,
        p50Ms: round(percentile(reference.reads.latenciesMs, 50), 2),
        p99Ms: round(percentile(reference.reads.latenciesMs, 99), 2),
        seconds: round(nginxSeconds, 1),
        cpuSeconds: round(nginxCpu, 2),
      },
      serviceCpuSeconds: { node: round(cpuNode, 2), withPostgres: round(cpu1.tree - cpu0.tree, 2) },
      peakRssMiB: peak ? round(peak.hwmKiB / 1024, 1) : null,
      databaseTransactions: tx0 !== undefined && tx1 !== undefined ? tx1 - tx0 : null,
      // The guests' clients and the emulated BMCs share the bench's process: during bootsmith's
      // leg it also answers the service's Redfish calls, which delays the clients' own timing.
      benchProcessCpuSeconds: {
        fleetLeg: cpuOf(benchCpu),
        readsAloneLeg: cpuOf(alone.benchCpu),
        nginxLeg: cpuOf(reference.benchCpu),
      },
      firstReadAfterSeconds: round(firstReadAfter, 2),
      machine: {
        cpus: os.cpus().length,
        loadBefore: load0.map((x) => round(x, 2)),
        loadAfter: load1.map((x) => round(x, 2)),
      },
      failures: hosts
        .filter((h) => h.booted === undefined)
        .map((h) => `${h.bmc}: ${h.error ?? h.state}`)
        .slice(0, 20),
    };
    return [
      figure({
        id: 'bmc-virtual-wall',
        workload: 10,
        title: `BMC fleet, ${n} virtual guests: one bmc boot --all to all booted`,
        unit: 's',
        value: lastBooted,
        // what it would take if the reads were nginx's: the same time to the first read, then
        // nginx serving the same reads with the same start offsets
        comparator: { name: 'same first read + nginx serving the reads', value: firstReadAfter + nginxSeconds },
        higherIsBetter: false,
        details,
      }),
      figure({
        id: 'bmc-virtual-range-p99',
        workload: 10,
        title: 'BMC fleet (virtual): ISO range read p99 under the fleet',
        unit: 'ms',
        value: details.served.p99Ms,
        comparator: { name: 'nginx', value: details.nginx.p99Ms },
        higherIsBetter: false,
        details: { p50Ms: { bootsmith: details.served.p50Ms, nginx: details.nginx.p50Ms } },
      }),
      figure({
        id: 'bmc-virtual-range-alone-p99',
        workload: 10,
        title: 'BMC fleet (virtual): range read p99, the same reads without the fleet',
        unit: 'ms',
        value: details.readsAlone.p99Ms,
        comparator: { name: 'nginx', value: details.nginx.p99Ms },
        higherIsBetter: false,
        details: { p50Ms: { bootsmith: details.readsAlone.p50Ms, nginx: details.nginx.p50Ms } },
      }),
      figure({
        id: 'bmc-virtual-range-alone-cpu-per-gib',
        workload: 10,
        title: 'BMC fleet (virtual): server CPU per GiB, the same reads without the fleet',
        unit: 'CPU-s',
        value: alone.cpu / (alone.reads.bytes / 2 ** 30),
        comparator: { name: 'nginx', value: nginxCpu / (reference.reads.bytes / 2 ** 30) },
        higherIsBetter: false,
      }),
      figure({
        id: 'bmc-virtual-cpu-per-gib',
        workload: 10,
        title: 'BMC fleet (virtual): service CPU per GiB served (job engine included)',
        unit: 'CPU-s',
        value: cpuNode / gib,
        comparator: { name: 'nginx (reads only)', value: nginxCpu / (reference.reads.bytes / 2 ** 30) },
        higherIsBetter: false,
        details: { cpuPerHost: round(cpuNode / n, 3), nginxCpuPerHost: round(nginxCpu / n, 3) },
      }),
      figure({
        id: 'bmc-virtual-redfish-calls',
        workload: 10,
        title: "BMC fleet (virtual): Redfish calls per host (jobs' steps)",
        unit: 'calls',
        value: details.redfish.callsTotal / n,
        comparator: { name: 'requests the emulated BMCs logged', value: details.redfish.requestsAtEmulatorTotal / n },
        higherIsBetter: false,
      }),
    ];
  } finally {
    await nginx?.stop();
    for (const f of fleet) {
      await f.bmc.close();
      await f.guest.close();
    }
    await service.stop();
  }
}
