// The all-in-one service end to end, in process: the assisted API creates an InfraEnv,
// its download_url (served by the image side of the same process) yields an ISO whose
// embedded Ignition is exactly the InfraEnv's discovery Ignition, with its kargs; changes
// to the InfraEnv show up in the next download; tokens of one InfraEnv open no other.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { DEMO_IMAGE_PATH } from './package-root.js';
import { readEmbedArea } from './initrd/embed-archive.js';
import { parseLiveIso } from './iso/live-layout.js';
import { readEmbeddedKargs } from './iso/read-embed-areas.js';
import type { LiveManifest } from './iso/manifest.js';
import { createLogger } from './logger.js';
import { type RunningService, startService } from './service.js';

const API = '/api/assisted-install/v2';
const PULL_SECRET = JSON.stringify({
  auths: { 'quay.io': { auth: Buffer.from('user:pass').toString('base64'), email: 'a@b.c' } },
});
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host';

interface Harness {
  service: RunningService;
  dir: string;
  manifest: LiveManifest;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

async function startHarness(env: Record<string, string> = {}, logs?: string[]): Promise<Harness> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-e2e-'));
  const config = loadConfig({
    LISTEN_PORT: '0',
    LISTEN_ADDRESS: '127.0.0.1',
    DATA_DIR: dir,
    AUTH_TYPE: 'none',
    ...env,
  });
  const logger = logs ? createLogger('debug', { write: (line: string) => logs.push(line) }) : createLogger('silent');
  const service = await startService(config, logger, { defaultMetrics: false });
  await service.imagesLoaded;
  const manifest = await parseLiveIso(DEMO_IMAGE_PATH);
  const call = (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(service.url + p, {
      method,
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { service, dir, manifest, call };
}

async function stopHarness(h: Harness | undefined): Promise<void> {
  if (!h) return;
  await h.service.close();
  await rm(h.dir, { recursive: true, force: true });
}

async function embedded(iso: Buffer, manifest: LiveManifest): Promise<{ ignition: string; kargs: string }> {
  const area = iso.subarray(manifest.ignition.offset, manifest.ignition.offset + manifest.ignition.length);
  const contents = await readEmbedArea(area);
  const file = path.join(tmpdir(), `downloaded-${process.pid}-${Date.now()}.iso`);
  await (await import('node:fs/promises')).writeFile(file, iso);
  try {
    return { ignition: contents.ignition?.toString() ?? '', kargs: await readEmbeddedKargs(file, manifest) };
  } finally {
    await rm(file, { force: true });
  }
}

describe('all-in-one service with AUTH_TYPE=none', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => stopHarness(h));

  it('serves, at the InfraEnv download_url, an ISO carrying its discovery Ignition and kernel arguments', async () => {
    const created = await h.call('POST', `${API}/infra-envs`, {
      name: 'lab',
      pull_secret: PULL_SECRET,
      ssh_authorized_key: SSH_KEY,
      openshift_version: '4.17',
      cpu_architecture: 'x86_64',
      image_type: 'full-iso',
      kernel_arguments: [{ operation: 'append', value: 'console=ttyS0' }],
    });
    expect(created.status).toBe(201);
    const infraEnv = (await created.json()) as { id: string; download_url: string };
    expect(infraEnv.download_url).toMatch(new RegExp(`/byid/${infraEnv.id}/4\\.17/x86_64/full\\.iso$`));

    const discovery = await (
      await h.call('GET', `${API}/infra-envs/${infraEnv.id}/downloads/files?file_name=discovery.ign`)
    ).text();
    expect(JSON.parse(discovery).ignition.version).toBe('3.1.0');

    const iso = Buffer.from(await (await fetch(infraEnv.download_url)).arrayBuffer());
    const base = await readFile(DEMO_IMAGE_PATH);
    expect(iso.length).toBe(base.length);
    const got = await embedded(iso, h.manifest);
    expect(JSON.parse(got.ignition)).toEqual(JSON.parse(discovery));
    expect(got.ignition).toContain(SSH_KEY);
    expect(got.kargs).toBe(`${h.manifest.kargs!.default} console=ttyS0`);
  });

  it('the bundled demo image serves minimal ISOs: a minimal-iso InfraEnv downloads one', async () => {
    const created = await h.call('POST', `${API}/infra-envs`, {
      name: 'acm-style',
      pull_secret: PULL_SECRET,
      openshift_version: '4.17',
      image_type: 'minimal-iso',
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { download_url: url } = (await created.json()) as { download_url: string };
    expect(url).toMatch(/\/minimal\.iso$/);
    // the minimal variant is rebuilt from coreos/miniso.dat once; 503 + Retry-After until then (bounded)
    let res = await fetch(url);
    for (let i = 0; i < 150 && res.status === 503; i++) {
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 200));
      res = await fetch(url);
    }
    expect(res.status).toBe(200);
    const iso = Buffer.from(await res.arrayBuffer());
    expect(iso.subarray(32769, 32774).toString('latin1')).toBe('CD001');
    // the minimal ISO's boot configs fetch the rootfs from the image service instead of carrying it
    expect(iso.toString('latin1')).toContain('coreos.live.rootfs_url=');
    expect(iso.equals(await readFile(DEMO_IMAGE_PATH))).toBe(false);
  });

  it('serves the change after a PATCH at once (no stale cached ISO)', async () => {
    const created = (await (
      await h.call('POST', `${API}/infra-envs`, {
        name: 'patchme',
        pull_secret: PULL_SECRET,
        openshift_version: '4.17',
      })
    ).json()) as {
      id: string;
      download_url: string;
    };
    const url = created.download_url;
    const before = await fetch(url, { method: 'HEAD' });
    const patched = await h.call('PATCH', `${API}/infra-envs/${created.id}`, { ssh_authorized_key: SSH_KEY });
    expect(patched.status).toBe(201);
    const after = await fetch(url);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const got = await embedded(Buffer.from(await after.arrayBuffer()), h.manifest);
    expect(got.ignition).toContain(SSH_KEY);
  });

  it('refuses at creation kernel arguments that would not fit the ISO kargs areas, naming both sizes', async () => {
    const room = h.manifest.kargs!.size - 1 - h.manifest.kargs!.default.length;
    const tooLong = `x=${'a'.repeat(room - 2)}`; // with its separating space: one byte too many
    const reply = await h.call('POST', `${API}/infra-envs`, {
      name: 'long-kargs',
      pull_secret: PULL_SECRET,
      openshift_version: '4.17',
      kernel_arguments: [{ operation: 'append', value: tooLong }],
    });
    expect(reply.status).toBe(413);
    const body = (await reply.json()) as { reason: string };
    expect(body.reason).toContain(`${tooLong.length + 1} bytes but only ${room} bytes`);
    const justFits = await h.call('POST', `${API}/infra-envs`, {
      name: 'fitting-kargs',
      pull_secret: PULL_SECRET,
      openshift_version: '4.17',
      kernel_arguments: [{ operation: 'append', value: tooLong.slice(0, -1) }],
    });
    expect(justFits.status, await justFits.clone().text()).toBe(201);
    const iso = Buffer.from(
      await (await fetch(((await justFits.json()) as { download_url: string }).download_url)).arrayBuffer(),
    );
    expect((await embedded(iso, h.manifest)).kargs).toBe(`${h.manifest.kargs!.default} ${tooLong.slice(0, -1)}`);
  });

  it('answers 404 for an unknown InfraEnv on every image route', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await fetch(`${h.service.url}/byid/${unknown}/4.17/x86_64/full.iso`, { method: 'HEAD' })).status).toBe(404);
    expect((await fetch(`${h.service.url}/images/${unknown}/pxe-initrd?version=4.17`)).status).toBe(404);
  });
});

