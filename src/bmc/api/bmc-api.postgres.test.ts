// The BMC extension API of the all-in-one service (test/support/all-in-one.ts: real HTTP, real
// PostgreSQL, the image side serving the demo ISO) against emulated BMCs whose virtual guests read
// the ISO through bootsmith's range layer the way qemu's curl driver does:
//   - records: admin only, create/list/show/update/delete, 400 naming the field, 409 on a duplicate
//     name and on a second job, 404 naming the BMC; the password never in an answer;
//   - a boot followed to the end: the job's own /bytoken/ URL inserted, read (iso-read), the boot
//     files covered (booted), the host that registers with the System UUID matched (registered),
//     the media ejected and the token revoked; every step an event with the BMC, job and host ids;
//   - an InfraEnv's mac_interface_map checked against its BMCs' MACs;
//   - no password in the log, an answer, an event, /metrics or an export.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../../test/support/all-in-one.js';
import {
  type EmulatedBmc,
  emulatedMacs,
  startVirtualBmc,
  type VirtualGuest,
} from '../../../test/support/redfish-emulator/index.js';
import { EXTENSION_API_PREFIX } from '../../url-grammar.js';
import type { BmcView, JobView } from '../bmc-view.js';

const PASSWORD = 'api-test-S3cret-pw';
const BMCS = `${EXTENSION_API_PREFIX}/bmcs`;

async function until<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function json<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

