// The `bootsmith bmc` verbs run in-process (the whole command tree) against the all-in-one service
// (test/support/all-in-one.ts: real HTTP, PostgreSQL, the image side serving the demo ISO) and
// emulated BMCs with virtual guests that read the ISO through bootsmith:
//   add (the check reads the inventory; a wrong password fails naming the BMC), import (CSV and
//   YAML, a bad row reported alone; password files outside the import's directory refused, nothing
//   sent to the address a hostile file names), list, show (JSON, no password), power/refresh/eject, macs;
//   `bmc boot --all --infra-env ID --wait registered`: two BMCs reach "registered" (their hosts
//   register as the guest's agent would) with the media ejected, one answering 5xx fails alone
//   with its reason, exit 1 naming it; a boot whose host never registers says what it waits for
//   and until when, and `bmc cancel` ends it (media ejected as the policy says); remove. No
//   password in any output, and no BMC-supplied escape sequence reaches the terminal raw (add,
//   list, refresh, show, a failed refresh).
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../../../test/support/all-in-one.js';
import {
  type EmulatedBmc,
  emulatedMacs,
  startVirtualBmc,
  type VirtualGuest,
} from '../../../../test/support/redfish-emulator/index.js';
import { runCli } from '../../commands.js';
import { runCliCaptured } from '../../test-support/captured-io.js';
import type { BmcView } from './bmc-client.js';

const PASSWORD = 'cli-test-Secr3t';

