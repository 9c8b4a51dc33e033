// Two whole services (startService, as `bootsmith serve` runs) on one PostgreSQL — the embedded
// server's, and TEST_DATABASE_URL's when set — with BMCs behind emulated BMCs whose virtual guests
// read through whichever replica the job's URL names:
//   - a replica with another BMC credentials key is refused, naming both key ids, and claims none
//     of the jobs queued while it runs (the others run them all);
//   - six boot jobs queued through one replica's API are each run exactly once (claims 1) by the
//     two engines together, and each is followed to registration with reads served by one replica
//     and recorded for a job the other may run;
//   - a replica stopped mid-follow releases its jobs; the other resumes and finishes them.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { backends } from '../../platform/db/test-support/backends.js';
import { createLogger } from '../../logger.js';
import { type RunningService, startService } from '../../service.js';
import { EXTENSION_API_PREFIX } from '../../url-grammar.js';
import { type EmulatedBmc, startVirtualBmc, type VirtualGuest } from '../../../test/support/redfish-emulator/index.js';
import type { BmcView, JobView } from '../bmc-view.js';

const API = '/api/assisted-install/v2';
const BMCS = `${EXTENSION_API_PREFIX}/bmcs`;
const PASSWORD = 'replica-test-pw';
const PULL_SECRET = JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from('u:p').toString('base64') } } });

async function until<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

