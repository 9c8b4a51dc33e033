// The OCI source when registries misbehave, on the real path (real docker-registry behind a
// fault-injecting HTTPS proxy, or with its storage tampered with): blobs that do not match their
// digest, manifests too large, registries that stall (the clocks fire within a bound), broken
// transfers resumed with Range (in the same pull and after a restart), 5xx retried, blob
// redirects to storage without Authorization, and registries.conf mirrors: mirror first, the
// primary down, digest-only mirrors, blocked registries, a mirror's refusal named.
import { writeFileSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailable } from '../../../../test/support/requirements.js';
import { type OciPullRequest, type OciSettings, ociPartState, pullOciIso } from './oci-pull.js';
import { parseRegistriesConf } from './registries-conf.js';
import { RegistryError } from './registry-error.js';
import { type FaultProxy, startFaultProxy } from './test-support/fault-proxy.js';
import { OciLayout, mirror, sha256Hex } from './test-support/oci-images.js';
import {
  HAVE_REGISTRY_TOOLS,
  type Lab,
  MIRROR_USER,
  PRIMARY_USER,
  X86_ISO,
  X86_SHA,
  startLab,
} from './test-support/registry-lab.js';
import { blobDataPath, freePort, startRegistry } from './test-support/registry-process.js';

/** The offset of a `bytes=N-` Range header (NaN without one). */
function resumedAt(range: string | undefined): number {
  const m = /^bytes=(\d+)-$/.exec(range ?? '');
  return m ? Number(m[1]) : Number.NaN;
}

/** Generous for a loaded 2-core machine; the clocks under test are 1–2 s. */
const STALL_BOUND_MS = 30_000;