describe('BMC API: records (AUTH_TYPE=local)', () => {
  let svc: AllInOne;
  let bmc: EmulatedBmc;
  beforeAll(async () => {
    svc = await startAllInOne({ AUTH_TYPE: 'local' });
    ({ bmc } = await startVirtualBmc({ name: 'rec', profile: 'generic', username: 'root', password: PASSWORD }));
  });
  afterAll(async () => {
    await bmc?.close();
    await svc?.close();
  });

  it('is admin only: who may set a BMC address is the admin; an InfraEnv credential is not enough', async () => {
    const res = await fetch(`${svc.service.url}${BMCS}`);
    expect(res.status).toBe(401);
    const env = await json<{ id: string }>(
      await svc.call('POST', `${API}/infra-envs`, {
        name: 'authz',
        pull_secret: PULL_SECRET,
        openshift_version: DEMO_VERSION,
      }),
      201,
    );
    const { url } = await json<{ url: string }>(
      await svc.call('GET', `${API}/infra-envs/${env.id}/downloads/image-url`),
      200,
    );
    const imageToken = url.split('/')[4]!;
    const address = { name: 'authz', address: 'https://127.0.0.1:1', username: 'u', password: 'p' };
    const credentials: Record<string, string>[] = [
      {},
      { 'Image-Token': imageToken },
      { Authorization: `Bearer ${imageToken}` },
    ];
    for (const headers of credentials) {
      for (const [method, p] of [
        ['POST', BMCS],
        ['PATCH', `${BMCS}/rack1-n01`],
      ] as const) {
        const r = await fetch(`${svc.service.url}${p}`, {
          method,
          headers: { 'Content-Type': 'application/json', ...headers },
          body: JSON.stringify(address),
        });
        expect(r.status, `${method} ${p} with ${Object.keys(headers).join() || 'nothing'}`).toBe(401);
      }
    }
    // without IMAGE_REPLICA_KEY_FILE, reports of job URL reads are the admin's too (not the URL token's)
    const report = await fetch(`${svc.service.url}${EXTENSION_API_PREFIX}/token-reads`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Image-Token': imageToken },
      body: JSON.stringify({ reads: [] }),
    });
    expect(report.status).toBe(401);
  });

  it('creates, lists, shows, updates and deletes; refuses bad fields, duplicates and a second job', async () => {
    const body = { name: 'rack1-n01', address: bmc.rootUrl, username: 'root', password: PASSWORD };
    const created = await json<BmcView>(await svc.call('POST', BMCS, body), 201);
    expect(created).toMatchObject({
      name: 'rack1-n01',
      address: bmc.rootUrl,
      tls: { verify: 'system' },
      credentials: 'stored',
      state: 'busy',
      last_job: { action: 'refresh', state: 'queued' },
    });
    expect(JSON.stringify(created)).not.toContain(PASSWORD);
    const dup = await svc.call('POST', BMCS, body);
    expect(dup.status).toBe(409);
    expect(await dup.text()).toContain('a BMC named \\"rack1-n01\\" exists already');
    for (const [bad, field] of [
      [{ ...body, name: 'x y' }, 'name'],
      [{ ...body, name: 'n2', address: 'ftp://bmc' }, 'address'],
      [{ ...body, name: 'n2', address: 'https://root:pw@bmc/' }, 'address'],
      [{ ...body, name: 'n2', password: '' }, 'password'],
      [{ ...body, name: 'n2', ca_pem: 'not a certificate' }, 'ca_pem'],
      [{ ...body, name: 'n2', profile: 'unknown-vendor' }, 'profile'],
      [{ ...body, name: 'n2', infra_env_id: '7' }, 'infra_env_id'],
      [{ ...body, name: 'n2', surprise: 1 }, 'surprise'],
      [{ name: 'n2', address: bmc.rootUrl }, 'username'],
    ] as const) {
      const res = await svc.call('POST', BMCS, bad);
      const text = await res.text();
      expect(res.status, text).toBe(400);
      expect(JSON.parse(text).reason).toMatch(new RegExp(`^${field}: `));
      expect(text).not.toContain(PASSWORD);
    }
    expect((await svc.call('GET', `${BMCS}/nope`)).status).toBe(404);
    const list = await json<BmcView[]>(await svc.call('GET', BMCS), 200);
    expect(list.map((b) => b.name)).toEqual(['rack1-n01']);
    // the refresh job runs: the inventory shows before any boot
    const shown = await until('the refresh to finish', 20_000, async () => {
      const b = await json<BmcView>(await svc.call('GET', `${BMCS}/rack1-n01`), 200);
      return b.state === 'busy' ? undefined : b;
    });
    expect(shown).toMatchObject({ state: 'ready', inventory: { power_state: 'Off', profile: { id: 'generic' } } });
    const patched = await json<BmcView>(
      await svc.call('PATCH', `${BMCS}/${shown.id}`, { eject: 'never', boot_mode: 'Legacy', insecure: true }),
      200,
    );
    expect(patched).toMatchObject({ eject: 'never', boot_mode: 'Legacy', tls: { verify: 'insecure' } });
    const job = await json<JobView>(await svc.call('POST', `${BMCS}/rack1-n01/jobs`, { action: 'power-on' }), 201);
    const second = await svc.call('POST', `${BMCS}/rack1-n01/jobs`, { action: 'eject' });
    // the power-on may have finished already (it is quick): a 409 names the BMC and the job, a 201 is the next job
    if (second.status === 409) {
      const text = await second.text();
      expect(text).toContain('BMC \\"rack1-n01\\" has a');
      expect(text).toContain('one job per BMC at a time');
      const removed = await svc.call('DELETE', `${BMCS}/rack1-n01`);
      expect([204, 409]).toContain(removed.status);
      if (removed.status === 204) return;
    } else {
      expect(second.status).toBe(201);
    }
    expect((await svc.call('POST', `${BMCS}/rack1-n01/jobs`, { action: 'boot-discovery' })).status).toBeOneOf([
      400, 409,
    ]);
    const jobs = await json<JobView[]>(await svc.call('GET', `${BMCS}/rack1-n01/jobs`), 200);
    expect(jobs.map((j) => j.id)).toContain(job.id);
    await until('no job left', 20_000, async () =>
      (await json<BmcView>(await svc.call('GET', `${BMCS}/rack1-n01`), 200)).state === 'busy' ? undefined : true,
    );
    expect((await svc.call('DELETE', `${BMCS}/rack1-n01`)).status).toBe(204);
    expect((await svc.call('GET', `${BMCS}/rack1-n01`)).status).toBe(404);
    const log = svc.logs.join('\n');
    expect(log).not.toContain(PASSWORD);
    expect(log).not.toContain(Buffer.from(`root:${PASSWORD}`).toString('base64'));
  });

  it('boot_method: stored and shown; http where the BMC cannot HTTP-boot is a 422 naming it, nothing changed', async () => {
    const body = { name: 'hb1', address: bmc.rootUrl, username: 'root', password: PASSWORD };
    const legacy = await svc.call('POST', BMCS, { ...body, boot_method: 'http', boot_mode: 'Legacy' });
    expect(legacy.status).toBe(422);
    expect(JSON.parse(await legacy.text()).reason).toMatch(/^BMC "hb1": HTTP boot is not possible: .*not Legacy/);
    expect((await svc.call('GET', `${BMCS}/hb1`)).status).toBe(404); // nothing stored
    const created = await json<BmcView>(await svc.call('POST', BMCS, { ...body, boot_method: 'http' }), 201);
    expect(created).toMatchObject({ boot_method: 'http', boot_method_effective: 'http' });
    const ready = await until('the refresh to finish', 20_000, async () => {
      const b = await json<BmcView>(await svc.call('GET', `${BMCS}/hb1`), 200);
      return b.state === 'busy' ? undefined : b;
    });
    expect(ready.state).toBe('ready');
    // The emulated generic BMC lists no UefiHttp: an update keeping http, or a boot, is refused.
    const update = await svc.call('PATCH', `${BMCS}/hb1`, { eject: 'never' });
    expect(update.status).toBe(422);
    expect(await update.text()).toContain(
      'the System lists no UefiHttp boot target (allows None, Pxe, Cd, Hdd, BiosSetup)',
    );
    const env = await json<{ id: string }>(
      await svc.call('POST', `${API}/infra-envs`, {
        name: 'hb',
        pull_secret: PULL_SECRET,
        openshift_version: DEMO_VERSION,
      }),
      201,
    );
    const boot = await svc.call('POST', `${BMCS}/hb1/jobs`, { action: 'boot-discovery', infra_env_id: env.id });
    expect(boot.status).toBe(422);
    expect((await json<JobView[]>(await svc.call('GET', `${BMCS}/hb1/jobs`), 200)).map((j) => j.action)).toEqual([
      'refresh',
    ]);
    expect((await json<BmcView>(await svc.call('GET', `${BMCS}/hb1`), 200)).eject).toBe('auto');
    // Back to auto: what the inventory says (a CD slot: virtual media); a job may still ask for virtual media.
    const auto = await json<BmcView>(await svc.call('PATCH', `${BMCS}/hb1`, { boot_method: 'auto' }), 200);
    expect(auto).toMatchObject({ boot_method: 'auto', boot_method_effective: 'virtual-media' });
    const asked = await svc.call('POST', `${BMCS}/hb1/jobs`, {
      action: 'boot-discovery',
      infra_env_id: env.id,
      boot_method: 'http',
    });
    expect(asked.status).toBe(422);
    expect((await svc.call('DELETE', `${BMCS}/hb1`)).status).toBe(204);
  });
});

