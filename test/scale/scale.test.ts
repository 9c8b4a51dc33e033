// Scale-out on real engines (issue 13): Debian's PostgreSQL (a throwaway database), s3rver
// holding the base ISO, three `bootsmith serve --role all` replicas on one DATABASE_URL, and
// Debian's haproxy round-robin in front. The checks run in order on one cluster:
//   - a full discovery ISO through the balancer equals each replica's, byte for byte
//   - 200 range requests through the balancer (landing on every replica) reassemble it
//   - ETag and Last-Modified are identical on every replica
//   - an image-url token and the admin token minted by replica A work on B and C
//   - 50 hosts going silent give exactly 50 `disconnected-unbound` events across the replicas
//   - SIGTERM to one replica during 8 streaming downloads: all 8 finish with the right bytes,
//     new requests succeed through the others, the replica exits 0
//   - a fourth replica with IMAGE_SERVE_WHILE_DOWNLOADING=true against a throttled origin
//     answers a discovery ISO range request (the same bytes and ETag as the others) before its
//     download completed
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type BuiltCli, buildCli } from '../support/build-cli.js';
import { freePort } from '../support/serve-child.js';
import { type ThrottledOrigin, startThrottledOrigin } from './support/throttled-origin.js';
import {
  DEFAULT_TEST_DATABASE_URL,
  type LoadBalancer,
  type ObjectStore,
  type Replica,
  type ScratchDatabase,
  scratchDatabase,
  spawnReplica,
  startLoadBalancer,
  startObjectStore,
  stopReplica,
  waitHealthy,
  waitUntil,
} from './support/cluster.js';

const API = '/api/assisted-install/v2';
/** Big enough that 8 paused downloads cannot sit whole in loopback socket buffers. */
const PAD_MIB = 48;
const RANGE_REQUESTS = 200;
const STREAMS_DURING_DRAIN = 8;
const HOSTS = 50;
/** Short, so the host monitor (every third of it) marks the silent hosts within seconds. */
const HOST_MAX_DISCONNECTION = '3s';
const HOSTS_DISCONNECTED_TIMEOUT_MS = 60_000;
const DRAIN_EXIT_TIMEOUT_MS = 90_000;
/** The throttled origin: a 49 MiB ISO takes ~50 s to download whole (margin for a slow replica start). */
const ORIGIN_BYTES_PER_SECOND = 1024 * 1024;
const PULL_SECRET = JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from('u:p').toString('base64') } } });

const sha = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');