describe('all-in-one service on a base image without coreos/miniso.dat', () => {
  let h: Harness | undefined;
  beforeAll(async () => {
    const plain = path.join(path.dirname(DEMO_IMAGE_PATH), 'x86_64.iso');
    h = await startHarness({
      OS_IMAGES: JSON.stringify([
        { openshift_version: '4.17', cpu_architecture: 'x86_64', url: `file://${plain}`, version: '417.94.plain' },
      ]),
    });
  });
  afterAll(() => stopHarness(h));

  it('accepts a minimal-iso InfraEnv, as upstream does, and its download says why not, naming the image', async () => {
    const created = await h!.call('POST', `${API}/infra-envs`, {
      name: 'no-miniso',
      pull_secret: PULL_SECRET,
      openshift_version: '4.17',
      image_type: 'minimal-iso',
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { download_url: url } = (await created.json()) as { download_url: string };
    const res = await fetch(url);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(
      'minimal ISOs need a base image that carries coreos/miniso.dat, and 4.17 x86_64 does not; request type=full-iso',
    );
  });
});

describe('all-in-one service with AUTH_TYPE=local', () => {
  let h: Harness;
  const logs: string[] = [];
  beforeAll(async () => {
    h = await startHarness({ AUTH_TYPE: 'local' }, logs);
  });
  afterAll(() => stopHarness(h));

  it('opens an ISO only with its own InfraEnv token', async () => {
    const admin = (await readFile(path.join(h.dir, 'auth', 'admin-token'), 'utf8')).trim();
    const auth = { Authorization: `Bearer ${admin}` };
    const create = async (name: string) =>
      (await (
        await h.call('POST', `${API}/infra-envs`, { name, pull_secret: PULL_SECRET, openshift_version: '4.17' }, auth)
      ).json()) as {
        id: string;
        download_url: string;
      };
    const a = await create('a');
    const b = await create('b');
    expect(a.download_url).toMatch(/\/bytoken\/[A-Za-z0-9_-]{32}\/4\.17\/x86_64\/full\.iso$/);

    const ok = await fetch(a.download_url, { method: 'HEAD' });
    expect(ok.status).toBe(200);

    // b's token used for a's ISO
    const bToken = new URL(b.download_url).pathname.split('/')[2]!;
    const crossed = await fetch(`${h.service.url}/images/${a.id}?version=4.17&type=full-iso&api_key=${bToken}`, {
      method: 'HEAD',
    });
    expect([401, 403]).toContain(crossed.status);
    const anonymous = await fetch(`${h.service.url}/byid/${a.id}/4.17/x86_64/full.iso`, { method: 'HEAD' });
    expect(anonymous.status).toBe(401);
    const forged = await fetch(
      `${h.service.url}/images/${a.id}?version=4.17&type=full-iso&api_key=${bToken.slice(0, -4)}AAAA`,
      { method: 'HEAD' },
    );
    expect(forged.status).toBe(401);

    // debug logs of all of the above carry no secret: no token, no pull secret, no Ignition
    const text = logs.join('');
    expect(text).toContain('request'); // the access log did run at debug level
    for (const secret of [admin, bToken, new URL(a.download_url).pathname.split('/')[2]!, 'dXNlcjpwYXNz', 'quay.io']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('service listener limits (issue 15, finding 1)', () => {
  let h: Harness;
  const logs: string[] = [];
  beforeAll(async () => {
    h = await startHarness({ HTTP_HEADER_TIMEOUT: '300ms', HTTP_MAX_IDLE_PER_ADDRESS: '2' }, logs);
  });
  afterAll(() => stopHarness(h));

  it('closes a connection that never sends a request, and reports the connection cap', async () => {
    const port = Number(new URL(h.service.url).port);
    const socket = net.connect(port, '127.0.0.1');
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
      socket.on('error', () => undefined);
      const bound = setTimeout(() => reject(new Error('idle connection still open after 10 s')), 10_000);
      socket.once('close', () => {
        clearTimeout(bound);
        resolve(text);
      });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    const metrics = await (await h.call('GET', '/metrics')).text();
    expect(metrics).toMatch(/bootsmith_http_connections_closed_total\{reason="header_timeout"\} [1-9]/);
    expect(metrics).toMatch(/bootsmith_http_connection_limit \d+/);
    expect(logs.join('')).toMatch(/"connectionCap":\d+.*"msg":"connection limits"/);
  });
});