for (const backend of backends()) {
  describe(`two replicas on one PostgreSQL (${backend.name})`, () => {
    let storage: Awaited<ReturnType<typeof backend.create>>;
    let dir: string;
    const services: RunningService[] = [];
    const emulated: { bmc: EmulatedBmc; guest: VirtualGuest; uuid: string }[] = [];

    async function replica(name: string, keyFile: string): Promise<RunningService> {
      const dataDir = path.join(dir, name);
      const config = loadConfig({
        LISTEN_PORT: '0',
        LISTEN_ADDRESS: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: storage.databaseUrl!,
        AUTH_TYPE: 'none',
        BMC_CREDENTIALS_KEY_FILE: keyFile,
        BMC_JOB_LEASE: '3s',
      });
      const service = await startService(config, createLogger('warn', { write: () => undefined }), {
        defaultMetrics: false,
      });
      await service.imagesLoaded;
      services.push(service);
      return service;
    }
    const call = async <T>(
      svc: RunningService,
      method: string,
      p: string,
      body?: unknown,
    ): Promise<{ status: number; json: T }> => {
      const res = await fetch(svc.url + p, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T };
    };

    beforeAll(async () => {
      storage = await backend.create();
      dir = await mkdtemp(path.join(tmpdir(), 'bmc-replicas-'));
      await writeFile(path.join(dir, 'key'), randomBytes(32).toString('base64'));
      await writeFile(path.join(dir, 'other-key'), randomBytes(32).toString('hex'));
      for (let i = 0; i < 6; i++) {
        const uuid = `c0ffee00-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`;
        const { bmc, guest } = await startVirtualBmc({
          name: `r${i}`,
          profile: 'generic',
          username: 'root',
          password: PASSWORD,
          uuid,
          initialPower: 'Off',
        });
        emulated.push({ bmc, guest, uuid });
      }
    });
    afterAll(async () => {
      for (const e of emulated) await e.bmc.close();
      for (const s of services.splice(0).reverse()) await s.close();
      await storage?.cleanup();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('runs each job once across the replicas, refuses another key, and hands jobs over when one stops', async () => {
      const a = await replica('a', path.join(dir, 'key'));
      const b = await replica('b', path.join(dir, 'key'));
      const env = await call<{ id: string }>(a, 'POST', `${API}/infra-envs`, {
        name: 'replicas',
        pull_secret: PULL_SECRET,
        openshift_version: '4.17',
        image_type: 'minimal-iso',
      });
      expect(env.status).toBe(201);
      // a third replica with another key, up while the BMCs' first refreshes wait: it must claim
      // none of them (its runners could only fail them with the key error)
      const c = await replica('c', path.join(dir, 'other-key'));
      for (const [i, e] of emulated.entries()) {
        const added = await call<BmcView>(a, 'POST', BMCS, {
          name: `r${i}`,
          address: e.bmc.rootUrl,
          username: 'root',
          password: PASSWORD,
          infra_env_id: env.json.id,
        });
        expect(added.status).toBe(201);
      }
      // its BMC operations are refused, naming both key ids
      const refused = await call<{ reason: string }>(c, 'POST', BMCS, {
        name: 'other',
        address: 'bmc.example',
        username: 'root',
        password: PASSWORD,
      });
      expect(refused.status).toBe(503);
      expect(refused.json.reason).toMatch(
        /^this service's BMC credentials key \(id [\w-]+\) is not the key the database's BMC credentials are sealed with \(id [\w-]+\): give every replica the same BMC_CREDENTIALS_KEY_FILE$/,
      );
      // wait for the refreshes (all run by a or b), then boot all six through replica a's API (a's
      // engine is woken at once)
      await until('the refreshes', 30_000, async () => {
        const list = (await call<BmcView[]>(b, 'GET', BMCS)).json;
        expect(list.filter((x) => x.state === 'error').map((x) => x.state_info)).toEqual([]);
        return list.every((x) => x.state === 'ready') ? true : undefined;
      });
      await c.close();
      services.splice(services.indexOf(c), 1);
      const jobs: JobView[] = [];
      for (let i = 0; i < 6; i++) {
        const q = await call<JobView>(a, 'POST', `${BMCS}/r${i}/jobs`, { action: 'boot-discovery' });
        expect(q.status).toBe(201);
        jobs.push(q.json);
      }
      // every boot read and covered (no host registered yet: the jobs wait at `registered`);
      // then replica a stops: its jobs are released, b resumes them
      await until('every boot followed to `booted`', 30_000, async () => {
        const js = await Promise.all(jobs.map((j, i) => call<JobView>(b, 'GET', `${BMCS}/r${i}/jobs/${j.id}`)));
        return js.every((j) => j.json.steps.find((s) => s.name === 'booted')?.status === 'done') ? true : undefined;
      });
      await a.close();
      services.splice(services.indexOf(a), 1);
      // now the hosts register, as their agents would
      const registered = new Set<number>();
      const agents = setInterval(() => {
        emulated.forEach((e, i) => {
          if (registered.has(i) || !e.guest.boots.at(-1)?.done) return;
          registered.add(i);
          void call(b, 'POST', `${API}/infra-envs/${env.json.id}/hosts`, {
            host_id: e.uuid,
            discovery_agent_version: 't',
          });
        });
      }, 100);
      const done = await until('every job to finish on the remaining replica', 60_000, async () => {
        const js = await Promise.all(jobs.map((j, i) => call<JobView>(b, 'GET', `${BMCS}/r${i}/jobs/${j.id}`)));
        return js.every((j) => j.json.state === 'succeeded' || j.json.state === 'failed')
          ? js.map((j) => j.json)
          : undefined;
      });
      clearInterval(agents);
      expect(done.map((j) => [j.state, j.error])).toEqual(done.map(() => ['succeeded', null]));
      expect(done.map((j) => j.host_id).sort()).toEqual(emulated.map((e) => e.uuid).sort());
      // the Redfish part ran once per job: one insert and one power-on per BMC, whoever resumed it
      for (const e of emulated) {
        expect(e.bmc.requests.filter((r) => r.path.endsWith('InsertMedia') && r.status === 204)).toHaveLength(1);
        expect(e.bmc.requests.filter((r) => r.path.endsWith('ComputerSystem.Reset'))).toHaveLength(1);
      }
      // a's jobs were resumed by b (claimed twice), none ran a third time
      expect(done.some((j) => j.claims === 2)).toBe(true);
      expect(Math.max(...done.map((j) => j.claims))).toBeLessThanOrEqual(2);
    });
  });
}