describe('BMC API: a boot followed to registration (AUTH_TYPE=none, the demo ISO)', () => {
  let svc: AllInOne;
  let bmc: EmulatedBmc;
  let guest: VirtualGuest;
  let infraEnvId: string;
  const macs = emulatedMacs(42);
  beforeAll(async () => {
    svc = await startAllInOne({ BMC_ISO_READ_TIMEOUT: '60s' });
    ({ bmc, guest } = await startVirtualBmc({
      name: 'boot',
      profile: 'dell-idrac',
      username: 'root',
      password: PASSWORD,
      macs,
      uuid: 'c0ffee00-1234-4abc-8def-00000000002a',
      initialPower: 'On',
    }));
    const env = await json<{ id: string }>(
      await svc.call('POST', `${API}/infra-envs`, {
        name: 'bmc-boot',
        pull_secret: PULL_SECRET,
        openshift_version: DEMO_VERSION,
        cpu_architecture: 'x86_64',
      }),
      201,
    );
    infraEnvId = env.id;
  });
  afterAll(async () => {
    await bmc?.close();
    await svc?.close();
  });

  it('inserts its own URL, sees it read, the boot files covered, the host registered; ejects and revokes the URL', async () => {
    await json<BmcView>(
      await svc.call('POST', BMCS, {
        name: 'boot-1',
        address: bmc.systemUrl,
        username: 'root',
        password: PASSWORD,
        infra_env_id: infraEnvId,
      }),
      201,
    );
    await until('the refresh', 20_000, async () =>
      (await json<BmcView>(await svc.call('GET', `${BMCS}/boot-1`), 200)).state === 'ready' ? true : undefined,
    );
    // the InfraEnv's mac_interface_map is checked against the BMC's MACs
    const network = (mac: string) => ({
      static_network_config: [
        {
          network_yaml: 'interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n',
          mac_interface_map: [{ mac_address: mac, logical_nic_name: 'eth0' }],
        },
      ],
    });
    const refused = await svc.call('PATCH', `${API}/infra-envs/${infraEnvId}`, network('52:54:00:ff:ff:ff'));
    const text = await refused.text();
    expect(refused.status, text).toBe(400);
    expect(JSON.parse(text).reason).toBe(
      'static_network_config[0].mac_interface_map: MAC 52:54:00:ff:ff:ff is not reported by any BMC of this InfraEnv (boot-1); check it, or refresh the BMCs (bootsmith bmc refresh)',
    );
    expect((await svc.call('PATCH', `${API}/infra-envs/${infraEnvId}`, network(macs[0]!.toUpperCase()))).status).toBe(
      201,
    );

    const job = await json<JobView>(
      await svc.call('POST', `${BMCS}/boot-1/jobs`, { action: 'boot-discovery', eject: 'always' }),
      201,
    );
    expect(job.infra_env_id).toBe(infraEnvId);
    // the host registers once the ISO was read (as the guest's agent would, with its DMI UUID)
    const url = await until('the insert', 30_000, async () => guest.boots.at(-1)?.url);
    expect(url).toMatch(
      new RegExp(
        `^${svc.service.url}/bytoken/[A-Za-z0-9_-]{32}/${DEMO_VERSION.replace('.', '\\.')}/x86_64/full\\.iso$`,
      ),
    );
    await until('the guest to read the ISO', 30_000, async () => (guest.boots.at(-1)?.done ? true : undefined));
    await json(
      await svc.call('POST', `${API}/infra-envs/${infraEnvId}/hosts`, {
        host_id: 'c0ffee00-1234-4abc-8def-00000000002a',
        discovery_agent_version: 'test',
      }),
      201,
    );
    const done = await until('the job to finish', 60_000, async () => {
      const j = await json<JobView>(await svc.call('GET', `${BMCS}/boot-1/jobs/${job.id}`), 200);
      return j.state === 'running' || j.state === 'queued' || j.state === 'following' ? undefined : j;
    });
    expect(done.error).toBeNull();
    expect(done.state).toBe('succeeded');
    expect(done.host_id).toBe('c0ffee00-1234-4abc-8def-00000000002a');
    expect(done.steps.map((s) => [s.name, s.status])).toEqual([
      ['discover', 'done'],
      ['read-power', 'done'],
      ['eject', 'done'],
      ['insert', 'done'],
      ['boot-override', 'done'],
      ['power', 'done'],
      ['iso-read', 'done'],
      ['booted', 'done'],
      ['registered', 'done'],
      ['eject-media', 'done'],
    ]);
    expect(done.steps.find((s) => s.name === 'booted')?.detail).toMatch(/^the reads covered the boot files/);
    expect(done.steps.find((s) => s.name === 'registered')?.detail).toBe(
      'host c0ffee00-1234-4abc-8def-00000000002a registered (matched by its id is the System UUID)',
    );
    // the inserted URL's token is not in the job (redacted), and no longer opens the ISO
    expect(JSON.stringify(done)).not.toContain(url!.split('/')[4]);
    // (a resolved token is trusted for RESOLVE_CACHE_TTL_MS, 5 s, before the database is asked again)
    await until('the revoked URL to be refused', 15_000, async () =>
      (await fetch(url!, { method: 'HEAD' })).status === 401 ? true : undefined,
    );
    expect(bmc.model.slots.every((s) => !s.inserted)).toBe(true);
    // every step an event naming the BMC, the job and (once known) the host
    const events = await json<{ name: string; message: string; host_id?: string; props?: string }[]>(
      await svc.call('GET', `${API}/events?infra_env_id=${infraEnvId}`),
      200,
    );
    const mine = events.filter((e) => e.props && JSON.parse(e.props).job_id === job.id);
    expect(mine.map((e) => e.name)).toEqual([...Array(10).fill('bmc_step_done'), 'bmc_job_succeeded']);
    expect(mine.at(-1)?.host_id).toBe('c0ffee00-1234-4abc-8def-00000000002a');
    expect(mine.every((e) => e.message.startsWith('BMC "boot-1": '))).toBe(true);
    // never the password: log, answers, events, metrics, the database export
    const metrics = await (await fetch(`${svc.service.url}/metrics`)).text();
    const exported =
      JSON.stringify(await svc.sql('SELECT * FROM bmcs')) + JSON.stringify(await svc.sql('SELECT * FROM bmc_jobs'));
    for (const where of [
      svc.logs.join('\n'),
      JSON.stringify(events),
      metrics,
      exported,
      await readFile(`${svc.dir}/auth/bmc-credentials.key`, 'utf8').catch(() => ''),
    ]) {
      expect(where).not.toContain(PASSWORD);
    }
  });
});
