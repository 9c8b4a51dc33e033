// OS_IMAGES registry sources (`oci://` images and artifacts, `release_image` payloads) through the
// whole image store, on real parts: Debian's docker-registry with TLS and htpasswd (and a token
// realm), images built with umoci and pushed with skopeo (phase 1's lab), an HTTPS proxy in front
// of the primary that counts requests and misbehaves on demand, a real cache directory.
//
// What it pins down: each shape is served once its digests are verified, all of them (the same
// ISO) from ONE stored file shared by every entry; tags are resolved once and shown pinned; a
// restart pulls nothing; each kind of bad input (wrong credentials, unknown digest, a blob that
// does not match, a bad .iso.sha256, a manifest too large, a tar bomb, several ISOs, a registry
// that stalls) fails that image alone with its reason in /health and the log, nothing of it is
// ever served (IMAGE_SERVE_WHILE_DOWNLOADING on), and the stall fails within a bound; a raw ISO
// blob cut by a stopped process resumes with Range after the restart.
import { readFileSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { unavailable } from '../../test/support/requirements.js';
import { CacheFiles, cacheName } from './cache/cache-layout.js';
import type { OciSettings } from './fetch/oci/oci-pull.js';
import { type FaultProxy, startFaultProxy } from './fetch/oci/test-support/fault-proxy.js';
import { OciLayout, mirror as mirrorImage, sha256Hex } from './fetch/oci/test-support/oci-images.js';
import {
  HAVE_REGISTRY_TOOLS,
  type Lab,
  MIRROR_USER,
  PRIMARY_USER,
  X86_ISO,
  X86_SHA,
  startLab,
} from './fetch/oci/test-support/registry-lab.js';
import { blobDataPath } from './fetch/oci/test-support/registry-process.js';
import { ManagedImageStore } from './managed-image-store.js';
import { type OsImageEntry, parseOsImages } from './os-images-config.js';
import { type ImageStoreSettings, defaultImageStoreSettings } from './store-settings.js';
import { fixtureVariant } from './test-support/images.js';
import { waitFor } from './test-support/wait.js';

/** Generous for a loaded 2-core machine; the clocks under test add up to about 3 s. */
const STALL_BOUND_MS = 60_000;

interface LogLine {
  level: number;
  msg: string;
  image?: string;
  reason?: string;
  [key: string]: unknown;
}

describe.skipIf(unavailable(HAVE_REGISTRY_TOOLS))('OS_IMAGES registry sources in the image store', () => {
  let lab: Lab;
  let proxy: FaultProxy;
  let n = 0;
  const open: ManagedImageStore[] = [];

  beforeAll(async () => {
    lab = await startLab();
    proxy = await startFaultProxy(lab.pki, lab.primary.host);
  }, 240_000);
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
    await proxy?.close();
    await lab?.stop();
  });

  /** The primary's reference of a lab shape, through the counting proxy. */
  const viaProxy = (shape: string) => lab.refs[shape]!.replace(lab.primary.host, proxy.host);
  const registry = (overrides: Partial<OciSettings> = {}): OciSettings =>
    lab.settings({
      authFiles: [
        lab.authFile({
          [lab.primary.host]: PRIMARY_USER,
          [proxy.host]: PRIMARY_USER,
          [lab.bearer.host]: PRIMARY_USER,
          [lab.mirror.host]: { user: MIRROR_USER.user, password: 'not-the-password' },
        }),
      ],
      ...overrides,
    });
  const settings = (overrides: Partial<OciSettings> = {}, extra: Partial<ImageStoreSettings> = {}) => {
    const d = defaultImageStoreSettings();
    return { ...d, ...extra, sources: { ...d.sources, registry: registry(overrides) } };
  };
  const store = (entries: OsImageEntry[], dataDir: string, s: ImageStoreSettings, log: LogLine[] = []) => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) log.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    const r = new ManagedImageStore(entries, [], createLogger('info', sink), {
      dataDir,
      settings: s,
      retry: { attempts: 2, baseDelayMs: 10, slowDelayMs: 60_000 },
    });
    open.push(r);
    return r;
  };
  const config = (items: object[]) => {
    const parsed = parseOsImages(JSON.stringify(items), 'OS_IMAGES');
    expect(parsed.problems).toEqual([]);
    return parsed.entries;
  };
  const dataDir = () => path.join(lab.dir, `data-${++n}`);
  const image = (version: string, source: Record<string, string>) => ({
    openshift_version: version,
    version: `${version.replace('.', '')}.94.0`,
    cpu_architecture: 'x86_64',
    ...source,
  });
  /** Publishes an artifact whose raw layer is `bytes` (a blob of its own) as `repo:tag`. */
  const publishArtifact = (repo: string, bytes: Buffer) => {
    const layout = new OciLayout(path.join(lab.work, `store-${repo.replace(/\W/g, '-')}`));
    layout.manifest(
      {
        layers: [
          { bytes, mediaType: 'application/octet-stream', annotations: { 'org.opencontainers.image.title': 'x.iso' } },
        ],
      },
      'v1',
    );
    return lab.publish(`store-${repo}`, repo, { layout: layout.dir, tag: 'v1' }).replace(lab.primary.host, proxy.host);
  };

  it('serves images, artifacts, manifest lists and release payloads from one stored file, resolved once, nothing pulled after a restart', async () => {
    proxy.rule = () => ({ kind: 'pass' });
    const entries = config([
      image('4.20', { url: `oci://${viaProxy('artifact')}` }),
      image('4.21', { url: `oci://${proxy.host}/art/iso:raw` }), // a tag
      image('4.22', { url: `oci://${viaProxy('gzip-v2s2')}` }),
      image('4.23', { url: `oci://${viaProxy('docker-list')}` }),
      image('4.24', { url: `oci://${viaProxy('zstd')}` }),
      image('4.25', { release_image: viaProxy('release') }),
      image('4.26', { url: `oci://${lab.refs.index!.replace(lab.primary.host, lab.bearer.host)}` }), // Bearer tokens
      image('4.27', { url: `oci://${viaProxy('machine-os-images')}` }), // coreos/coreos-x86_64.iso in a umoci layer
      image('4.28', { url: `oci://${viaProxy('mos-multi')}` }), // one layer, the ISOs of two architectures
    ]);
    const dir = dataDir();
    const r = store(entries, dir, settings());
    await r.loadAll();
    const health = r.health().images;
    expect(health.map((i) => i.state)).toEqual(Array(9).fill('ready'));
    for (const version of ['4.20', '4.21', '4.22', '4.23', '4.24', '4.25', '4.26', '4.27', '4.28']) {
      const served = r.resolve(version, 'x86_64');
      expect(served.base.identity).toBe(`sha256:${X86_SHA}`);
      expect((await served.base.readExactly(0, X86_ISO.length)).equals(X86_ISO)).toBe(true);
    }
    // the tag, resolved once and shown pinned
    expect(health[1]).toMatchObject({
      source: `oci://${proxy.host}/art/iso:raw`,
      resolved: `${proxy.host}/art/iso@${lab.digests.artifact}`,
      pulled_from: `${proxy.host}/art/iso@${lab.digests.artifact}`,
    });
    expect(health[5]).toMatchObject({
      source: `release_image ${viaProxy('release')}`,
      resolved: viaProxy('release'),
      machine_os_images: lab.refs['machine-os-images'],
    });
    // nine sources, one ISO: one stored file, every entry naming the eight others
    const isos = (await readdir(path.join(dir, 'images'))).filter((f) => f.endsWith('.iso'));
    expect(isos).toEqual([`sha256-${X86_SHA}.iso`]);
    expect(new Set(health.map((i) => i.file))).toEqual(new Set([`sha256-${X86_SHA}.iso`]));
    expect(health[0]!.shared_with).toEqual(
      ['4.21', '4.22', '4.23', '4.24', '4.25', '4.26', '4.27', '4.28'].map((v) => `${v} x86_64`),
    );
    await r.close();

    const before = proxy.requests.length;
    const again = store(entries, dir, settings());
    await again.loadAll();
    expect(again.health().images.map((i) => i.state)).toEqual(Array(9).fill('ready'));
    expect(again.health().images[1]!.resolved).toBe(`${proxy.host}/art/iso@${lab.digests.artifact}`);
    expect(proxy.requests.length).toBe(before); // nothing asked of the registry
  });

  it('fails each bad image alone, with its reason in /health and the log, never serving any of it', async () => {
    proxy.rule = () => ({ kind: 'pass' });
    // a mirror-side copy the configured credentials do not open
    mirrorImage(
      lab.pki,
      lab.refs.artifact!,
      `${PRIMARY_USER.user}:${PRIMARY_USER.password}`,
      `${lab.mirror.host}/locked/iso:x`,
      `${MIRROR_USER.user}:${MIRROR_USER.password}`,
    );
    // a blob of its own, then tampered with in the registry's storage (same length, one bit)
    const tamperedIso = fixtureVariant(41);
    const tampered = publishArtifact('bad/tamper', tamperedIso);
    const blob = blobDataPath(lab.primary.storageDir, `sha256:${sha256Hex(tamperedIso)}`);
    const bytes = readFileSync(blob);
    bytes[5000] = bytes[5000]! ^ 0xff;
    writeFileSync(blob, bytes);
    // a registry that stops sending in the middle of the blob
    const stalled = publishArtifact('stall/iso', fixtureVariant(42));
    const big = Buffer.alloc(5 * 1024 * 1024, 0x20);
    proxy.rule = (req) => {
      if (req.url?.startsWith('/v2/stall/') && req.url.includes('/blobs/'))
        return { kind: 'stall-body', afterBytes: 64 * 1024 };
      if (req.url?.startsWith('/v2/toolarge/') && req.url.includes('/manifests/'))
        return {
          kind: 'respond',
          status: 200,
          headers: {
            'content-type': 'application/vnd.oci.image.manifest.v1+json',
            'content-length': String(big.length),
          },
          body: big,
        };
      return { kind: 'pass' };
    };
    const entries = config([
      image('4.30', { url: `oci://${lab.mirror.host}/locked/iso:x` }),
      image('4.31', { url: `oci://${proxy.host}/art/iso@sha256:${'0'.repeat(64)}` }),
      image('4.32', { url: `oci://${tampered}` }),
      image('4.33', { release_image: viaProxy('release-bad-sha') }),
      image('4.34', { url: `oci://${proxy.host}/toolarge/iso@sha256:${'1'.repeat(64)}` }),
      image('4.35', { url: `oci://${viaProxy('many-entries')}` }),
      image('4.36', { url: `oci://${viaProxy('two-isos')}` }),
      image('4.37', { url: `oci://${stalled}` }),
      image('4.38', { url: `oci://${viaProxy('artifact')}` }), // the good one
    ]);
    const log: LogLine[] = [];
    const dir = dataDir();
    const r = store(
      entries,
      dir,
      settings(
        {
          timeouts: { connectMs: 5_000, requestMs: 10_000, idleMs: 1_000 },
          maxReconnects: 1,
          reconnectDelayMs: 100,
          layerLimits: { maxEntries: 50, maxLayerBytes: 128 * 2 ** 30 },
        },
        { serveWhileDownloading: true, concurrency: 9 },
      ),
      log,
    );
    // nothing of a bad image is ever served: every state it went through, as published
    const seen = new Map<string, Set<string>>();
    r.subscribe(() => {
      for (const h of r.health().images) {
        const states = seen.get(h.openshift_version) ?? new Set<string>();
        states.add(h.state);
        seen.set(h.openshift_version, states);
      }
    });
    const started = Date.now();
    await r.loadAll();
    const failedAt = Date.now() - started;

    const byVersion = Object.fromEntries(r.health().images.map((h) => [h.openshift_version, h]));
    const expected: Array<[string, RegExp, 'retried' | 'never']> = [
      ['4.30', new RegExp(`registry ${lab.mirror.host} refused credentials for locked/iso \\(401`), 'retried'],
      ['4.31', /has no manifest sha256:0{64} for art\/iso \(404 MANIFEST_UNKNOWN\)/, 'retried'],
      [
        '4.32',
        new RegExp(`blob sha256:${sha256Hex(tamperedIso)} of bad/tamper .*the bytes do not match their digest`),
        'never',
      ],
      ['4.33', /coreos-x86_64\.iso has sha256 [0-9a-f]{64} but coreos\/coreos-x86_64\.iso\.sha256 says 0{64}/, 'never'],
      ['4.34', /a manifest for toolarge\/iso@sha256:1{64} of 5242880 bytes; the limit is 4194304/, 'never'],
      ['4.35', /the tar archive has more than 50 entries/, 'never'],
      ['4.36', /the layer holds several ISOs \(a\/one\.iso, b\/two\.iso\); expected exactly one/, 'never'],
      ['4.37', /blob sha256:[0-9a-f]{64} of stall\/iso broke after \d+ of \d+ bytes: no data for 1 s/, 'retried'],
    ];
    for (const [version, reason, retry] of expected) {
      const h = byVersion[version]!;
      expect(h.state, `${version}: ${h.reason}`).toBe('failed');
      expect(h.reason, version).toMatch(reason);
      if (retry === 'never') expect(h.retry_at, version).toBeUndefined();
      else expect(h.retry_at, version).toBeDefined();
      expect([...seen.get(version)!], `${version} was never served`).not.toContain('ready');
      expect(() => r.resolve(version, 'x86_64')).toThrow(/unusable/);
      const logged = log.find((l) => l.msg === 'base image unusable' && l.image === `${version}/x86_64`);
      expect(logged?.reason, `${version} logged`).toBe(h.reason);
    }
    expect(byVersion['4.38']!.state).toBe('ready');
    expect(r.resolve('4.38', 'x86_64').base.identity).toBe(`sha256:${X86_SHA}`);
    // the stall failed on the real path within the bound (idle clock 1 s, one reconnect)
    expect(failedAt).toBeLessThan(STALL_BOUND_MS);
    // no secret in any message
    expect(JSON.stringify(log)).not.toContain(PRIMARY_USER.password);
    expect(JSON.stringify(log)).not.toContain('not-the-password');
    // nothing unverified left behind by the images whose bytes were wrong
    const files = await readdir(path.join(dir, 'images'));
    expect(files.filter((f) => f.endsWith('.iso'))).toEqual([`sha256-${X86_SHA}.iso`]);
    for (const version of ['4.32', '4.33', '4.35', '4.36']) {
      const part = new CacheFiles(path.join(dir, 'images'), cacheNameOf(entries, version)).isoPart;
      expect(files, version).not.toContain(path.basename(part));
    }
  });

  it('resumes a raw ISO blob after a restart, asking only for the rest', async () => {
    const iso = fixtureVariant(43);
    const ref = publishArtifact('resume/iso', iso);
    proxy.rule = (req) =>
      req.url?.startsWith('/v2/resume/') && req.url.includes('/blobs/sha256:' + sha256Hex(iso))
        ? { kind: 'stall-body', afterBytes: 400_000 }
        : { kind: 'pass' };
    const entries = config([image('4.40', { url: `oci://${ref}` })]);
    const dir = dataDir();
    const first = store(entries, dir, settings({ timeouts: { connectMs: 5_000, requestMs: 10_000, idleMs: 60_000 } }));
    const loading = first.loadAll();
    const part = new CacheFiles(path.join(dir, 'images'), cacheNameOf(entries, '4.40')).isoPart;
    await waitFor(() => (first.health().images[0]!.bytes ?? 0) >= 400_000, 'the first 400 kB');
    await first.close(); // the process stops: the .part stays
    await loading;
    expect((await readdir(path.dirname(part))).filter((f) => f.startsWith(path.basename(part)))).toEqual(
      expect.arrayContaining([path.basename(part), `${path.basename(part)}.oci.json`]),
    );

    proxy.rule = () => ({ kind: 'pass' });
    const mark = proxy.requests.length;
    const second = store(entries, dir, settings());
    await second.loadAll();
    expect(second.health().images[0]!.state).toBe('ready');
    expect(second.resolve('4.40', 'x86_64').base.identity).toBe(`sha256:${sha256Hex(iso)}`);
    const blobGets = proxy.requests.slice(mark).filter((q) => q.path.includes(`/blobs/sha256:${sha256Hex(iso)}`));
    expect(blobGets.map((q) => q.range)).toEqual([expect.stringMatching(/^bytes=(\d+)-$/)]);
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(blobGets[0]!.range!)![1]);
    expect(resumedAt).toBeGreaterThanOrEqual(400_000 - 64 * 1024); // what reached the disk before the stop
  });
});

function cacheNameOf(entries: OsImageEntry[], version: string): string {
  return cacheName(entries.find((e) => e.openshiftVersion === version)!);
}
