// OS_IMAGES `rootfs_url` end to end over loopback HTTP on the whole service (core + image side):
// an InfraEnv on an image with rootfs_url gets a minimal ISO whose kargs areas (read back with
// readEmbeddedKargs, every area checked to agree) and an iPXE script whose kernel line point at
// exactly that URL; an image without it keeps this service's /boot-artifacts/rootfs, which still
// serves the ISO's rootfs either way. Real fixture ISOs (x86_64-miniso.iso has miniso.dat).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { parseLiveIso } from '../iso/live-layout.js';
import { readEmbeddedKargs } from '../iso/read-embed-areas.js';
import { createLogger } from '../logger.js';
import { type RunningService, startService } from '../service.js';

const API = '/api/assisted-install/v2';
const MINISO_ISO = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 'x86_64-miniso.iso');
const X86_ISO = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 'x86_64.iso');
/** With `&`: GRUB needs it quoted in the ISO, iPXE and the kernel take it as it is. */
const EXTERNAL = 'https://mirror.example.com/rhcos/4.16/rootfs.img?arch=x86_64&build=416.94.1';
const PULL_SECRET = JSON.stringify({ auths: { 'registry.example': { auth: 'dXNlcjpwYXNz', email: 'a@b.c' } } });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('OS_IMAGES rootfs_url', () => {
  let service: RunningService;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'external-rootfs-'));
    const osImages = [
      {
        openshift_version: '4.16',
        cpu_architecture: 'x86_64',
        url: MINISO_ISO,
        version: '416.94.1',
        rootfs_url: EXTERNAL,
      },
      { openshift_version: '4.17', cpu_architecture: 'x86_64', url: X86_ISO, version: '417.94.1' },
    ];
    const config = loadConfig({
      LISTEN_PORT: '0',
      LISTEN_ADDRESS: '127.0.0.1',
      DATA_DIR: dir,
      AUTH_TYPE: 'none',
      OS_IMAGES: JSON.stringify(osImages),
    });
    service = await startService(config, createLogger('silent'), { defaultMetrics: false });
    await service.imagesLoaded;
  });
  afterAll(async () => {
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function newInfraEnv(
    version: string,
    imageType = 'minimal-iso',
  ): Promise<{ id: string; download_url: string }> {
    const r = await fetch(`${service.url}${API}/infra-envs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: `rootfs-${version}`,
        pull_secret: PULL_SECRET,
        openshift_version: version,
        image_type: imageType,
      }),
    });
    expect(r.status).toBe(201);
    return (await r.json()) as { id: string; download_url: string };
  }

  async function kernelLine(infraEnvId: string): Promise<string> {
    const r = await fetch(`${service.url}${API}/infra-envs/${infraEnvId}/downloads/files?file_name=ipxe-script`);
    expect(r.status).toBe(200);
    const lines = (await r.text()).split('\n').filter((l) => l.startsWith('kernel '));
    expect(lines).toHaveLength(1);
    return lines[0]!;
  }

  it('makes the minimal ISO boot its rootfs from exactly rootfs_url, in every kargs area', async () => {
    const infraEnv = await newInfraEnv('4.16');
    expect(infraEnv.download_url).toMatch(/\/minimal\.iso$/);
    let reply = await fetch(infraEnv.download_url);
    // the minimal ISO is rebuilt from miniso.dat in the background once (bounded by time)
    for (const until = Date.now() + 60_000; reply.status === 503 && Date.now() < until;) {
      await reply.arrayBuffer();
      await sleep(100);
      reply = await fetch(infraEnv.download_url);
    }
    expect(reply.status).toBe(200);
    const iso = path.join(dir, 'served-minimal.iso');
    await writeFile(iso, Buffer.from(await reply.arrayBuffer()));

    const manifest = await parseLiveIso(iso); // also checks that all kargs areas agree
    const kargs = (await readEmbeddedKargs(iso, manifest)).trim().split(/\s+/);
    const rootfs = kargs.filter((k) => k.startsWith('coreos.live.rootfs_url='));
    expect(rootfs).toEqual([`coreos.live.rootfs_url="${EXTERNAL}"`]);
    expect(kargs.some((k) => k.startsWith('coreos.liveiso='))).toBe(false);
  });

  it("puts exactly rootfs_url on the iPXE script's kernel line", async () => {
    const infraEnv = await newInfraEnv('4.16');
    const line = await kernelLine(infraEnv.id);
    expect(line.split(' ').filter((w) => w.startsWith('coreos.live.rootfs_url='))).toEqual([
      `coreos.live.rootfs_url=${EXTERNAL}`,
    ]);
    expect(line).not.toContain('/boot-artifacts/rootfs');
  });

  it('keeps /boot-artifacts/rootfs for an image without rootfs_url', async () => {
    const infraEnv = await newInfraEnv('4.17', 'full-iso'); // x86_64.iso has no miniso.dat
    const line = await kernelLine(infraEnv.id);
    const words = line.split(' ').filter((w) => w.startsWith('coreos.live.rootfs_url='));
    expect(words).toHaveLength(1);
    expect(words[0]).toMatch(
      /^coreos\.live\.rootfs_url=http:\/\/[^ ]+\/boot-artifacts\/rootfs\?arch=x86_64&version=4\.17&infra_env_id=[0-9a-f-]{36}$/,
    );
  });

  it('still serves the rootfs of an image with rootfs_url from /boot-artifacts/rootfs', async () => {
    const manifest = await parseLiveIso(MINISO_ISO);
    const reply = await fetch(`${service.url}/boot-artifacts/rootfs?arch=x86_64&version=4.16`, {
      headers: { Range: 'bytes=0-3' },
    });
    expect(reply.status).toBe(206);
    expect(reply.headers.get('content-range')).toBe(`bytes 0-3/${manifest.files.rootfs!.length}`);
    expect((await reply.arrayBuffer()).byteLength).toBe(4);
  });
});
