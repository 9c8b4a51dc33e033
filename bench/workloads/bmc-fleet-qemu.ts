// Workload 9, bmc-fleet-qemu (issue 27, deliverable 8): N real qemu guests (TCG, 512 MiB, the e2e's
// bootable fixture ISO: Debian's kernel, a busybox initramfs whose agent registers with the
// service) behind emulated BMCs of mixed vendor profiles (test/support/redfish-emulator: HTTPS,
// QMP), booted by ONE `bootsmith bmc boot --all --infra-env ID --wait registered` (the real CLI) and
// followed to "registered" with the media ejected. Recorded: the wall time, per host insert → first
// read → booted → registered (from the jobs' steps), Redfish calls and retries per host (the jobs'
// `calls`/`retries`, cross-checked against the requests each emulated BMC logged), the service's
// CPU (its Node process, and with its embedded PostgreSQL) from /proc, database transactions.
//
// Reference in the same run: the same guests booted again by the same emulator operations issued
// directly (the guest's insert and a reset from the CD, as the emulator does for InsertMedia +
// one-time override + Reset: no Redfish, no job engine) from a second InfraEnv's download URL,
// until every host registered there. The ratio is what the job engine and the Redfish round trips
// add to a fleet boot whose time is mostly the guests' own.
// Does NOT: run without qemu (the workload fails naming it), or assert anything: it measures.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeCa, makeLeaf } from '../../src/http/transport/tls/test-support/certificates.js';
import { qemuTrustingCa } from '../../test/e2e/support/qemu.js';
import {
  type EmulatedBmc,
  emulatedMacs,
  makeTestCertificates,
  QemuGuest,
  startEmulatedBmc,
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
import { run, sleep } from '../lib/proc.js';
import { type Figure, figure } from '../lib/report.js';
import { round } from '../lib/system.js';

/** The e2e fleet's four proven profiles first, then the others: 8 guests cover every profile once. */
export const QEMU_FLEET_PROFILES = [
  'dell-idrac',
  'lenovo-xcc',
  'cisco',
  'hpe-ilo7',
  'supermicro',
  'generic',
  'transfer-stream',
  'dell-idrac10',
];
const PASSWORD = 'bench-fleet-BMC-pass';
/** A TCG boot of the fixture takes 1–3 min alone; eight at once on two loaded cores: generous. */
const FLEET_TIMEOUT = '30m';
const REFERENCE_TIMEOUT_MS = 30 * 60_000;
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bench@bootsmith';

interface Member {
  name: string;
  profile: string;
  uuid: string;
  macs: string[];
  guest: QemuGuest;
  bmc: EmulatedBmc;
}

async function createInfraEnv(
  service: import('../lib/bootsmith.js').Bootsmith,
  name: string,
): Promise<{ id: string; url: string }> {
  const created = await service.api<{ id: string; download_url: string }>('POST', '/infra-envs', {
    name,
    pull_secret: PULL_SECRET,
    ssh_authorized_key: SSH_KEY,
    openshift_version: '4.17',
    cpu_architecture: 'x86_64',
    image_type: 'full-iso',
    // the live system runs from RAM: eject=auto ejects once the host registered
    kernel_arguments: ['console=ttyS0', 'coreos.liveiso.fromram'].map((value) => ({ operation: 'append', value })),
    static_network_config: [],
  });
  return { id: created.id, url: created.download_url };
}

export async function bmcFleetQemu(ctx: Context): Promise<Figure[]> {
  const o = ctx.options;
  const qemuPath = (await run('sh', ['-c', 'command -v qemu-system-x86_64'], { allowFail: true })).stdout.trim();
  if (!qemuPath)
    throw new Error('qemu-system-x86_64 is not installed (apt-get install qemu-system-x86 qemu-block-extra)');
  const iso = await bootableIso(ctx.repoRoot, ctx.serviceMain, ctx.log);
  const dir = path.join(ctx.runDir, 'bmc-qemu');
  mkdirSync(dir, { recursive: true });
  const ca = makeCa(dir, 'bootsmith bench fleet CA');
  // 127.0.0.1: qemu's curl driver and the CLI; 10.0.2.2: the guests' agents on qemu's user network
  const leaf = makeLeaf(dir, ca, 'server', ['127.0.0.1', '10.0.2.2', 'localhost']);
  const service = await ctx.startBootsmith('bmc-qemu', {
    isoPath: iso.path,
    tls: { certFile: leaf.certFile, keyFile: leaf.keyFile },
    serviceBaseUrl: (port) => `https://10.0.2.2:${port}`,
    httpBaseUrl: (plainPort) => `http://127.0.0.1:${plainPort}`,
    env: { AUTH_TYPE: 'local', SERVICE_CA_CERT_FILE: ca.certFile, LOG_LEVEL: 'info' },
  });
  const trust = qemuTrustingCa(dir, qemuPath, ca.certFile);
  if ('why' in trust) throw new Error(`qemu cannot be made to trust the bench CA: ${trust.why}`);
  const bmcCerts = makeTestCertificates(dir);
  const members: Member[] = [];
  try {
    const fleetEnv = await createInfraEnv(service, 'bench-bmc-fleet');
    const directEnv = await createInfraEnv(service, 'bench-bmc-direct');
    for (let i = 0; i < o.guests; i++) {
      const name = `q${String(i + 1).padStart(2, '0')}-${profileOf(o.bmcProfiles, i)}`;
      const uuid = randomUUID();
      const macs = emulatedMacs(300 + i);
      const guest = await QemuGuest.start({
        name: `bench-${name}`,
        qemu: trust.wrapper,
        dir,
        qemuArgs: [
          '-netdev',
          'user,id=n0',
          '-device',
          `virtio-net-pci,netdev=n0,mac=${macs[0]},romfile=`,
          '-uuid',
          uuid,
        ],
      });
      const bmc = await startEmulatedBmc({
        name,
        profile: profileOf(o.bmcProfiles, i),
        username: 'root',
        password: PASSWORD,
        guest,
        tls: bmcCerts,
        macs,
        uuid,
      });
      members.push({ name, profile: profileOf(o.bmcProfiles, i), uuid, macs, guest, bmc });
      await addBmc(service, {
        name,
        address: bmc.systemUrl,
        username: 'root',
        password: PASSWORD,
        caPem: bmcCerts.caPem,
        infraEnvId: fleetEnv.id,
      });
    }
    await waitBmcsChecked(service, fleetEnv.id, members.length, 5 * 60_000);
    ctx.log(
      `  ${members.length} qemu guests behind emulated BMCs (${[...new Set(members.map((m) => m.profile))].join(', ')})`,
    );

    // ONE command boots the fleet and follows every host to registration and eject.
    const bmcRequests0 = members.map((m) => m.bmc.requests.length);
    const cpu0 = serviceCpu(service);
    const tx0 = await databaseTransactions(service.options.dataDir);
    const load0 = os.loadavg();
    const t0 = Date.now();
    const boot = await runCli(
      ctx.serviceMain,
      ['bmc', 'boot', '--all', '--infra-env', fleetEnv.id, '--wait', 'registered', '--timeout', FLEET_TIMEOUT],
      { BOOTSMITH_URL: service.url, BOOTSMITH_TOKEN: service.adminToken ?? '', NODE_EXTRA_CA_CERTS: ca.certFile },
    );
    const cpu1 = serviceCpu(service);
    const load1 = os.loadavg();
    await sleep(1100); // pg_stat_database is flushed at most once a second
    const tx1 = await databaseTransactions(service.options.dataDir);
    writeFileSync(path.join(dir, 'boot.out'), `${boot.stdout}\n${boot.stderr}`);
    const bmcs = await listBmcs(service, fleetEnv.id);
    const hosts = hostTimings(bmcs, t0);
    const emulatorCounts = members.map((m, i) => m.bmc.requests.length - bmcRequests0[i]!);
    const registered = hosts.filter((h) => h.registered !== undefined);
    const ejected = members.filter((m) => m.guest.media() === undefined).length;
    ctx.log(
      `  bmc boot --all: exit ${boot.code} in ${boot.seconds.toFixed(1)} s; ${registered.length}/${members.length} registered, ` +
        `${ejected} ejected; service ${(cpu1.node - cpu0.node).toFixed(1)} CPU-s (with PostgreSQL ${(cpu1.tree - cpu0.tree).toFixed(1)})`,
    );
    if (boot.code !== 0) ctx.log(`  ${boot.stderr.trim().split('\n').join('\n  ')}`);

    // Reference: the same guests, the same emulator operations issued directly, no job engine.
    const directCpu0 = serviceCpu(service);
    const d0 = Date.now();
    for (const m of members) {
      await m.guest.ejectMedia().catch(() => undefined);
      // the scheme the job hands this BMC: HTTPS for hpe-ilo7, the plain listener for the others
      await m.guest.insertMedia(
        m.profile === 'hpe-ilo7' ? directEnv.url : directEnv.url.replace(service.url, service.controlUrl),
      );
      if ((await m.guest.powerState()) === 'On') await m.guest.restart(true);
      else await m.guest.powerOn(true);
    }
    const directRegistered = new Map<string, number>();
    const deadline = d0 + REFERENCE_TIMEOUT_MS;
    while (directRegistered.size < members.length && Date.now() < deadline) {
      const listed = await service.api<{ id: string }[]>('GET', `/infra-envs/${directEnv.id}/hosts`);
      for (const h of listed) if (!directRegistered.has(h.id)) directRegistered.set(h.id, (Date.now() - d0) / 1000);
      await sleep(1000);
    }
    const directCpu1 = serviceCpu(service);
    const directSeconds = Math.max(...directRegistered.values(), 0);
    ctx.log(
      `  reference (direct emulator calls): ${directRegistered.size}/${members.length} registered in ${directSeconds.toFixed(1)} s; ` +
        `service ${(directCpu1.node - directCpu0.node).toFixed(1)} CPU-s`,
    );
    if (directRegistered.size < members.length) throw new Error('reference: not every guest registered within 30 min');
    if (registered.length === 0) throw new Error(`no host registered: ${boot.stderr.slice(-2000)}`);

    const fleetSeconds = Math.max(...registered.map((h) => h.ejected ?? h.registered!));
    const calls = hosts.map((h) => h.redfishCalls);
    const details = {
      guests: members.length,
      profiles: members.map((m) => m.profile),
      cliExitCode: boot.code,
      cliSeconds: round(boot.seconds, 1),
      cliStderr: boot.stderr.slice(-4000),
      registered: registered.length,
      ejected,
      hosts,
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
        bootedToRegistered: medianGap(hosts, 'booted', 'registered'),
        registeredToEjected: medianGap(hosts, 'registered', 'ejected'),
      },
      redfish: {
        callsPerHostFromJobs: calls,
        retriesPerHost: hosts.map((h) => h.retries),
        requestsPerHostAtEmulator: emulatorCounts,
      },
      serviceCpuSeconds: {
        node: round(cpu1.node - cpu0.node, 2),
        withPostgres: round(cpu1.tree - cpu0.tree, 2),
        referenceNode: round(directCpu1.node - directCpu0.node, 2),
        referenceWithPostgres: round(directCpu1.tree - directCpu0.tree, 2),
      },
      databaseTransactions: tx0 !== undefined && tx1 !== undefined ? tx1 - tx0 : null,
      reference: {
        what: 'the same guests: insert (the same URL scheme as the job gave each) + reset or power-on from the CD issued directly to each guest (the emulator operations), no Redfish, no job engine; a second InfraEnv',
        registeredSeconds: [...directRegistered.values()].map((s) => round(s, 1)),
      },
      machine: {
        cpus: os.cpus().length,
        loadBefore: load0.map((x) => round(x, 2)),
        loadAfter: load1.map((x) => round(x, 2)),
      },
    };
    const callSum = calls.reduce((a, b) => a + b, 0);
    const emulatorSum = emulatorCounts.reduce((a, b) => a + b, 0);
    return [
      figure({
        id: 'bmc-qemu-wall',
        workload: 9,
        title: `BMC fleet, ${members.length} qemu guests: one bmc boot --all to all registered and ejected`,
        unit: 's',
        value: fleetSeconds,
        comparator: { name: 'direct emulator calls to registered', value: directSeconds },
        higherIsBetter: false,
        details,
      }),
      figure({
        id: 'bmc-qemu-cpu-per-host',
        workload: 9,
        title: 'BMC fleet (qemu): service CPU per host (Node process)',
        unit: 'CPU-s',
        value: (cpu1.node - cpu0.node) / members.length,
        comparator: {
          name: 'direct (serving + registration only)',
          value: (directCpu1.node - directCpu0.node) / members.length,
        },
        higherIsBetter: false,
      }),
      figure({
        id: 'bmc-qemu-redfish-calls',
        workload: 9,
        title: "BMC fleet (qemu): Redfish calls per host (jobs' steps)",
        unit: 'calls',
        value: callSum / members.length,
        comparator: { name: 'requests the emulated BMCs logged', value: emulatorSum / members.length },
        higherIsBetter: false,
        details: { retries: hosts.reduce((n, h) => n + h.retries, 0) },
      }),
    ];
  } finally {
    for (const m of members) {
      await m.bmc.close();
      await m.guest.close();
    }
    await service.stop();
  }
}
