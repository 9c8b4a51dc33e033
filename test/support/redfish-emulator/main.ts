// The emulator as a standalone program (`node test/support/redfish-emulator/run.mjs CONFIG`):
// starts the BMCs a YAML or JSON file describes, prints one JSON line per BMC (name, profile,
// URLs, CA file) and serves until SIGINT/SIGTERM. For trying clients by hand (curl, sushy,
// redfishtool, `bootsmith bmc …`) and for benches that need BMCs in another process.
// `run.mjs try …` is `npm run try:bmc` instead (./try-bmc.ts).
//
// Config (all keys optional except `bmcs`; see README.md):
//   host: 127.0.0.1
//   tls: true                      # HTTPS with a CA made in stateDir (emulator-ca.pem)
//   stateDir: /tmp/redfish-emulator
//   bmcs:
//     - name: node1
//       profile: dell-idrac         # generic, dell-idrac, dell-idrac10, hpe-ilo7, supermicro, lenovo-xcc, cisco, transfer-stream
//       port: 8443                  # default: any free port
//       username: root
//       password: calvin            # or passwordFile: /path
//       macs: ["52:54:00:00:00:01"]
//       guest: { kind: virtual, initialPower: Off, maxBytes: 8388608, agent: true }   # agent: registers after a boot from CD
//       # guest: { kind: qemu, qemu: qemu-system-x86_64, memoryMiB: 512, args: ["-nic", "none"] }
//       faults: { serverErrors: { times: 2, status: 503 } }
// Does NOT: daemonize or persist state.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { Faults } from './faults.js';
import type { EmulatedGuest, GuestPower } from './guest.js';
import { EMULATOR_PROFILES } from './profiles.js';
import { QemuGuest } from './qemu-guest.js';
import { type EmulatedBmc, startEmulatedBmc } from './server.js';
import { randomUUID } from 'node:crypto';
import { makeTestCertificates } from './test-ca.js';
import { tryBmc } from './try-bmc.js';
import { VirtualGuest } from './virtual-guest.js';

export const USAGE = `usage: node test/support/redfish-emulator/run.mjs CONFIG.yaml|CONFIG.json
       node test/support/redfish-emulator/run.mjs try --infra-env ID [--count N]   (npm run try:bmc)
       node test/support/redfish-emulator/run.mjs --help

Starts emulated Redfish BMCs on loopback as CONFIG describes, prints one JSON line per BMC
({"name","profile","rootUrl","systemUrl","caFile"}) and serves until interrupted.
Profiles: ${Object.keys(EMULATOR_PROFILES).join(', ')}.
See test/support/redfish-emulator/README.md for the config keys, the profiles and the faults.`;

interface BmcConfig {
  name: string;
  profile?: string;
  port?: number;
  username?: string;
  password?: string;
  passwordFile?: string;
  macs?: string[];
  serialNumber?: string;
  /** ComputerSystem.UUID (and, with `guest.agent`, the host id it registers as); default random. */
  uuid?: string;
  guest?: {
    kind?: 'virtual' | 'qemu';
    initialPower?: GuestPower;
    maxBytes?: number;
    /** virtual: after a boot from the CD, register as the discovery agent would (./agent-stand-in.ts). */
    agent?: boolean;
    qemu?: string;
    memoryMiB?: number;
    args?: string[];
  };
  faults?: Faults;
}

interface Config {
  host?: string;
  tls?: boolean;
  stateDir?: string;
  bmcs: BmcConfig[];
}

function fail(message: string): never {
  process.stderr.write(`redfish-emulator: ${message}\n`);
  process.exit(2);
}

/** Runs the standalone emulator (or `try`); `root` is the checkout, where dist/ and the CLI live. */
export async function main(argv: string[], { root }: { root: string }): Promise<number> {
  if (argv[0] === 'try') return tryBmc(argv.slice(1), root);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const file = argv[0];
  if (!file || argv.length !== 1) fail(`expected one config file\n${USAGE}`);
  let config: Config;
  try {
    config = parse(readFileSync(file, 'utf8')) as Config;
  } catch (err) {
    return fail(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (!config || !Array.isArray(config.bmcs) || config.bmcs.length === 0)
    fail(`${file}: "bmcs" must list at least one BMC`);
  const stateDir = path.resolve(config.stateDir ?? '/tmp/redfish-emulator');
  const certs = config.tls === false ? undefined : makeTestCertificates(path.join(stateDir, 'tls'));
  const started: { bmc: EmulatedBmc; guest: EmulatedGuest }[] = [];
  const stop = async (): Promise<void> => {
    for (const { bmc, guest } of started) {
      await bmc.close();
      await guest.close();
    }
  };
  try {
    for (const b of config.bmcs) {
      if (!b.name) fail('every BMC needs a name');
      const profile = b.profile ?? 'generic';
      if (!EMULATOR_PROFILES[profile]) fail(`${b.name}: unknown profile ${JSON.stringify(profile)}`);
      const password = b.passwordFile ? readFileSync(b.passwordFile, 'utf8').trim() : (b.password ?? 'password');
      const uuid = b.uuid ?? randomUUID();
      const guest: EmulatedGuest =
        b.guest?.kind === 'qemu'
          ? await QemuGuest.start({
              name: b.name,
              qemu: b.guest.qemu ?? 'qemu-system-x86_64',
              dir: path.join(stateDir, 'guests'),
              ...(b.guest.memoryMiB ? { memoryMiB: b.guest.memoryMiB } : {}),
              ...(b.guest.args ? { qemuArgs: b.guest.args } : {}),
            })
          : new VirtualGuest({
              initialPower: b.guest?.initialPower ?? 'Off',
              ...(certs ? { ca: certs.caPem } : {}),
              ...(b.guest?.maxBytes ? { read: { maxBytes: b.guest.maxBytes } } : {}),
              ...(b.guest?.agent ? { agent: { hostId: uuid } } : {}),
            });
      const bmc = await startEmulatedBmc({
        name: b.name,
        profile,
        username: b.username ?? 'admin',
        password,
        guest,
        ...(certs ? { tls: certs } : {}),
        ...(config.host ? { host: config.host } : {}),
        ...(b.port ? { port: b.port } : {}),
        ...(b.macs ? { macs: b.macs } : {}),
        ...(b.serialNumber ? { serialNumber: b.serialNumber } : {}),
        uuid,
        ...(b.faults ? { faults: b.faults } : {}),
      });
      started.push({ bmc, guest });
      process.stdout.write(
        `${JSON.stringify({ name: b.name, profile, rootUrl: bmc.rootUrl, systemUrl: bmc.systemUrl, ...(certs ? { caFile: certs.caFile } : {}) })}\n`,
      );
    }
  } catch (err) {
    await stop();
    fail((err as Error).message);
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await stop();
  return 0;
}