describe.skipIf(unavailable(HAVE_REGISTRY_TOOLS))('pullOciIso when registries misbehave', () => {
  let lab: Lab;
  let proxy: FaultProxy;
  let n = 0;
  beforeAll(async () => {
    lab = await startLab();
    proxy = await startFaultProxy(lab.pki, lab.primary.host);
  }, 180_000);
  afterAll(async () => {
    await proxy?.close();
    await lab?.stop();
  });

  const part = () => path.join(lab.dir, `fault-${++n}.part`);
  const viaProxy = (shape: string) => ({
    kind: 'image' as const,
    reference: lab.refs[shape]!.replace(lab.primary.host, proxy.host),
  });
  const settings = (overrides: Partial<OciSettings> = {}) =>
    lab.settings({
      authFiles: [
        lab.authFile({ [lab.primary.host]: PRIMARY_USER, [proxy.host]: PRIMARY_USER, [lab.mirror.host]: MIRROR_USER }),
      ],
      ...overrides,
    });
  const pull = async (source: OciPullRequest['source'], s: OciSettings, partPath = part(), notices: string[] = []) => {
    const result = await pullOciIso(
      {
        source,
        cpuArchitecture: 'x86_64',
        partPath,
        signal: AbortSignal.timeout(120_000),
        onNotice: (m) => notices.push(m),
      },
      s,
    );
    return { result, fileSha: sha256Hex(readFileSync(partPath)) };
  };
  const blobRequests = () => proxy.requests.filter((r) => r.path.includes('/blobs/'));
  const reset = () => {
    proxy.requests.length = 0;
    proxy.rule = () => ({ kind: 'pass' });
  };

  describe('digests', () => {
    it('fails a blob whose bytes do not match its digest (the registry storage was tampered with)', async () => {
      const iso = Buffer.concat([X86_ISO.subarray(0, X86_ISO.length - 1), Buffer.from('T')]); // a blob of its own
      const layout = new OciLayout(path.join(lab.work, 'tampered'));
      layout.manifest({ layers: [{ bytes: iso, mediaType: 'application/octet-stream' }] }, 'tampered');
      const ref = lab.publish('tampered', 'bad/tampered', { layout: layout.dir, tag: 'tampered' });
      const file = blobDataPath(lab.primary.storageDir, `sha256:${sha256Hex(iso)}`);
      const bytes = readFileSync(file);
      bytes[1000] = bytes[1000]! ^ 0xff; // same length, one bit flipped
      writeFileSync(file, bytes);
      const error = await pull({ kind: 'image', reference: ref }, settings()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RegistryError);
      expect((error as RegistryError).message).toMatch(
        new RegExp(
          `registry ${lab.primary.host} sent blob sha256:${sha256Hex(iso)} of bad/tampered whose sha256 is sha256:[0-9a-f]{64}: the bytes do not match their digest`,
        ),
      );
      expect((error as RegistryError).retry).toBe('never');
    });

    it('refuses a manifest whose bytes do not match the digest asked for', async () => {
      reset();
      const wrong = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          config: {},
          layers: [],
        }),
      );
      proxy.rule = (req) =>
        req.url?.includes('/manifests/')
          ? {
              kind: 'respond',
              status: 200,
              headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' },
              body: wrong,
            }
          : { kind: 'pass' };
      await expect(pull(viaProxy('artifact'), settings())).rejects.toThrow(
        new RegExp(`whose sha256 is sha256:${sha256Hex(wrong)}, not ${lab.digests.artifact}`),
      );
    });
  });

  describe('manifests too large', () => {
    const big = Buffer.alloc(5 * 1024 * 1024, 0x20);
    it('refuses one whose Content-Length is over the cap, before reading it', async () => {
      reset();
      proxy.rule = (req) =>
        req.url?.includes('/manifests/')
          ? {
              kind: 'respond',
              status: 200,
              headers: {
                'content-type': 'application/vnd.oci.image.index.v1+json',
                'content-length': String(big.length),
              },
              body: big,
            }
          : { kind: 'pass' };
      await expect(pull(viaProxy('index'), settings())).rejects.toThrow(
        /sent a manifest for multi\/iso@sha256:[0-9a-f]{64} of 5242880 bytes; the limit is 4194304/,
      );
      // refused on the header: the body was not read (the proxy could not finish writing it)
    });

    it('refuses one sent without a length as soon as it passes the cap', async () => {
      reset();
      proxy.rule = (req) =>
        req.url?.includes('/manifests/')
          ? {
              kind: 'handle',
              handle: (_req, res) => {
                res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json' }); // chunked
                let sent = 0;
                const more = () => {
                  while (sent < big.length) {
                    sent += 256 * 1024;
                    if (!res.write(big.subarray(0, 256 * 1024))) return void res.once('drain', more);
                  }
                  res.end();
                };
                more();
              },
            }
          : { kind: 'pass' };
      await expect(pull(viaProxy('artifact'), settings())).rejects.toThrow(
        /of more than 4194304 bytes; the limit is 4194304/,
      );
    });
  });

  describe('clocks on the real path', () => {
    it('fails a registry that stalls in the middle of a blob within a bound (idle clock, one reconnect)', async () => {
      reset();
      proxy.rule = (req) =>
        req.url?.includes('/blobs/') ? { kind: 'stall-body', afterBytes: 64 * 1024 } : { kind: 'pass' };
      const started = Date.now();
      const error = await pull(
        viaProxy('artifact'),
        settings({ timeouts: { connectMs: 2_000, requestMs: 10_000, idleMs: 1_000 }, maxReconnects: 1 }),
      ).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect((error as Error).message).toMatch(/broke after 131072 of 1048576 bytes: no data for 1 s/); // 64 KiB, a resume, 64 KiB more
      expect(elapsed).toBeLessThan(STALL_BOUND_MS);
      // server side: the first request, then one resume asking for the rest
      expect(blobRequests().map((r) => r.range)).toEqual([undefined, 'bytes=65536-']);
    });

    it('fails a registry that never answers a manifest request within the request clock', async () => {
      reset();
      proxy.rule = (req) => (req.url?.includes('/manifests/') ? { kind: 'stall-headers' } : { kind: 'pass' });
      const started = Date.now();
      await expect(
        pull(
          viaProxy('artifact'),
          settings({
            timeouts: { connectMs: 2_000, requestMs: 1_000, idleMs: 5_000 },
            retry: { attempts: 2, baseDelayMs: 50 },
          }),
        ),
      ).rejects.toThrow(
        new RegExp(`registry ${proxy.host} for art/iso: manifest request failed: no complete answer within 1 s`),
      );
      expect(Date.now() - started).toBeLessThan(STALL_BOUND_MS);
      expect(proxy.requests.filter((r) => r.path.includes('/manifests/'))).toHaveLength(2); // the retry, then no more
    });

    it('fails a connection that never completes its TLS handshake within the connect clock', async () => {
      const net = await import('node:net');
      const silent = net.createServer(() => undefined); // accepts TCP, never speaks TLS
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as import('node:net').AddressInfo).port;
      try {
        const started = Date.now();
        await expect(
          pull(
            { kind: 'image', reference: `127.0.0.1:${port}/art/iso@${lab.digests.artifact}` },
            settings({
              timeouts: { connectMs: 1_000, requestMs: 10_000, idleMs: 10_000 },
              retry: { attempts: 1, baseDelayMs: 50 },
            }),
          ),
        ).rejects.toThrow(/ping request failed: no connection within 1 s/);
        expect(Date.now() - started).toBeLessThan(STALL_BOUND_MS);
      } finally {
        silent.close();
      }
    });
  });

  describe('broken transfers', () => {
    it('resumes a raw ISO blob with Range when the registry cuts the connection', async () => {
      reset();
      let cut = false;
      proxy.rule = (req) => {
        if (!req.url?.includes('/blobs/') || cut) return { kind: 'pass' };
        cut = true;
        return { kind: 'cut', afterBytes: 300_000 };
      };
      const notices: string[] = [];
      const { result, fileSha } = await pull(viaProxy('artifact'), settings(), part(), notices);
      expect(fileSha).toBe(X86_SHA);
      expect(result.sha256).toBe(X86_SHA);
      // the client resumes after the last byte it took in (a few bytes in flight at the cut may be lost)
      const [first, second] = blobRequests();
      expect(first).toMatchObject({ range: undefined, bytes: 300_000 });
      const at = resumedAt(second?.range);
      expect(at).toBeLessThanOrEqual(300_000);
      expect(second?.bytes).toBe(X86_ISO.length - at);
      expect(blobRequests()).toHaveLength(2);
      expect(notices).toContain('blob transfer broke; resuming with Range');
    });

    it('resumes a tar+gzip layer mid-stream (the decompressor carries on)', async () => {
      reset();
      const cut = new Set<string>();
      proxy.rule = (req) => {
        const url = req.url ?? '';
        if (!url.includes('/blobs/') || req.headers.range || cut.has(url)) return { kind: 'pass' };
        cut.add(url); // each blob's first transfer breaks at 50 000 bytes (the small config passes whole)
        return { kind: 'cut', afterBytes: 50_000 };
      };
      const { result } = await pull(viaProxy('gzip-v2s2'), settings());
      expect(result.sha256).toBe(X86_SHA);
      const layer = blobRequests().filter((r) => r.path.endsWith(result.layerDigest));
      expect(layer).toHaveLength(2);
      expect(resumedAt(layer[1]!.range)).toBeLessThanOrEqual(50_000);
    });

    it('resumes a raw ISO blob after a restart from the partial file, fetching only the rest', async () => {
      reset();
      const partPath = part();
      proxy.rule = (req) => (req.url?.includes('/blobs/') ? { kind: 'cut', afterBytes: 400_000 } : { kind: 'pass' });
      // the first process: no reconnects, the transfer breaks and the pull fails
      const error = (await pull(viaProxy('artifact'), settings({ maxReconnects: 0 }), partPath).catch(
        (e: unknown) => e,
      )) as Error;
      const broke = Number(/broke after (\d+) of 1048576 bytes/.exec(error.message)?.[1]);
      expect(broke).toBeGreaterThan(0);
      expect(broke).toBeLessThanOrEqual(400_000);
      expect(statSync(partPath).size).toBe(broke); // every byte received reached the disk
      expect(JSON.parse(readFileSync(ociPartState(partPath), 'utf8'))).toEqual({ layer: `sha256:${X86_SHA}` });
      // the next process: same part file, the registry behaves
      reset();
      const notices: string[] = [];
      const { result, fileSha } = await pull(viaProxy('artifact'), settings(), partPath, notices);
      expect(fileSha).toBe(X86_SHA);
      expect(result.size).toBe(X86_ISO.length);
      expect(blobRequests().map((r) => [r.range, r.bytes])).toEqual([[`bytes=${broke}-`, X86_ISO.length - broke]]);
      expect(notices).toContain('resuming the ISO blob after a restart');
    });

    it('retries a 5xx answer and then succeeds', async () => {
      reset();
      proxy.rule = (req, count) =>
        req.url?.includes('/manifests/') &&
        count <= 3 &&
        proxy.requests.filter((r) => r.path.includes('/manifests/')).length === 1
          ? { kind: 'respond', status: 503, body: '{"errors":[{"code":"UNAVAILABLE"}]}' }
          : { kind: 'pass' };
      const { result } = await pull(viaProxy('artifact'), settings());
      expect(result.sha256).toBe(X86_SHA);
      expect(proxy.requests.filter((r) => r.path.includes('/manifests/')).map((r) => r.status)).toEqual([503, 200]);
    });
  });

  it('follows a blob redirect to storage and drops Authorization on the way', async () => {
    reset();
    const storage = await startFaultProxy(lab.pki, lab.primary.host);
    try {
      storage.rule = (req) => ({
        kind: 'handle',
        handle: (_req, res) => {
          const digest = /\/blob\/(sha256:[0-9a-f]{64})/.exec(req.url ?? '')?.[1] ?? '';
          const data = readFileSync(blobDataPath(lab.primary.storageDir, digest));
          res.writeHead(200, { 'content-length': String(data.length) });
          res.end(data);
        },
      });
      proxy.rule = (req) => {
        const m = /\/blobs\/(sha256:[0-9a-f]{64})$/.exec(req.url ?? '');
        return m
          ? {
              kind: 'respond',
              status: 307,
              headers: { location: `https://${storage.host}/blob/${m[1]}?X-Amz-Signature=presigned-secret` },
            }
          : { kind: 'pass' };
      };
      const { result } = await pull(viaProxy('gzip-oci'), settings());
      expect(result.sha256).toBe(X86_SHA);
      expect(blobRequests().every((r) => r.authorized)).toBe(true);
      expect(storage.requests.length).toBeGreaterThan(0);
      expect(storage.requests.every((r) => !r.authorized)).toBe(true);
    } finally {
      await storage.close();
    }
  });

  describe('registries.conf mirrors', () => {
    let deadHost: string;
    beforeAll(async () => {
      deadHost = `127.0.0.1:${await freePort()}`; // nothing listens: the primary is down
      const creds = {
        src: `${PRIMARY_USER.user}:${PRIMARY_USER.password}`,
        dest: `${MIRROR_USER.user}:${MIRROR_USER.password}`,
      };
      for (const [shape, repo] of [
        ['artifact', 'art/iso'],
        ['release', 'ocp/release'],
        ['machine-os-images', 'ocp/release-art'],
      ] as const) {
        mirror(lab.pki, lab.refs[shape]!, creds.src, `${lab.mirror.host}/mirrored/${repo}:m-${shape}`, creds.dest);
      }
    }, 120_000);

    const conf = (text: string) => parseRegistriesConf(text, 'registries.conf');

    it('pulls a digest reference from a digest-only mirror while the primary is down', async () => {
      const registriesConf = conf(`
[[registry]]
prefix = "${deadHost}/art"
location = "${deadHost}/art"
[[registry.mirror]]
location = "${lab.mirror.host}/mirrored/art"
pull-from-mirror = "digest-only"
`);
      const ref = `${deadHost}/art/iso@${lab.digests.artifact}`;
      const { result, fileSha } = await pull({ kind: 'image', reference: ref }, settings({ registriesConf }));
      expect(fileSha).toBe(X86_SHA);
      expect(result.resolved).toBe(ref);
      expect(result.pulledFrom).toBe(`${lab.mirror.host}/mirrored/art/iso@${lab.digests.artifact}`);
      // a tag is never pulled from a digest-only mirror: only the (dead) primary is tried, and the
      // refusal says the mirror was skipped, why, and what to do
      const tagged = `${deadHost}/art/iso:raw`;
      const err = await pull({ kind: 'image', reference: tagged }, settings({ registriesConf })).catch(
        (e: unknown) => e,
      );
      expect((err as Error).message).toMatch(new RegExp(`registry ${deadHost}: ping request failed: .*ECONNREFUSED`));
      expect((err as Error).message).toContain(
        `the registries.conf mirror ${lab.mirror.host}/mirrored/art was skipped: it pulls by digest only (pull-from-mirror = "digest-only" or mirror-by-digest-only) and ${tagged} is a tag; pin the image by digest (…@sha256:<digest>) in OS_IMAGES to pull it through the mirror`,
      );
    });

    it('follows a release payload through the mirrors (machine-os-images mirrored too)', async () => {
      const registriesConf = conf(`
[[registry]]
prefix = "${deadHost}/ocp"
location = "${deadHost}/ocp"
mirror-by-digest-only = true
[[registry.mirror]]
location = "${lab.mirror.host}/mirrored/ocp"

[[registry]]
prefix = "${lab.primary.host}/ocp"
location = "${lab.primary.host}/ocp"
blocked = true
[[registry.mirror]]
location = "${lab.mirror.host}/mirrored/ocp"
`);
      const release = `${deadHost}/ocp/release@${lab.digests.release}`;
      const { result, fileSha } = await pull({ kind: 'release', releaseImage: release }, settings({ registriesConf }));
      expect(fileSha).toBe(X86_SHA);
      expect(result.machineOsImages).toBe(lab.refs['machine-os-images']);
      expect(result.pulledFrom.startsWith(`${lab.mirror.host}/mirrored/ocp/release-art@`)).toBe(true);
    });

    it('tries the mirror first and falls back to the source when the mirror lacks the image', async () => {
      const registriesConf = conf(`
[[registry]]
location = "${lab.primary.host}/art"
[[registry.mirror]]
location = "${lab.mirror.host}/empty/art"
`);
      const notices: string[] = [];
      const { result } = await pull(
        { kind: 'image', reference: lab.refs.artifact! },
        settings({ registriesConf }),
        part(),
        notices,
      );
      expect(result.pulledFrom.startsWith(`${lab.primary.host}/art/iso@`)).toBe(true);
      expect(notices).toContain('pull source failed; trying the next one');
    });

    it('names the mirror that refused its credentials when nothing else can serve', async () => {
      const registriesConf = conf(`
[[registry]]
prefix = "${deadHost}/art"
location = "${deadHost}/art"
[[registry.mirror]]
location = "${lab.mirror.host}/mirrored/art"
`);
      const s = settings({
        registriesConf,
        authFiles: [lab.authFile({ [lab.mirror.host]: { user: 'bob', password: 'wrong' } })],
      });
      await expect(
        pull({ kind: 'image', reference: `${deadHost}/art/iso@${lab.digests.artifact}` }, s),
      ).rejects.toThrow(
        `(mirrors also failed: [${lab.mirror.host}/mirrored/art/iso@${lab.digests.artifact}: registry ${lab.mirror.host} refused credentials for mirrored/art/iso (401 UNAUTHORIZED)])`,
      );
    });

    it('uses a plain-HTTP mirror only when registries.conf marks it insecure', async () => {
      const plain = await startRegistry({
        dir: path.join(lab.dir, 'plain'),
        pki: lab.pki,
        auth: { kind: 'none' },
        storageDir: lab.primary.storageDir,
        tls: false,
      });
      try {
        const ref = `${deadHost}/art/iso@${lab.digests.artifact}`;
        const confFor = (insecure: boolean) =>
          conf(`
[[registry]]
prefix = "${deadHost}/art"
location = "${deadHost}/art"
[[registry.mirror]]
location = "${plain.host}/art"
insecure = ${insecure}
`);
        const { result } = await pull({ kind: 'image', reference: ref }, settings({ registriesConf: confFor(true) }));
        expect(result.pulledFrom).toBe(`${plain.host}/art/iso@${lab.digests.artifact}`);
        await expect(
          pull({ kind: 'image', reference: ref }, settings({ registriesConf: confFor(false) })),
        ).rejects.toThrow(
          new RegExp(`\\[${plain.host}/art/iso@${lab.digests.artifact}: registry ${plain.host}: ping request failed`),
        );
      } finally {
        await plain.stop();
      }
    });

    it('refuses a reference whose every source is blocked', async () => {
      const registriesConf = conf(`
[[registry]]
location = "${lab.primary.host}"
blocked = true
`);
      await expect(
        pull({ kind: 'image', reference: lab.refs.artifact! }, settings({ registriesConf })),
      ).rejects.toThrow(/every pull source is blocked by registries.conf/);
    });
  });

  it('leaves no part state behind for layers that cannot resume', async () => {
    reset();
    const partPath = part();
    await pull(viaProxy('gzip-oci'), settings(), partPath);
    expect(existsSync(ociPartState(partPath))).toBe(false);
    expect((await stat(partPath)).size).toBe(X86_ISO.length);
    expect(sha256Hex(await readFile(partPath))).toBe(X86_SHA);
    rmSync(partPath);
  });
});
