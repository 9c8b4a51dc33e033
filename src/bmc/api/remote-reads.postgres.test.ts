// A boot job on a core whose ISO URLs an image replica serves, fronting it over
// ASSISTED_SERVICE_URL (`--role image`, as the Kubernetes base runs): the replica sends the reads
// of the job's /bytoken/ URL to the core (POST /api/bootsmith/v1/token-reads, the token in
// Image-Token, signed with the IMAGE_REPLICA_KEY_FILE both share), so the job sees its BMC read the
// ISO and cover the boot files. The endpoint refuses a report without the replica's signature (the
// URL token alone is no proof: 401, nothing counted), malformed reports naming the field, and
// answers 204 for a token that is no job's.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { embeddedBackend } from '../../platform/db/test-support/backends.js';
import { createLogger } from '../../logger.js';
import { type RunningService, startService } from '../../service.js';
import { EXTENSION_API_PREFIX } from '../../url-grammar.js';
import { REPLICA_PROOF_HEADER, replicaProof } from '../../image-ports/remote/replica-proof.js';
import { type EmulatedBmc, startVirtualBmc, type VirtualGuest } from '../../../test/support/redfish-emulator/index.js';
import type { JobView } from '../bmc-view.js';

const API = '/api/assisted-install/v2';
const BMCS = `${EXTENSION_API_PREFIX}/bmcs`;
const UUID = 'c0ffee00-0000-4000-8000-000000000777';
const REPLICA_KEY = randomBytes(32);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function until<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('an image replica fronting the core sends the reads of job URLs', () => {
  let storage: Awaited<ReturnType<ReturnType<typeof embeddedBackend>['create']>>;
  let dir: string;
  let core: RunningService;
  let image: RunningService;
  let bmc: EmulatedBmc;
  let guest: VirtualGuest;

  const call = async <T>(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(core.url + p, {
      method,
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T };
  };

  beforeAll(async () => {
    storage = await embeddedBackend().create();
    dir = await mkdtemp(path.join(tmpdir(), 'bmc-remote-reads-'));
    const keyFile = path.join(dir, 'replica.key');
    await writeFile(keyFile, `${REPLICA_KEY.toString('base64')}\n`, { mode: 0o600 });
    const imagePort = await freePort();
    const quiet = createLogger('warn', { write: () => undefined });
    core = await startService(
      loadConfig({
        LISTEN_PORT: '0',
        LISTEN_ADDRESS: '127.0.0.1',
        DATA_DIR: path.join(dir, 'core'),
        DATABASE_URL: storage.databaseUrl!,
        AUTH_TYPE: 'none',
        IMAGE_SERVICE_BASE_URL: `http://127.0.0.1:${imagePort}`,
        IMAGE_REPLICA_KEY_FILE: keyFile,
      }),
      quiet,
      { defaultMetrics: false },
    );
    await core.imagesLoaded;
    image = await startService(
      loadConfig(
        {
          LISTEN_PORT: String(imagePort),
          LISTEN_ADDRESS: '127.0.0.1',
          DATA_DIR: path.join(dir, 'image'),
          ASSISTED_SERVICE_URL: core.url,
          IMAGE_REPLICA_KEY_FILE: keyFile,
        },
        ['--role', 'image'],
      ),
      quiet,
      { defaultMetrics: false },
    );
    await image.imagesLoaded;
    ({ bmc, guest } = await startVirtualBmc({ name: 'remote', profile: 'generic', uuid: UUID }));
  });
  afterAll(async () => {
    await bmc?.close();
    await image?.close();
    await core?.close();
    await storage?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the job follows reads served by the image replica to the end', async () => {
    const env = await call<{ id: string }>('POST', `${API}/infra-envs`, {
      name: 'remote-reads',
      pull_secret: '{"auths":{"quay.io":{"auth":"dTpw"}}}',
      openshift_version: '4.17',
    });
    expect(env.status).toBe(201);
    const added = await call('POST', BMCS, {
      name: 'remote',
      address: bmc.rootUrl,
      username: 'admin',
      password: 'emulator-password',
      infra_env_id: env.json.id,
      eject: 'always',
    });
    expect(added.status).toBe(201);
    await until('the refresh', 20_000, async () =>
      (await call<{ state: string }>('GET', `${BMCS}/remote`)).json.state === 'ready' ? true : undefined,
    );
    const job = (await call<JobView>('POST', `${BMCS}/remote/jobs`, { action: 'boot-discovery' })).json;
    await until('the guest to read through the image replica', 30_000, async () =>
      guest.boots.at(-1)?.done ? true : undefined,
    );
    expect(guest.boots.at(-1)?.url).toMatch(new RegExp(`^${image.url}/bytoken/`));
    await call('POST', `${API}/infra-envs/${env.json.id}/hosts`, { host_id: UUID, discovery_agent_version: 't' });
    const done = await until('the job', 30_000, async () => {
      const j = (await call<JobView>('GET', `${BMCS}/remote/jobs/${job.id}`)).json;
      return j.state === 'succeeded' || j.state === 'failed' ? j : undefined;
    });
    expect(done.error).toBeNull();
    expect(done.steps.find((s) => s.name === 'iso-read')?.detail).toMatch(
      /^the BMC read the ISO \(first read .* from 127\.0\.0\.1\)$/,
    );
    expect(done.steps.find((s) => s.name === 'booted')?.detail).toMatch(/^the reads covered the boot files/);
  });

  it("a report without the replica's signature marks nothing: the URL token alone is no proof", async () => {
    // A BMC that accepts the insert and never reads: the job waits at iso-read, its URL in the slot
    // for anyone who can read the BMC's Redfish answers.
    bmc.setFaults({ neverReadsIso: true });
    const job = (await call<JobView>('POST', `${BMCS}/remote/jobs`, { action: 'boot-discovery' })).json;
    const image = await until('the insert', 30_000, async () => bmc.model.slots.find((s) => s.inserted)?.image);
    const token = /\/bytoken\/([^/]+)\//.exec(image)![1]!;
    const forged = JSON.stringify({
      reads: [{ method: 'GET', ranges: [[0, 1_000]], size: 1_000, boot_extents: [[0, 1_000]], address: '10.9.9.9', at: new Date().toISOString() }],
    }); // prettier-ignore
    const report = (headers: Record<string, string>) =>
      fetch(`${core.url}${EXTENSION_API_PREFIX}/token-reads`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Image-Token': token, ...headers },
        body: forged,
      });
    const refusals = [
      await report({}),
      await report({ [REPLICA_PROOF_HEADER]: replicaProof(randomBytes(32), token, forged) }),
      await report({ [REPLICA_PROOF_HEADER]: replicaProof(REPLICA_KEY, token, `${forged} `) }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([401, 401, 401]);
    expect(((await refusals[0]!.json()) as { message: string }).message).toBe(
      `${REPLICA_PROOF_HEADER}: reports of a job URL's reads are taken from image replicas that sign them with this core's IMAGE_REPLICA_KEY_FILE`,
    );
    // two follow rounds later the job still waits for its BMC to read
    await new Promise((r) => setTimeout(r, 5_000));
    const waiting = (await call<JobView>('GET', `${BMCS}/remote/jobs/${job.id}`)).json;
    const isoRead = waiting.steps.find((s) => s.name === 'iso-read');
    expect(isoRead?.status).toBe('running'); // waiting, not done: the forged reads counted for nothing
    expect(isoRead?.detail).toMatch(/waiting/);
    // the same report signed as the replica signs it is counted: the signature is what decides
    expect((await report({ [REPLICA_PROOF_HEADER]: replicaProof(REPLICA_KEY, token, forged) })).status).toBe(204);
    await until('the signed report to count', 20_000, async () => {
      const j = (await call<JobView>('GET', `${BMCS}/remote/jobs/${job.id}`)).json;
      return j.steps.find((s) => s.name === 'iso-read')?.status === 'done' ? true : undefined;
    });
  });

  it('refuses malformed reports naming the field; a token that is no job is 204 and nothing else', async () => {
    const post = (body: unknown, token = 'x'.repeat(32)) =>
      call<{ reason?: string }>('POST', `${EXTENSION_API_PREFIX}/token-reads`, body, {
        ...(token ? { 'Image-Token': token } : {}),
        [REPLICA_PROOF_HEADER]: replicaProof(REPLICA_KEY, token, JSON.stringify(body)),
      });
    const read = {
      method: 'GET',
      ranges: [[0, 10]],
      size: 100,
      boot_extents: [],
      address: '10.0.0.1',
      at: new Date().toISOString(),
    };
    expect((await post({ reads: [read] })).status).toBe(204);
    for (const [body, token, reason] of [
      [{ reads: [read] }, '', 'Image-Token: a short image URL token is required'],
      [{ reads: [{ ...read, method: 'PUT' }] }, undefined, 'reads[0].method: GET or HEAD'],
      [{ reads: [{ ...read, ranges: [[10, 5]] }] }, undefined, 'reads[0].ranges: a range ends before it starts'],
      [{ reads: [{ ...read, at: 'yesterday' }] }, undefined, 'reads[0].at: an ISO 8601 time'],
      [{ reads: Array(257).fill(read) }, undefined, 'reads: a list of at most 256 reads'],
    ] as const) {
      const r = await post(body, token);
      expect(r.status).toBe(400);
      expect(r.json.reason).toBe(reason);
    }
  });
});