async function until<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('bootsmith bmc verbs against a running service', () => {
  let svc: AllInOne;
  let dir: string;
  let infraEnvId: string;
  const bmcs: { bmc: EmulatedBmc; guest: VirtualGuest; uuid: string }[] = [];
  const outputs: string[] = [];

  const cli = async (...argv: string[]) => {
    const r = await runCliCaptured(argv, { BOOTSMITH_URL: svc.service.url });
    const run = { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
    outputs.push(run.stdout, run.stderr);
    return run;
  };

  beforeAll(async () => {
    svc = await startAllInOne();
    dir = await mkdtemp(path.join(tmpdir(), 'bmc-cli-'));
    await writeFile(path.join(dir, 'pw'), `${PASSWORD}\n`);
    await writeFile(path.join(dir, 'wrong'), 'not-the-password\n');
    for (let i = 0; i < 4; i++) {
      const uuid = `c0ffee00-0000-4000-8000-0000000000${10 + i}`;
      const { bmc, guest } = await startVirtualBmc({
        name: `cli-${i}`,
        profile: ['dell-idrac', 'lenovo-xcc', 'supermicro', 'generic'][i]!,
        username: 'root',
        password: PASSWORD,
        macs: emulatedMacs(100 + i),
        uuid,
        initialPower: i % 2 ? 'On' : 'Off',
      });
      bmcs.push({ bmc, guest, uuid });
    }
    const res = await svc.call('POST', `${API}/infra-envs`, {
      name: 'cli-fleet',
      pull_secret: PULL_SECRET,
      openshift_version: DEMO_VERSION,
      cpu_architecture: 'x86_64',
      image_type: 'minimal-iso',
    });
    infraEnvId = ((await res.json()) as { id: string }).id;
  });
  afterAll(async () => {
    for (const b of bmcs) await b.bmc.close();
    await svc?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('add checks the BMC: its inventory, or the reason naming it', async () => {
    const ok = await cli(
      'bmc',
      'add',
      'n0',
      '--address',
      bmcs[0]!.bmc.systemUrl,
      '--username',
      'root',
      '--password-file',
      path.join(dir, 'pw'),
      '--infra-env',
      infraEnvId,
    );
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^n0: ready: dell-idrac PowerEdge R660, serial EMU-cli-0, power Off, MACs 52:54:00:00:64:00 52:54:00:00:64:01\n$/,
    );
    const bad = await cli(
      'bmc',
      'add',
      'wrong',
      '--address',
      bmcs[3]!.bmc.rootUrl,
      '--username',
      'root',
      '--password-file',
      path.join(dir, 'wrong'),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /^bootsmith: BMC wrong: added, but the check failed: BMC "wrong": discover: the BMC refused the credentials .*HTTP 401/,
    );
    expect((await cli('bmc', 'remove', 'wrong')).code).toBe(0);
    const missing = await cli('bmc', 'add', 'x', '--address', 'h', '--username', 'root');
    expect(missing).toMatchObject({ code: 1, stderr: 'bootsmith: --password-file: is required\n' });
  });

  it('import takes CSV and YAML, reports a bad row alone', async () => {
    await writeFile(
      path.join(dir, 'fleet.csv'),
      `name,address,username,password_file,infra_env_id\nn1,${bmcs[1]!.bmc.systemUrl},root,pw,${infraEnvId}\nn1,${bmcs[1]!.bmc.systemUrl},root,pw,\n`,
    );
    const csv = await cli('bmc', 'import', path.join(dir, 'fleet.csv'));
    expect(csv.code).toBe(1);
    expect(csv.stdout).toMatch(/^n1: added \(/);
    expect(csv.stderr).toContain('fleet.csv: line 3 (n1):');
    expect(csv.stderr).toContain('409 a BMC named "n1" exists already');
    await writeFile(
      path.join(dir, 'fleet.yaml'),
      `- { name: n2, address: "${bmcs[2]!.bmc.systemUrl}", username: root, password_file: pw }\n- { name: n3, address: "${bmcs[3]!.bmc.rootUrl}", username: root, password_file: pw }\n`,
    );
    const yaml = await cli('bmc', 'import', path.join(dir, 'fleet.yaml'), '--infra-env', infraEnvId);
    expect(yaml.stderr).toBe('');
    expect(
      yaml.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(':')[0]),
    ).toEqual(['n2', 'n3']);
    const bad = await cli('bmc', 'import', path.join(dir, 'pw'));
    expect(bad.code).toBe(1);
    // a password file given by mistake: its line is not echoed
    expect(bad.stderr).toBe(
      `bootsmith: ${path.join(dir, 'pw')}: line 1: column 1 is none of (name, address, username, password_file, infra_env_id, insecure, ca_file, profile, boot_mode, eject, boot_method)\n`,
    );
  });

  it('import refuses password files outside its directory (absolute, .., symbolic links, the service key): nothing sent', async () => {
    // A loopback listener stands where a hostile CSV points its BMCs: it must hear nothing.
    const heard: string[] = [];
    const listener = http.createServer((req, res) => {
      heard.push(`${req.method} ${req.url}`);
      res.end();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const catcher = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    const keyFile = path.join(svc.dir, 'auth', 'bmc-credentials.key'); // the service's own secret
    const imports = path.join(dir, 'imports');
    await mkdir(path.join(dir, 'data', 'auth'), { recursive: true });
    await writeFile(path.join(dir, 'data', 'auth', 'admin-token'), 'stand-in-admin-token\n');
    await mkdir(imports, { recursive: true });
    await writeFile(path.join(imports, 'ok.pw'), `${PASSWORD}\n`);
    await symlink(keyFile, path.join(imports, 'key-link'));
    await symlink(path.join(dir, 'data', 'auth'), path.join(imports, 'auth'));
    const cells = [keyFile, '../data/auth/admin-token', 'key-link', 'auth/admin-token'];
    await writeFile(
      path.join(imports, 'hostile.csv'),
      `name,address,username,password_file\nh-ok,${catcher},root,ok.pw\n${cells
        .map((cell, i) => `h-${i},${catcher},root,${cell}`)
        .join('\n')}\n`,
    );
    try {
      const run = await cli('bmc', 'import', path.join(imports, 'hostile.csv'));
      expect(run.code).toBe(1);
      const where = path.join(imports, 'hostile.csv');
      expect(run.stderr.split('\n').filter(Boolean)).toEqual([
        `bootsmith: ${where}: line 3 (h-0): password_file: must be a relative path, not an absolute one (paths are relative to the import file's directory (${imports}))`,
        `bootsmith: ${where}: line 4 (h-1): password_file: must not leave the directory (a ".." in the path) (paths are relative to the import file's directory (${imports}))`,
        `bootsmith: ${where}: line 5 (h-2): password_file: leads outside the import file's directory (${imports}) (through a symbolic link)`,
        `bootsmith: ${where}: line 6 (h-3): password_file: leads outside the import file's directory (${imports}) (through a symbolic link)`,
        `bootsmith: ${where}: 4 of 5 row(s) refused: nothing was added`,
      ]);
      for (const cell of cells.slice(1)) expect(run.stderr).not.toContain(cell);
      expect(heard).toEqual([]);
      const names = (await (await svc.call('GET', '/api/bootsmith/v1/bmcs')).json()) as BmcView[];
      expect(names.map((b) => b.name).filter((n) => n.startsWith('h-'))).toEqual([]);
      // An operator who keeps passwords elsewhere names the directory: inside it, the file is read.
      await writeFile(
        path.join(imports, 'elsewhere.csv'),
        `name,address,username,password_file\nh-dir,${catcher},root,pw\n`,
      );
      const elsewhere = await cli('bmc', 'import', path.join(imports, 'elsewhere.csv'), '--password-dir', dir);
      expect(elsewhere).toMatchObject({ code: 0, stderr: '' });
      expect(elsewhere.stdout).toMatch(/^h-dir: added \(/);
      expect((await cli('bmc', 'remove', 'h-dir', '--force')).code).toBe(0);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it('list, show, refresh, power, eject, macs', async () => {
    const list = await cli('bmc', 'list', '--infra-env', infraEnvId);
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME +STATE +PROFILE +POWER +INFRAENV +LAST JOB$/);
    expect(list.stdout).toMatch(/\nn0 +ready +dell-idrac +Off/);
    const refresh = await cli('bmc', 'refresh', 'n3');
    expect(refresh).toMatchObject({ code: 0, stderr: '' });
    const show = JSON.parse((await cli('bmc', 'show', 'n3')).stdout) as BmcView;
    expect(show).toMatchObject({
      name: 'n3',
      state: 'ready',
      credentials: 'stored',
      inventory: { profile: { id: 'generic' } },
    });
    const on = await cli('bmc', 'power', 'n0', 'on');
    expect(on.stdout).toMatch(/^n0: power-on succeeded: power: On \(power was off\)\n$/);
    const off = await cli('bmc', 'power', 'n0', 'off');
    expect(off.stdout).toMatch(/^n0: power-off succeeded: power: ForceOff/);
    expect((await cli('bmc', 'power', 'n0', 'sideways')).stderr).toBe(
      'bootsmith: sideways: the power action is on, off or reset\n',
    );
    expect((await cli('bmc', 'eject', 'n2')).code).toBe(0);
    const macs = JSON.parse((await cli('bmc', 'macs', '--infra-env', infraEnvId, '--nic', 'eno1')).stdout) as {
      bmc: string;
      mac_interface_map: { mac_address: string; logical_nic_name: string }[];
    }[];
    expect(macs.find((m) => m.bmc === 'n0')?.mac_interface_map).toEqual([
      { mac_address: '52:54:00:00:64:00', logical_nic_name: 'eno1' },
      { mac_address: '52:54:00:00:64:01', logical_nic_name: 'eth1' },
    ]);
  });

  it('boot --all --infra-env --wait registered: each BMC succeeds or fails alone', async () => {
    // n3 answers every call with 503: its job fails after the bounded retries, alone
    bmcs[3]!.bmc.setFaults({ serverErrors: { times: 'always', status: 503 } });
    // the hosts register once their guest read the ISO, as the agent on it would
    const registered = new Set<number>();
    const agents = setInterval(() => {
      bmcs.slice(0, 3).forEach((b, i) => {
        if (registered.has(i) || !b.guest.boots.at(-1)?.done) return;
        registered.add(i);
        void svc.call('POST', `${API}/infra-envs/${infraEnvId}/hosts`, {
          host_id: b.uuid,
          discovery_agent_version: 'cli',
        });
      });
    }, 200);
    const boot = await cli(
      'bmc',
      'boot',
      '--all',
      '--infra-env',
      infraEnvId,
      '--wait',
      'registered',
      '--timeout',
      '3m',
    );
    clearInterval(agents);
    expect(boot.code).toBe(1);
    for (const n of ['n0', 'n1', 'n2']) {
      expect(boot.stdout).toContain(`${n}: registered done: host `);
      expect(boot.stdout).toMatch(
        new RegExp(
          `${n}: eject-media done: ejected slot\\(s\\) .* \\(a minimal ISO loads its root file system into RAM\\)`,
        ),
      );
      expect(boot.stdout).toMatch(new RegExp(`\\n${n} +registered +eject-media +c0ffee00`));
    }
    expect(boot.stderr).toMatch(
      /^bootsmith: 1 of 4 BMC\(s\) did not reach registered:\n {2}n3: BMC "n3": discover: the BMC answered with an error \(GET \/redfish\/v1 → HTTP 503, 4 attempts/,
    );
    for (const b of bmcs.slice(0, 3)) expect(b.bmc.model.slots.every((s) => !s.inserted)).toBe(true);
    const usage = await cli('bmc', 'boot', '--all');
    expect(usage).toMatchObject({ code: 1, stderr: 'bootsmith: --all: needs --infra-env\n' });
  });

  it('boot says why it waits (no agent registers); cancel ends the job, ejecting as the policy says', async () => {
    // `bmc boot` as a terminal-less run, its output read while it runs
    let out = '';
    const io = {
      env: { BOOTSMITH_URL: svc.service.url },
      stdin: Readable.from([]),
      stdout: new Writable({
        write(chunk: Buffer, _enc, cb) {
          out += chunk.toString('utf8');
          cb();
        },
      }),
      stderr: new Writable({
        write(chunk: Buffer, _enc, cb) {
          out += chunk.toString('utf8');
          cb();
        },
      }),
    };
    // n0's host registered in the boot above: this boot's match counts registrations from its insert on
    svc.clock.advance(60_000);
    const boot = runCli(['bmc', 'boot', 'n0', '--wait', 'registered', '--timeout', '5m'], io);
    const waiting = await until(
      'the waiting line',
      120_000,
      async () => /^n0: registered waiting: .*$/m.exec(out)?.[0],
    );
    expect(waiting).toMatch(
      new RegExp(
        `^n0: registered waiting: booted; waiting for the discovery agent on the host to register a host with the BMC's System UUID ${bmcs[0]!.uuid} or MACs 52:54:00:00:64:00, 52:54:00:00:64:01 \\(it fails at \\S+Z, 30 min after the boot\\)$`,
      ),
    );
    const cancel = await cli('bmc', 'cancel', 'n0');
    expect(cancel).toMatchObject({
      code: 0,
      stderr: '',
      stdout:
        'n0: boot-discovery cancelled at registered; media ejected (a minimal ISO loads its root file system into RAM)\n',
    });
    expect(await boot).toBe(1);
    expect(out).toContain(
      'bootsmith: 1 of 1 BMC(s) did not reach registered:\n  n0: cancelled at registered; media ejected (a minimal ISO loads its root file system into RAM)\n',
    );
    expect(out).toMatch(/\nn0 +cancelled +eject-media +cancelled at registered/);
    expect(bmcs[0]!.bmc.model.slots.every((s) => !s.inserted)).toBe(true);
    expect(await cli('bmc', 'cancel', 'n0')).toMatchObject({ code: 0, stdout: 'n0: no job to cancel\n' });
    expect((JSON.parse((await cli('bmc', 'show', 'n0')).stdout) as BmcView).last_job?.state).toBe('cancelled');
  }, 240_000);

  it('remove, and never a password in any output', async () => {
    expect((await cli('bmc', 'remove', 'n3')).code).toBe(0);
    expect((await cli('bmc', 'show', 'n3')).stderr).toMatch(/404 no BMC "n3"/);
    const all = outputs.join('\n') + svc.logs.join('\n');
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(Buffer.from(`root:${PASSWORD}`).toString('base64'));
  });

  it("a BMC's escape sequences reach no terminal raw: add, list, refresh, show, a failed refresh", async () => {
    const { bmc, guest } = await startVirtualBmc({
      name: 'hostile',
      profile: 'generic',
      username: 'root',
      password: PASSWORD,
      faults: {
        rewrite: [
          {
            match: { method: 'GET', path: /\/Systems\/1$/ },
            body: (doc) => ({ ...(doc as object), Model: '\u001b]0;owned\u0007\u001b[2JR750', PowerState: '\u001b[31mOn\u009b1m' }),
          },
        ],
      },
    });
    bmcs.push({ bmc, guest, uuid: '' });
    const runs = [
      await cli('bmc', 'add', 'hostile', '--address', bmc.rootUrl, '--username', 'root', '--password-file', path.join(dir, 'pw')),
      await cli('bmc', 'list'),
      await cli('bmc', 'refresh', 'hostile'),
      await cli('bmc', 'show', 'hostile'),
    ];
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    expect(runs[0]!.stdout).toContain('hostile: ready: generic \\x1b]0;owned\\x07\\x1b[2JR750, serial EMU-hostile, power \\x1b[31mOn\\x9b1m');
    expect(runs[1]!.stdout).toMatch(/\nhostile +ready +generic +\\x1b\[31mOn\\x9b1m +refresh succeeded/);
    bmc.setFaults({
      rewrite: [
        {
          match: { method: 'GET', path: /\/Managers\/1$/ },
          status: 400,
          body: () => ({ error: { code: 'Base.1.8.GeneralError', message: 'gone\u001b[2J\u001b]0;owned\u0007' } }),
        },
      ],
    });
    const failed = await cli('bmc', 'refresh', 'hostile');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('HTTP 400: gone\\x1b[2J\\x1b]0;owned\\x07)');
    for (const r of [...runs, failed]) expect(`${r.stdout}${r.stderr}`).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
}); // prettier-ignore
