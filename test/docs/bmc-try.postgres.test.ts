// "Try it without hardware" (docs/operator/bmc-automation.md) runs as written: its one shell block
// (marked `<!-- doc-test: bmc-try -->`),
// `npm run try:bmc -- --infra-env "$ID"`, in bash from the checkout, against the all-in-one
// service (test/support/all-in-one.ts: AUTH_TYPE=local, the demo ISO, loopback URLs) with
// BOOTSMITH_URL, BOOTSMITH_TOKEN and ID set as README's "Try it" sets them. The command builds the service
// (`npm run build`: dist/ of this checkout), compiles and starts the emulator, imports its two BMCs,
// boots them: both reach `registered`, their hosts registered with the service by the agent
// stand-in using the InfraEnv's agent token (the core refuses a registration without it); then
// Ctrl-C (SIGINT to its process group, as a terminal sends it) removes the BMCs again.
// Not in `npm run test:fast` (npm, tsc, openssl, PostgreSQL).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../support/all-in-one.js';
import { HAVE_OPENSSL, REPO_ROOT } from '../support/probes.js';
import { unavailable } from '../support/requirements.js';
import { blocksRunBy } from './support/doc-blocks.js';

/** npm run build of a clean checkout, the emulator's tsc and two boots, on a loaded 2-core machine. */
const RUN_TIMEOUT_MS = 420_000;

const blocks = blocksRunBy('bmc-try');
const block = blocks[0];

describe('BMC automation, "Try it without hardware"', () => {
  it('documents the command in one shell block', () => {
    expect(blocks).toHaveLength(1);
    expect(block?.lang).toBe('sh');
    expect(block?.code.split('\n').filter((l) => l.trim() !== '')).toHaveLength(1);
    expect(block?.code).toMatch(/^npm run try:bmc -- --infra-env "\$ID"/);
  });
});

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL }))('npm run try:bmc as the docs write it', () => {
  let svc: AllInOne;
  let infraEnvId: string;
  let output = '';
  let code: number | null = null;
  let started = 0;
  let registeredAfterMs = 0;

  beforeAll(async () => {
    svc = await startAllInOne({ AUTH_TYPE: 'local' });
    const res = await svc.call('POST', `${API}/infra-envs`, {
      name: 'try-bmc',
      pull_secret: PULL_SECRET,
      openshift_version: DEMO_VERSION,
      cpu_architecture: 'x86_64',
    });
    expect(res.status).toBe(201);
    infraEnvId = ((await res.json()) as { id: string }).id;

    started = Date.now();
    const child = spawn('bash', ['-c', `set -euo pipefail\n${block!.code}`], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        BOOTSMITH_URL: svc.service.url,
        BOOTSMITH_TOKEN: svc.admin.Authorization!.slice('Bearer '.length),
        ID: infraEnvId,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, which Ctrl-C's SIGINT reaches as a whole
    });
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    const deadline = Date.now() + RUN_TIMEOUT_MS;
    while (!output.includes('serve until Ctrl-C') && code === null && Date.now() < deadline) {
      await Promise.race([new Promise((r) => setTimeout(r, 500)), exited.then((c) => (code = c))]);
    }
    registeredAfterMs = Date.now() - started;
    if (code === null) {
      process.kill(-child.pid!, 'SIGINT');
      const kill = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
      code = await exited;
      clearTimeout(kill);
    }
    console.log(`npm run try:bmc: registered after ${(registeredAfterMs / 1000).toFixed(1)} s`);
  }, RUN_TIMEOUT_MS + 120_000);

  afterAll(async () => {
    await svc?.close();
  });

  it('imports two emulated BMCs, boots both to registered, and removes them at Ctrl-C', async () => {
    expect(output, output.slice(-4000)).toContain('serve until Ctrl-C');
    expect(output).toMatch(/^\$ bootsmith bmc import \/\S+\/fleet\.csv --infra-env [0-9a-f-]{36}$/m);
    expect(output).toMatch(/^emu-1: added \(/m);
    expect(output).toMatch(/^\$ bootsmith bmc boot emu-1 emu-2 --wait registered --timeout 10m$/m);
    for (const name of ['emu-1', 'emu-2']) {
      expect(output).toMatch(
        new RegExp(
          `^${name}: registered done: host [0-9a-f-]{36} registered \\(matched by its id is the System UUID\\)$`,
          'm',
        ),
      );
      expect(output).toMatch(new RegExp(`^${name} +registered +eject-media +[0-9a-f-]{36}`, 'm'));
    }
    // the hosts the stand-in registered, with the agent image as its version (read from the ISO's Ignition)
    const hosts = (await (await svc.call('GET', `${API}/infra-envs/${infraEnvId}/hosts`)).json()) as {
      id: string;
      discovery_agent_version?: string;
    }[];
    expect(hosts).toHaveLength(2);
    for (const h of hosts) expect(h.discovery_agent_version).toMatch(/assisted-installer-agent/);
    // Ctrl-C: removed from the service, the emulator stopped, exit 0 (both registered)
    expect(output).toMatch(/^\$ bootsmith bmc remove emu-2 --force$/m);
    expect(output).toMatch(/try:bmc: stopped\n$/);
    expect(code).toBe(0);
    expect(await (await svc.call('GET', '/api/bootsmith/v1/bmcs')).json()).toEqual([]);
    // the emulated BMCs' password never reached an output
    expect(svc.logs.join('\n')).not.toMatch(/"password":"[^"[]/);
  });
});
