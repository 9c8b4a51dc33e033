// The Redfish emulator as a standalone program (test/support/redfish-emulator/run.mjs): --help
// exits 0; a YAML config starts its BMCs, one JSON line each, which our client (and anything else)
// can use; SIGTERM stops it cleanly.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { HAVE_OPENSSL, REPO_ROOT } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import { RedfishClient } from './client.js';

const RUN = path.join(REPO_ROOT, 'test', 'support', 'redfish-emulator', 'run.mjs');

describe.skipIf(unavailable({ openssl: HAVE_OPENSSL }))('the emulator run standalone', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bmc-standalone-'));
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers --help with exit 0', () => {
    const r = spawnSync(process.execPath, [RUN, '--help'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: node test\/support\/redfish-emulator\/run\.mjs CONFIG/);
    expect(r.stdout).toContain('supermicro');
  });

  it('starts the BMCs of a config, serves a client, stops on SIGTERM', async () => {
    const config = path.join(dir, 'emulator.yaml');
    writeFileSync(path.join(dir, 'pw'), 'from-a-file\n');
    writeFileSync(
      config,
      `stateDir: ${dir}/state
bmcs:
  - { name: n1, profile: dell-idrac, username: root, password: calvin, macs: ["52:54:00:aa:00:01"], guest: { kind: virtual, initialPower: On } }
  - { name: n2, profile: lenovo-xcc, passwordFile: ${dir}/pw }
`,
    );
    child = spawn(process.execPath, [RUN, config], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const lines: { name: string; profile: string; rootUrl: string; systemUrl: string; caFile: string }[] = [];
    const reader = createInterface({ input: child.stdout! });
    for await (const line of reader) {
      lines.push(JSON.parse(line) as (typeof lines)[number]);
      if (lines.length === 2) break;
    }
    expect(
      lines.map((l) => `${l.name}:${l.profile}`),
      stderr,
    ).toEqual(['n1:dell-idrac', 'n2:lenovo-xcc']);
    const n1 = lines[0]!;
    expect(n1.systemUrl).toBe(`${n1.rootUrl}/Systems/System.Embedded.1`);

    const client = await RedfishClient.open({
      name: 'n1',
      address: n1.systemUrl,
      username: 'root',
      password: 'calvin',
      trust: { verify: 'ca-file', caFile: n1.caFile },
    });
    const inventory = await client.inventory();
    expect(inventory).toMatchObject({
      profile: { id: 'dell-idrac' },
      macs: ['52:54:00:aa:00:01'],
      system: { powerState: 'On' },
    });
    const n2 = await RedfishClient.open({
      name: 'n2',
      address: lines[1]!.rootUrl,
      username: 'admin',
      password: 'from-a-file',
      trust: { verify: 'ca-file', caFile: lines[1]!.caFile },
    });
    expect((await n2.topology()).profile.id).toBe('lenovo-xcc');

    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 120_000);
});
