// The OCI source against real registries (Debian's docker-registry over TLS with htpasswd, a
// Bearer registry behind a token realm), images built with umoci / GNU tar and pushed with
// skopeo: every image shape, both manifest formats, lists and indexes, Basic and Bearer, and
// what the errors say when credentials or digests are wrong.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailable } from '../../../../test/support/requirements.js';
import { type OciPullRequest, type OciSettings, pullOciIso } from './oci-pull.js';
import { sha256Hex } from './test-support/oci-images.js';
import {
  HAVE_REGISTRY_TOOLS,
  type Lab,
  OTHER_SHA,
  PRIMARY_USER,
  X86_SHA,
  startLab,
} from './test-support/registry-lab.js';

describe.skipIf(unavailable(HAVE_REGISTRY_TOOLS))('pullOciIso against real registries', () => {
  let lab: Lab;
  let n = 0;
  beforeAll(async () => {
    lab = await startLab();
  }, 180_000);
  afterAll(async () => {
    await lab?.stop();
  });

  const part = () => path.join(lab.dir, `pull-${++n}.part`);
  const pull = async (source: OciPullRequest['source'], settings: OciSettings = lab.settings(), arch = 'x86_64') => {
    const partPath = part();
    const result = await pullOciIso(
      { source, cpuArchitecture: arch, partPath, signal: AbortSignal.timeout(120_000) },
      settings,
    );
    const bytes = readFileSync(partPath);
    rmSync(partPath, { force: true });
    return { result, fileSha: sha256Hex(bytes), size: bytes.length };
  };
  const image = (shape: string) => ({ kind: 'image' as const, reference: `oci://${lab.refs[shape]}` });

  it.each([
    ['an OCI artifact whose layer is the raw ISO', 'artifact', undefined],
    ['a umoci image (OCI) with a tar+gzip layer holding the ISO', 'gzip-oci', 'data/rhcos-live.x86_64.iso'],
    ['the same image pushed as Docker v2 schema 2', 'gzip-v2s2', 'data/rhcos-live.x86_64.iso'],
    ['a tar+zstd layer', 'zstd', 'iso/live.iso'],
    ['an ISO under GNU long names', 'long-names', `${'d'.repeat(120)}/${'e'.repeat(120)}/live.iso`],
    ['an artifact as oras labels it (tar media type, raw ISO bytes)', 'oras', undefined],
    [
      'a machine-os-images image named directly (its .iso.sha256 checked)',
      'machine-os-images',
      'coreos/coreos-x86_64.iso',
    ],
  ])('pulls %s', async (_name, shape, isoName) => {
    const { result, fileSha, size } = await pull(image(shape));
    expect(fileSha).toBe(X86_SHA);
    expect(result).toMatchObject({ sha256: X86_SHA, size, isoName, resolved: lab.refs[shape] });
    expect(result.pulledFrom.startsWith(`${lab.primary.host}/`)).toBe(true);
  });

  it('has fixtures in both manifest formats (checked with skopeo)', async () => {
    const mediaType = async (shape: string) => {
      const { stdout } = await promisify(execFile)('skopeo', [
        'inspect',
        '--raw',
        '--cert-dir',
        lab.pki.certDir,
        '--creds',
        `${PRIMARY_USER.user}:${PRIMARY_USER.password}`,
        `docker://${lab.refs[shape]}`,
      ]);
      const doc = JSON.parse(stdout) as { mediaType?: string; config?: { mediaType: string } };
      // umoci leaves the optional mediaType out of OCI manifests; their config type tells
      if (doc.mediaType === undefined && doc.config?.mediaType === 'application/vnd.oci.image.config.v1+json')
        return 'application/vnd.oci.image.manifest.v1+json';
      return doc.mediaType;
    };
    expect(await mediaType('gzip-oci')).toBe('application/vnd.oci.image.manifest.v1+json');
    expect(await mediaType('gzip-v2s2')).toBe('application/vnd.docker.distribution.manifest.v2+json');
    expect(await mediaType('index')).toBe('application/vnd.oci.image.index.v1+json');
    expect(await mediaType('docker-list')).toBe('application/vnd.docker.distribution.manifest.list.v2+json');
    expect(await mediaType('release')).toBe('application/vnd.docker.distribution.manifest.v2+json');
  });

  it('resolves a tag once and returns the digest to record', async () => {
    const byDigest = lab.refs['gzip-v2s2']!;
    const tagged = `${byDigest.split('@')[0]}:gz`;
    const { result } = await pull({ kind: 'image', reference: tagged });
    expect(result.resolved).toBe(byDigest);
    expect(result.sha256).toBe(X86_SHA);
  });

  it.each([
    ['an OCI index', 'index'],
    ['a Docker manifest list', 'docker-list'],
  ])('resolves %s by cpu_architecture', async (_name, shape) => {
    const amd = await pull(image(shape), lab.settings(), 'x86_64');
    const arm = await pull(image(shape), lab.settings(), 'aarch64');
    expect(amd.fileSha).toBe(X86_SHA);
    expect(arm.fileSha).toBe(OTHER_SHA);
    expect(amd.result.resolved).toBe(lab.refs[shape]);
    expect(amd.result.manifestDigest).not.toBe(arm.result.manifestDigest);
    await expect(pull(image(shape), lab.settings(), 'ppc64le')).rejects.toThrow(
      /no linux\/ppc64le entry for ppc64le \(it has linux\/amd64, linux\/arm64\)/,
    );
  });

  it('takes its own architecture from a layer holding several machine-os ISOs', async () => {
    const amd = await pull(image('mos-multi'), lab.settings(), 'x86_64');
    const arm = await pull(image('mos-multi'), lab.settings(), 'aarch64');
    expect([amd.fileSha, amd.result.isoName]).toEqual([X86_SHA, 'coreos/coreos-x86_64.iso']);
    expect([arm.fileSha, arm.result.isoName]).toEqual([OTHER_SHA, 'coreos/coreos-aarch64.iso']);
    await expect(pull(image('mos-multi'), lab.settings(), 's390x')).rejects.toThrow(/no layer holds an ISO/);
  });

  it('checks the .iso.sha256 of a machine-os-images image named directly', async () => {
    await expect(pull(image('machine-os-images-bad-sha'))).rejects.toThrow(
      /coreos\/coreos-x86_64.iso has sha256 [0-9a-f]{64} but coreos\/coreos-x86_64.iso.sha256 says 0{64}/,
    );
  });

  it('refuses a single-architecture image built for another architecture', async () => {
    await expect(pull(image('gzip-oci'), lab.settings(), 'aarch64')).rejects.toThrow(
      /the image is for amd64, the entry's cpu_architecture aarch64 needs arm64/,
    );
  });

  it('follows a release payload to machine-os-images and verifies the ISO against its .iso.sha256', async () => {
    const { result, fileSha } = await pull({ kind: 'release', releaseImage: lab.refs.release! });
    expect(fileSha).toBe(X86_SHA);
    expect(result).toMatchObject({
      sha256: X86_SHA,
      isoName: 'coreos/coreos-x86_64.iso',
      machineOsImages: lab.refs['machine-os-images'],
      resolved: lab.refs.release,
    });
  });

  it('fails a release whose machine-os-images ISO does not match its .iso.sha256', async () => {
    await expect(pull({ kind: 'release', releaseImage: lab.refs['release-bad-sha']! })).rejects.toThrow(
      new RegExp(
        `coreos/coreos-x86_64.iso has sha256 ${X86_SHA} but coreos/coreos-x86_64.iso.sha256 says ${'0'.repeat(64)}`,
      ),
    );
  });

  it('fails a release payload for an architecture its machine-os-images lacks', async () => {
    await expect(pull({ kind: 'release', releaseImage: lab.refs.release! }, lab.settings(), 'aarch64')).rejects.toThrow(
      /image is for amd64/,
    );
  });

  describe('Bearer tokens', () => {
    it('pulls through a token realm with the auth file credentials', async () => {
      const before = lab.realm.stats.issued;
      const ref = lab.refs.artifact!.replace(lab.primary.host, lab.bearer.host);
      const { result } = await pull({ kind: 'image', reference: ref });
      expect(result.sha256).toBe(X86_SHA);
      expect(lab.realm.stats.issued).toBeGreaterThan(before);
    });

    it('names the registry when the realm refuses the credentials', async () => {
      const ref = lab.refs.artifact!.replace(lab.primary.host, lab.bearer.host);
      const settings = lab.settings({
        authFiles: [lab.authFile({ [lab.bearer.host]: { user: 'alice', password: 'wrong' } })],
      });
      await expect(pull({ kind: 'image', reference: ref }, settings)).rejects.toThrow(
        `registry ${lab.bearer.host} refused credentials for art/iso (token 401)`,
      );
    });

    it('names the registry when no credentials are configured (an anonymous token has no access)', async () => {
      const ref = lab.refs.artifact!.replace(lab.primary.host, lab.bearer.host);
      await expect(pull({ kind: 'image', reference: ref }, lab.settings({ authFiles: [] }))).rejects.toThrow(
        `registry ${lab.bearer.host} refused credentials for art/iso (401 UNAUTHORIZED)`,
      );
    });

    it('issues tokens a real client (skopeo) accepts', async () => {
      const ref = lab.refs.artifact!.replace(lab.primary.host, lab.bearer.host);
      // async: the token realm runs in this process
      const { stdout: out } = await promisify(execFile)(
        'skopeo',
        [
          'inspect',
          '--raw',
          '--cert-dir',
          lab.pki.certDir,
          '--creds',
          `${PRIMARY_USER.user}:${PRIMARY_USER.password}`,
          `docker://${ref}`,
        ],
        { encoding: 'utf8' },
      );
      expect(`sha256:${sha256Hex(out)}`).toBe(lab.digests.artifact);
    });
  });

  describe('Basic credentials and bad references', () => {
    it('names the registry that refused wrong credentials', async () => {
      const settings = lab.settings({
        authFiles: [lab.authFile({ [lab.primary.host]: { user: 'alice', password: 'nope' } })],
      });
      await expect(pull(image('artifact'), settings)).rejects.toThrow(
        `registry ${lab.primary.host} refused credentials for art/iso (401 UNAUTHORIZED)`,
      );
    });

    it('says when the auth files hold nothing for a registry that wants Basic', async () => {
      await expect(pull(image('artifact'), lab.settings({ authFiles: [] }))).rejects.toThrow(
        `registry ${lab.primary.host} requires credentials for art/iso and the auth files have none for it`,
      );
    });

    it('uses the most specific auth file entry (registry/namespace before registry)', async () => {
      const settings = lab.settings({
        authFiles: [
          lab.authFile({
            [lab.primary.host]: { user: 'alice', password: 'wrong' },
            [`${lab.primary.host}/art`]: PRIMARY_USER,
          }),
        ],
      });
      const { result } = await pull(image('artifact'), settings);
      expect(result.sha256).toBe(X86_SHA);
    });

    it('reports an unknown digest as the registry answered it', async () => {
      const ref = `${lab.primary.host}/art/iso@sha256:${'e'.repeat(64)}`;
      await expect(pull({ kind: 'image', reference: ref })).rejects.toThrow(
        `registry ${lab.primary.host} has no manifest sha256:${'e'.repeat(64)} for art/iso (404 MANIFEST_UNKNOWN)`,
      );
    });

    it('refuses an untrusted registry certificate with a hint', async () => {
      await expect(pull(image('artifact'), lab.settings({ ca: undefined }))).rejects.toThrow(/set REGISTRY_CA_FILE/);
    });
  });

  it.each(['artifact', 'gzip-oci'])(
    'lets the caller refuse the ISO by its size before a byte lands (%s)',
    async (shape) => {
      const partPath = part();
      const sizes: Array<number | undefined> = [];
      const refusal = new Error('over the disk budget');
      await expect(
        pullOciIso(
          {
            source: image(shape),
            cpuArchitecture: 'x86_64',
            partPath,
            signal: AbortSignal.timeout(60_000),
            onStart: (size) => {
              sizes.push(size);
              throw refusal;
            },
          },
          lab.settings(),
        ),
      ).rejects.toBe(refusal);
      expect(sizes).toEqual([1024 * 1024]);
      expect(readFileSync(partPath).length).toBe(0);
    },
  );

  it('never puts a credential or a token into an error, its context or a notice', async () => {
    const said: string[] = [];
    const secrets = [
      'primary-s3cret',
      'wr0ng-pa55',
      Buffer.from('alice:primary-s3cret').toString('base64'),
      Buffer.from('alice:wr0ng-pa55').toString('base64'),
    ];
    const attempt = async (reference: string, settings: OciSettings) => {
      try {
        await pullOciIso(
          {
            source: { kind: 'image', reference },
            cpuArchitecture: 'x86_64',
            partPath: part(),
            signal: AbortSignal.timeout(60_000),
            onNotice: (m, c) => said.push(m, JSON.stringify(c)),
          },
          settings,
        );
      } catch (err) {
        said.push(
          (err as Error).message,
          JSON.stringify((err as { context?: unknown }).context ?? {}),
          String((err as Error).stack),
        );
      }
    };
    const wrong = { user: 'alice', password: 'wr0ng-pa55' };
    const bearerRef = lab.refs.artifact!.replace(lab.primary.host, lab.bearer.host);
    await attempt(bearerRef, lab.settings());
    await attempt(bearerRef, lab.settings({ authFiles: [lab.authFile({ [lab.bearer.host]: wrong })] }));
    await attempt(lab.refs.artifact!, lab.settings({ authFiles: [lab.authFile({ [lab.primary.host]: wrong })] }));
    expect(said.length).toBeGreaterThan(4);
    const text = said.join('\n');
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/); // no JWT from the realm
    expect(text).not.toMatch(/(Bearer|Basic) [A-Za-z0-9+/=._-]{8,}/); // no header value
  });

  describe('layers that are bombs or hold the wrong things', () => {
    it.each([
      ['several ISOs', 'two-isos', /the layer holds several ISOs \(a\/one\.iso, b\/two\.iso\); expected exactly one/],
      ['a path outside its root', 'traversal', /an entry outside its root \("\.\.\/\.\.\/etc\/evil\.iso"\)/],
      ['a symlink named .iso', 'symlink-iso', /live\.iso is a symlink, not a regular file/],
      ['a hard link named .iso', 'hardlink-iso', /live\.iso is a hardlink, not a regular file/],
      ['no ISO at all', 'no-iso', /no layer holds an ISO/],
    ])('refuses a layer with %s', async (_name, shape, reason) => {
      await expect(pull(image(shape))).rejects.toThrow(reason);
    });

    it('refuses a layer with more entries than the budget', async () => {
      const settings = lab.settings({ layerLimits: { maxEntries: 20, maxLayerBytes: 1024 ** 3 } });
      await expect(pull(image('many-entries'), settings)).rejects.toThrow(/more than 20 entries/);
    });

    it('refuses a layer that expands past the byte budget', async () => {
      const settings = lab.settings({ layerLimits: { maxEntries: 1000, maxLayerBytes: 64 * 1024 } });
      await expect(pull(image('gzip-oci'), settings)).rejects.toThrow(/expands to more than 65536 bytes/);
    });
  });
});