interface Got {
  status: number;
  headers: Headers;
  body: Buffer;
}
async function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Got> {
  const res = await fetch(url, { method, headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('three replicas behind haproxy on one PostgreSQL', () => {
  let work: string;
  let built: BuiltCli;
  let db: ScratchDatabase;
  let s3: ObjectStore;
  let iso: Buffer;
  const replicas: Replica[] = [];
  let lb: LoadBalancer;
  let origin: ThrottledOrigin | undefined;
  let admin: string;
  let infraEnvId: string;
  let downloadPath: string;
  let expected: string;
  let replicaEnv: Record<string, string>;

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'bootsmith-scale-'));
    const isoPath = path.join(work, 'base.iso');
    execFileSync(
      'bash',
      [path.join(REPO_ROOT, 'fixtures', 'build-live-iso.sh'), '--size-pad', String(PAD_MIB), '--out', isoPath],
      {
        stdio: 'ignore',
        timeout: 120_000,
      },
    );
    iso = await readFile(isoPath);
    built = await buildCli();
    db = await scratchDatabase(process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL);
    s3 = await startObjectStore(path.join(work, 's3'), 'isos', 'rhcos/4.17/live.iso', iso);
    // Every replica names the balancer as the address clients and agents use: those URLs are
    // part of the discovery Ignition, so a replica left on its own address serves other bytes.
    const lbPort = await freePort();
    const lbUrl = `http://127.0.0.1:${lbPort}`;
    const env = {
      ...s3.env,
      SERVICE_BASE_URL: lbUrl,
      IMAGE_SERVICE_BASE_URL: lbUrl,
      DATABASE_URL: db.url,
      AUTH_TYPE: 'local',
      HOST_MAX_DISCONNECTION_TIME: HOST_MAX_DISCONNECTION,
      SHUTDOWN_GRACE_SECONDS: '60',
      OS_IMAGES: JSON.stringify([
        {
          openshift_version: '4.17',
          cpu_architecture: 'x86_64',
          url: 's3://isos/rhcos/4.17/live.iso',
          version: '417.94.202410090854-0',
          sha256: sha(iso),
        },
      ]),
    };
    replicaEnv = env;
    // Started together: migrations and the first keys race on one fresh database.
    for (const name of ['a', 'b', 'c']) {
      const dataDir = path.join(work, name);
      await mkdir(dataDir);
      replicas.push(await spawnReplica(built.cli, name, dataDir, env));
    }
    await Promise.all(replicas.map((r) => waitHealthy(r)));
    lb = await startLoadBalancer(work, lbPort, replicas);
    admin = (await readFile(path.join(replicas[0]!.dataDir, 'auth', 'admin-token'), 'utf8')).trim();
  });

  afterAll(async () => {
    await lb?.stop();
    await Promise.all(replicas.map((r) => stopReplica(r)));
    await origin?.close();
    await s3?.close();
    await db?.drop();
    await built?.remove();
    if (work) await rm(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  const a = () => replicas[0]!;
  const b = () => replicas[1]!;
  const c = () => replicas[2]!;
  const adminAuth = () => ({ Authorization: `Bearer ${admin}` });

  it('creates an InfraEnv through the balancer; a full download through it equals each replica’s', async () => {
    const created = await fetch(`${lb.url}${API}/infra-envs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...adminAuth() },
      body: JSON.stringify({ name: 'scale', pull_secret: PULL_SECRET, openshift_version: '4.17' }),
    });
    expect(created.status).toBe(201);
    const infraEnv = (await created.json()) as { id: string; download_url: string };
    infraEnvId = infraEnv.id;
    downloadPath = new URL(infraEnv.download_url).pathname;

    const viaLb = await get(lb.url + downloadPath);
    expect(viaLb.status).toBe(200);
    expect(viaLb.body.length).toBe(iso.length);
    expected = sha(viaLb.body);
    expect(expected).not.toBe(sha(iso)); // the Ignition is spliced in
    for (const r of replicas) {
      const direct = await get(r.url + downloadPath);
      expect(direct.status, r.name).toBe(200);
      expect(sha(direct.body), r.name).toBe(expected);
    }
  });

  it('gives identical ETag and Last-Modified on every replica', async () => {
    const heads = await Promise.all(replicas.map((r) => get(r.url + downloadPath, {}, 'HEAD')));
    for (const h of heads) expect(h.status).toBe(200);
    const etags = new Set(heads.map((h) => h.headers.get('etag')));
    const modified = new Set(heads.map((h) => h.headers.get('last-modified')));
    expect(etags.size).toBe(1);
    expect(modified.size).toBe(1);
    expect([...etags][0]).toMatch(/^"/);
    expect([...modified][0]).toBeTruthy();
    // A BMC's If-Range from one replica is honoured by another.
    const etag = [...etags][0]!;
    const partial = await get(c().url + downloadPath, { Range: 'bytes=100-199', 'If-Range': etag });
    expect(partial.status).toBe(206);
  });

  it('reassembles the same bytes from 200 range requests through the balancer, served by every replica', async () => {
    const size = iso.length;
    const step = Math.ceil(size / RANGE_REQUESTS);
    const parts: Buffer[] = [];
    const servedBy = new Set<string>();
    for (let i = 0; i < RANGE_REQUESTS; i++) {
      const start = i * step;
      const end = Math.min(size, start + step) - 1;
      if (start > end) break;
      const r = await get(lb.url + downloadPath, { Range: `bytes=${start}-${end}` });
      expect(r.status).toBe(206);
      expect(r.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
      servedBy.add(r.headers.get('x-served-by') ?? '');
      parts.push(r.body);
    }
    expect(parts.length).toBe(RANGE_REQUESTS);
    expect(sha(Buffer.concat(parts))).toBe(expected);
    expect([...servedBy].sort()).toEqual(['a', 'b', 'c']);
  });

  it('accepts replica A’s image-url token and admin token on B and C, and refuses a forged one', async () => {
    const imageUrl = (await (
      await fetch(`${a().url}${API}/infra-envs/${infraEnvId}/downloads/image-url`, { headers: adminAuth() })
    ).json()) as { url: string };
    const tokenPath = new URL(imageUrl.url).pathname + new URL(imageUrl.url).search;
    for (const r of [b(), c()]) {
      const withToken = await get(r.url + tokenPath, { Range: 'bytes=0-1023' });
      expect(withToken.status, `${r.name} image token`).toBe(206);
      const list = await get(`${r.url}${API}/infra-envs`, adminAuth());
      expect(list.status, `${r.name} admin token`).toBe(200);
      expect(JSON.parse(list.body.toString()).map((e: { id: string }) => e.id)).toContain(infraEnvId);
      const forged = await get(`${r.url}${API}/infra-envs`, { Authorization: `Bearer ${admin.slice(0, -4)}AAAA` });
      expect(forged.status, `${r.name} forged admin token`).toBe(401);
    }
  });

  it('turns 50 silent hosts disconnected with exactly 50 events across the replicas', async () => {
    // download_url carries a short opaque image token; the agent's API key (a JWT) is in the iPXE script.
    const script = await get(
      `${lb.url}${API}/infra-envs/${infraEnvId}/downloads/files?file_name=ipxe-script`,
      adminAuth(),
    );
    expect(script.status).toBe(200);
    const apiKey = decodeURIComponent(/[?&]api_key=([^&\s]+)/.exec(script.body.toString())![1]!);
    const agent = { 'Content-Type': 'application/json', 'X-Secret-Key': apiKey };
    const hostIds: string[] = [];
    for (let i = 0; i < HOSTS; i++) {
      const id = randomUUID();
      // registrations spread over the replicas by the balancer
      const res = await fetch(`${lb.url}${API}/infra-envs/${infraEnvId}/hosts`, {
        method: 'POST',
        headers: agent,
        body: JSON.stringify({ host_id: id }),
      });
      expect(res.status).toBe(201);
      await res.arrayBuffer();
      hostIds.push(id);
    }
    const hostStatuses = async () =>
      (
        JSON.parse(
          (await get(`${lb.url}${API}/infra-envs/${infraEnvId}/hosts`, adminAuth())).body.toString(),
        ) as Array<{
          status: string;
        }>
      ).map((h) => h.status);
    await waitUntil(
      `${HOSTS} hosts disconnected`,
      async () => (await hostStatuses()).filter((s) => s === 'disconnected-unbound').length === HOSTS,
      HOSTS_DISCONNECTED_TIMEOUT_MS,
    );
    // Several more monitor passes on every replica: nothing may be emitted twice.
    await new Promise((r) => setTimeout(r, 3000));
    const events = JSON.parse(
      (await get(`${lb.url}${API}/events?infra_env_id=${infraEnvId}&limit=-1`, adminAuth())).body.toString(),
    ) as Array<{ host_id?: string; message: string }>;
    const disconnected = events.filter((e) => / to disconnected-unbound /.test(e.message));
    expect(disconnected.length).toBe(HOSTS);
    expect(new Set(disconnected.map((e) => e.host_id)).size).toBe(HOSTS);
    expect(new Set(disconnected.map((e) => e.host_id))).toEqual(new Set(hostIds));
  });

  it('drains on SIGTERM: 8 streams in flight finish with the right bytes while new requests go to the others', async () => {
    const victim = c();
    // 8 downloads straight to the victim, each paused after its first chunk.
    const streams = Array.from({ length: STREAMS_DURING_DRAIN }, () => pausedDownload(victim.url + downloadPath));
    await Promise.all(streams.map((s) => s.started));

    victim.child.kill('SIGTERM');
    await waitUntil(
      'the draining replica out of the balancer',
      async () => {
        const h = await fetch(`${victim.url}/health`).then(
          (r) => r.status,
          () => 0,
        );
        return h !== 200;
      },
      10_000,
    );
    // New requests through the balancer succeed, served by the others.
    for (let i = 0; i < 12; i++) {
      const r = await get(lb.url + downloadPath, { Range: `bytes=${i * 1000}-${i * 1000 + 999}` });
      expect(r.status).toBe(206);
      expect(r.headers.get('x-served-by')).not.toBe(victim.name);
      expect(r.body.equals(Buffer.from(await rangeOf(a().url + downloadPath, i * 1000, i * 1000 + 999)))).toBe(true);
    }
    expect(victim.child.exitCode).toBeNull(); // still streaming

    for (const s of streams) s.resume();
    const results = await Promise.all(streams.map((s) => s.done));
    for (const r of results) {
      expect(r.status).toBe(200);
      expect(r.bytes).toBe(iso.length);
      expect(r.sha256).toBe(expected);
    }
    const code = await Promise.race([
      victim.exited,
      new Promise<string>((r) => setTimeout(() => r('timeout'), DRAIN_EXIT_TIMEOUT_MS)),
    ]);
    expect(code, victim.output()).toBe(0);
    expect(victim.output()).toMatch(/"msg":"drained; stopped"/);
    expect(victim.output()).toMatch(/"cut":0/);
  });

  it('serves a discovery ISO range from a replica whose image is still downloading from a throttled origin', async () => {
    origin = await startThrottledOrigin(iso, ORIGIN_BYTES_PER_SECOND);
    const dataDir = path.join(work, 'd');
    await mkdir(dataDir);
    const d = await spawnReplica(built.cli, 'd', dataDir, {
      ...replicaEnv,
      IMAGE_SERVE_WHILE_DOWNLOADING: 'true',
      OS_IMAGES: JSON.stringify([
        {
          openshift_version: '4.17',
          cpu_architecture: 'x86_64',
          url: `${origin.url}/rhcos/4.17/live.iso`,
          version: '417.94.202410090854-0',
          sha256: sha(iso),
        },
      ]),
    });
    replicas.push(d);
    await waitHealthy(d);
    const downloading = async () => {
      const health = JSON.parse((await get(`${d.url}/health`)).body.toString()) as {
        images: Array<{ state: string; serving_while_downloading?: { local_bytes: number; total_bytes: number } }>;
      };
      return health.images[0]!;
    };
    const before = await downloading();
    expect(before.state).toBe('ready');
    expect(before.serving_while_downloading!.local_bytes).toBeLessThan(iso.length);

    // The head (Ignition and kargs areas) and the tail, which is not local yet.
    const reference = a();
    for (const range of ['bytes=0-1048575', `bytes=${iso.length - 3_000_000}-${iso.length - 1}`]) {
      const fromD = await get(d.url + downloadPath, { Range: range });
      const fromA = await get(reference.url + downloadPath, { Range: range });
      expect(fromD.status).toBe(206);
      expect(fromD.headers.get('etag')).toBe(fromA.headers.get('etag'));
      expect(fromD.headers.get('last-modified')).toBe(fromA.headers.get('last-modified'));
      expect(sha(fromD.body)).toBe(sha(fromA.body));
    }
    expect(origin.rangeReads()).toBeGreaterThan(0);
    const after = await downloading();
    expect(after.serving_while_downloading, 'the download finished before the check').toBeDefined();
    expect(after.serving_while_downloading!.local_bytes).toBeLessThan(iso.length);
  });
});

async function rangeOf(url: string, start: number, end: number): Promise<ArrayBuffer> {
  const res = await fetch(url, { headers: { Range: `bytes=${start}-${end}` } });
  return res.arrayBuffer();
}

interface PausedDownload {
  started: Promise<void>;
  resume(): void;
  done: Promise<{ status: number; bytes: number; sha256: string }>;
}

/** A GET on its own connection that stops reading after its first chunk until resume(). */
function pausedDownload(url: string): PausedDownload {
  let resume!: () => void;
  const resumed = new Promise<void>((r) => (resume = r));
  let started!: () => void;
  const startedP = new Promise<void>((r) => (started = r));
  const done = new Promise<{ status: number; bytes: number; sha256: string }>((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      let first = true;
      res.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        bytes += chunk.length;
        if (first) {
          first = false;
          res.pause();
          started();
          void resumed.then(() => res.resume());
        }
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, bytes, sha256: hash.digest('hex') }));
      res.once('error', reject);
    });
    req.once('error', reject);
  });
  return { started: startedP, resume, done };
}
