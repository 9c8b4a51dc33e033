// `npm run try:bmc -- --infra-env ID [--count N]`: BMC automation tried from a checkout, in one
// command, against the service `npm start` runs (BOOTSMITH_URL, BOOTSMITH_TOKEN as for every
// client verb). It starts N emulated BMCs on loopback (Redfish over HTTPS with a CA made for them;
// vendor profiles dell-idrac, supermicro, lenovo-xcc, …) in front of virtual hosts that read the
// ISO they are given the way a BMC's virtual media does and then register like the discovery agent
// (./agent-stand-in.ts: the Ignition config read from the ISO, the host id the System UUID), writes
// an import file for them (name, address, username, password_file, ca_file; the password and the
// CA beside it, in a private temporary directory), and runs, printing each command first, as an
// operator would:
//   bootsmith bmc import DIR/fleet.csv --infra-env ID
//   bootsmith bmc boot emu-1 … --wait registered --timeout 10m
// Then the BMCs keep serving until Ctrl-C (try `bmc show`, `bmc power`, the console's BMCs page);
// at Ctrl-C it removes them from the service (`bmc remove --force`) and its directory.
// Stands in for: real BMCs and hosts (see README.md); nothing here is installed with the package.
// Does NOT: create the InfraEnv, boot any BMC but its own (they are named), or keep running
// after the import fails (a name taken from an earlier try: remove it first, as it says).
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { emulatedMacs, startVirtualBmc } from './index.js';
import type { EmulatedBmc } from './server.js';
import type { VirtualGuest } from './virtual-guest.js';
import { makeTestCertificates } from './test-ca.js';

export const TRY_USAGE = `usage: npm run try:bmc -- --infra-env ID [--count N]

Starts N (default 2, at most 8) emulated Redfish BMCs on 127.0.0.1 whose virtual hosts boot what
they are given and register like the discovery agent, adds them to the bootsmith service at
BOOTSMITH_URL (default http://127.0.0.1:8080, token BOOTSMITH_TOKEN) with \`bootsmith bmc import\`,
boots them from the InfraEnv ID's ISO with \`bootsmith bmc boot … --wait registered\`, then serves
until Ctrl-C, when it removes them again.`;

/** Profiles the try cycles through: each mounts plain-HTTP ISO URLs (npm start serves HTTP). */
const PROFILES = ['dell-idrac', 'supermicro', 'lenovo-xcc', 'generic', 'cisco', 'transfer-stream'];
const MAX_COUNT = 8;
const NAME_PREFIX = 'emu-';

function parseArgs(argv: string[]): { infraEnv: string; count: number } | string {
  let infraEnv: string | undefined;
  let count = 2;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (name === '--infra-env' && value) infraEnv = value;
    else if (name === '--count' && value && /^\d+$/.test(value) && +value >= 1 && +value <= MAX_COUNT) count = +value;
    else return `${arg}: not understood`;
  }
  if (!infraEnv) return '--infra-env ID is required (the InfraEnv whose ISO the hosts boot)';
  return { infraEnv, count };
}

/** Runs the built `bootsmith` with `args`, its output on ours, after printing the command. */
function bootsmith(cli: string, args: string[]): Promise<number> {
  process.stdout.write(`\n$ bootsmith ${args.join(' ')}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: 'inherit', env: process.env });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(1));
  });
}

export async function tryBmc(argv: string[], root: string): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${TRY_USAGE}\n`);
    return 0;
  }
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    process.stderr.write(`try:bmc: ${args}\n${TRY_USAGE}\n`);
    return 2;
  }
  const cli = path.join(root, 'dist', 'src', 'cli', 'main.js');
  if (!existsSync(cli)) {
    process.stderr.write(`try:bmc: ${cli} is missing: run npm run build first\n`);
    return 1;
  }
  // Ctrl-C stops whatever runs (a bootsmith command in the same process group stops with it), then
  // cleans up; a second signal (npm forwards the one the terminal sent the group) changes nothing.
  let signalled = false;
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      signalled = true;
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-try-bmc-'));
  const bmcs: { bmc: EmulatedBmc; guest: VirtualGuest }[] = [];
  const names: string[] = [];
  let imported = false;
  try {
    const certs = makeTestCertificates(path.join(dir, 'tls'));
    const password = randomBytes(12).toString('base64url');
    await writeFile(path.join(dir, 'password'), `${password}\n`, { mode: 0o600 });
    for (let i = 0; i < args.count; i++) {
      const name = `${NAME_PREFIX}${i + 1}`;
      const started = await startVirtualBmc({
        name,
        profile: PROFILES[i % PROFILES.length]!,
        username: 'admin',
        password,
        tls: certs,
        imageCa: certs.caPem,
        macs: emulatedMacs(0x900 + i),
        uuid: randomUUID(),
        initialPower: i % 2 === 0 ? 'Off' : 'On',
        agent: true,
      });
      bmcs.push(started);
      names.push(name);
    }
    const csv = path.join(dir, 'fleet.csv');
    await writeFile(
      csv,
      `name,address,username,password_file,ca_file\n${bmcs
        .map(({ bmc }) => `${bmc.name},${bmc.rootUrl},admin,password,tls/emulator-ca.pem`)
        .join('\n')}\n`,
    );
    process.stdout.write(
      `try:bmc: ${bmcs.length} emulated BMCs (Redfish over HTTPS on 127.0.0.1): ${bmcs
        .map(({ bmc }) => `${bmc.name} (${bmc.model.profile.id}, ${bmc.rootUrl})`)
        .join(', ')}\n` +
        '  their hosts are virtual: each reads the ISO it is given as a BMC does, then registers as the\n' +
        `  discovery agent would (with the Ignition config it read from the ISO); files in ${dir}\n`,
    );
    imported = (await bootsmith(cli, ['bmc', 'import', csv, '--infra-env', args.infraEnv])) === 0;
    if (!imported) {
      process.stderr.write(
        `try:bmc: the import failed (a BMC named ${names.join(' or ')} from an earlier try? bootsmith bmc remove ${names.join(' ')})\n`,
      );
      return 1;
    }
    const booted = signalled
      ? 1
      : await bootsmith(cli, ['bmc', 'boot', ...names, '--wait', 'registered', '--timeout', '10m']);
    if (!signalled) {
      process.stdout.write(
        `\ntry:bmc: the emulated BMCs serve until Ctrl-C, which removes them from bootsmith again. Meanwhile:\n` +
          `  bootsmith bmc show ${names[0]}      bootsmith bmc power ${names[0]} off      bootsmith bmc refresh ${names[0]}\n` +
          "  bootsmith hosts list             the console's BMCs page\n",
      );
    }
    await stopped;
    return booted;
  } finally {
    if (imported) for (const name of names) await bootsmith(cli, ['bmc', 'remove', name, '--force']);
    for (const { bmc, guest } of bmcs) {
      await bmc.close();
      await guest.close();
    }
    await rm(dir, { recursive: true, force: true });
    process.stdout.write('try:bmc: stopped\n');
  }
}
