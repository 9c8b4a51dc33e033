// Test support: the registries and images the OCI source tests pull from, set up once per test
// file — a primary registry (htpasswd), a second instance as the mirror (other credentials), a
// Bearer registry sharing the primary's storage behind a token realm, and every image shape
// pushed with skopeo (OCI and Docker v2s2, artifacts, lists, a release payload and its
// machine-os-images, tar bombs). Also the settings and auth files a pull needs.
// Used only by tests.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../../../package-root.js';
import { toolWorks } from '../../../../../test/support/requirements.js';
import { DEFAULT_OCI_SETTINGS, type OciSettings } from '../oci-pull.js';
import type { RegistriesConf } from '../registries-conf.js';
import { type AuthFile, parseAuthFile } from '../registry-auth-file.js';
import {
  OciLayout,
  TAR_GZIP,
  TAR_ZSTD,
  gzip,
  push,
  sha256Hex,
  tarOf,
  tarWithNames,
  umociImage,
  zstd,
} from './oci-images.js';
import { type RunningRegistry, startRegistry } from './registry-process.js';
import { type TestPki, makePki } from './test-pki.js';
import { type TokenRealm, startTokenRealm } from './token-realm.js';

export const HAVE_REGISTRY_TOOLS = {
  'docker-registry': toolWorks('docker-registry', ['--version']),
  skopeo: toolWorks('skopeo', ['--version']),
  umoci: toolWorks('umoci', ['--version']),
  'htpasswd (apache2-utils)': toolWorks('htpasswd', ['-nbB', 'u', 'p']),
  openssl: toolWorks('openssl', ['version']),
  zstd: toolWorks('zstd', ['--version']),
};

export const PRIMARY_USER = { user: 'alice', password: 'primary-s3cret' };
export const MIRROR_USER = { user: 'bob', password: 'mirror-s3cret' };

export const X86_ISO = readFileSync(path.join(PACKAGE_ROOT, 'fixtures/iso/x86_64.iso'));
/** Stands in for the arm64 ISO: different bytes, which is all the registry side can tell. */
export const OTHER_ISO = readFileSync(path.join(PACKAGE_ROOT, 'fixtures/iso/s390x.iso'));
export const X86_SHA = sha256Hex(X86_ISO);
export const OTHER_SHA = sha256Hex(OTHER_ISO);

export interface Lab {
  dir: string;
  pki: TestPki;
  primary: RunningRegistry;
  mirror: RunningRegistry;
  bearer: RunningRegistry;
  realm: TokenRealm;
  /** Pushed references (on the primary) by shape, each `host/repo@digest`. */
  refs: Record<string, string>;
  digests: Record<string, string>;
  /** Scratch directory for image builds. */
  work: string;
  /** Pushes an OCI layout's tag to the primary as `repo:tag`; records refs[shape] and digests[shape]. */
  publish(
    shape: string,
    repo: string,
    source: { layout: string; tag: string },
    options?: { v2s2?: boolean; all?: boolean },
  ): string;
  authFile(entries: Record<string, { user: string; password: string }>): AuthFile;
  settings(overrides?: Partial<OciSettings> & { registriesConf?: RegistriesConf }): OciSettings;
  stop(): Promise<void>;
}

export async function startLab(): Promise<Lab> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-oci-'));
  const pki = makePki(path.join(dir, 'pki'));
  const primary = await startRegistry({
    dir: path.join(dir, 'primary'),
    pki,
    auth: { kind: 'htpasswd', users: { [PRIMARY_USER.user]: PRIMARY_USER.password } },
  });
  const mirror = await startRegistry({
    dir: path.join(dir, 'mirror'),
    pki,
    auth: { kind: 'htpasswd', users: { [MIRROR_USER.user]: MIRROR_USER.password } },
  });
  const realm = await startTokenRealm(pki, { [PRIMARY_USER.user]: PRIMARY_USER.password });
  const bearer = await startRegistry({
    dir: path.join(dir, 'bearer'),
    pki,
    auth: { kind: 'token', realm: realm.url, service: realm.service, issuer: realm.issuer },
    storageDir: primary.storageDir,
  });
  const work = path.join(dir, 'work');
  const creds = `${PRIMARY_USER.user}:${PRIMARY_USER.password}`;
  const refs: Record<string, string> = {};
  const digests: Record<string, string> = {};
  const publish = (
    shape: string,
    repo: string,
    source: { layout: string; tag: string },
    options: { v2s2?: boolean; all?: boolean } = {},
  ) => {
    const digest = push(pki, work, source, `${primary.host}/${repo}:${source.tag}`, { creds, ...options });
    refs[shape] = `${primary.host}/${repo}@${digest}`;
    digests[shape] = digest;
  };

  // an OCI artifact whose only layer is the raw ISO
  const art = new OciLayout(path.join(work, 'artifact'));
  art.manifest(
    {
      artifactType: 'application/vnd.coreos.live-iso',
      config: { mediaType: 'application/vnd.oci.empty.v1+json', bytes: Buffer.from('{}') },
      layers: [
        {
          bytes: X86_ISO,
          mediaType: 'application/octet-stream',
          annotations: { 'org.opencontainers.image.title': 'rhcos-live.x86_64.iso' },
        },
      ],
    },
    'raw',
  );
  publish('artifact', 'art/iso', { layout: art.dir, tag: 'raw' });

  // umoci image: a base layer, then a tar+gzip layer with one ISO; as OCI and as Docker v2s2
  const gz = umociImage(work, 'gz', [
    {
      'etc/os-release': Buffer.from('ID=test\n'),
      'usr/bin/tool': Buffer.from('#!/bin/sh\n'),
      bin: { symlink: 'usr/bin' },
    },
    { 'data/rhcos-live.x86_64.iso': X86_ISO, 'data/README': Buffer.from('the ISO\n') },
  ]);
  publish('gzip-oci', 'img/gzip', gz);
  publish('gzip-v2s2', 'img/gzip-docker', gz, { v2s2: true });

  // tar+zstd layer (OCI only: Docker v2s2 has no zstd)
  const zs = new OciLayout(path.join(work, 'zstd'));
  zs.manifest({ layers: [{ bytes: zstd(tarOf(work, { 'iso/live.iso': X86_ISO })), mediaType: TAR_ZSTD }] }, 'zstd');
  publish('zstd', 'img/zstd', { layout: zs.dir, tag: 'zstd' });

  // a manifest list / index of two artifacts: amd64 and arm64
  const multi = new OciLayout(path.join(work, 'multi'));
  const amd = multi.manifest({
    layers: [{ bytes: X86_ISO, mediaType: 'application/octet-stream' }],
    architecture: 'amd64',
  });
  const arm = multi.manifest({
    layers: [{ bytes: OTHER_ISO, mediaType: 'application/octet-stream' }],
    architecture: 'arm64',
  });
  multi.indexOf(
    [
      { ...amd, platform: { architecture: 'amd64', os: 'linux' } },
      { ...arm, platform: { architecture: 'arm64', os: 'linux' } },
    ],
    'list',
  );
  publish('index', 'multi/iso', { layout: multi.dir, tag: 'list' }, { all: true });
  // the same two architectures as umoci images in a Docker manifest list (v2s2)
  const gzArm = umociImage(work, 'gzarm', [{ 'data/live.iso': OTHER_ISO }], 'arm64');
  const list = new OciLayout(path.join(work, 'dockerlist'));
  const entries = [gz, gzArm].map((src, i) => {
    cpSync(path.join(src.layout, 'blobs'), path.join(list.dir, 'blobs'), { recursive: true });
    const index = JSON.parse(readFileSync(path.join(src.layout, 'index.json'), 'utf8')) as {
      manifests: Array<{ digest: string; size: number; annotations?: Record<string, string> }>;
    };
    const tagged = index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === src.tag)!;
    return {
      digest: tagged.digest,
      size: tagged.size,
      platform: { architecture: i === 0 ? 'amd64' : 'arm64', os: 'linux' },
    };
  });
  list.indexOf(entries, 'list');
  publish('docker-list', 'multi/docker', { layout: list.dir, tag: 'list' }, { all: true, v2s2: true });

  // machine-os-images for two architectures (umoci), and a release payload naming it by digest
  const mosAmd = umociImage(work, 'mosamd', [
    { 'usr/bin/coreos-installer': Buffer.from('binary\n'), bin: { symlink: 'usr/bin' } },
    {
      'coreos/coreos-x86_64.iso': X86_ISO,
      'coreos/coreos-x86_64.iso.sha256': Buffer.from(X86_SHA),
      'coreos/coreos-stream.json': Buffer.from('{}'),
    },
    { 'bin/copy-iso': Buffer.from('#!/bin/sh\n') },
  ]);
  publish('machine-os-images', 'ocp/release-art', mosAmd, { v2s2: true });
  const release = umociImage(work, 'release', [
    { 'usr/bin/cluster-version-operator': Buffer.from('binary\n') },
    {
      'release-manifests/image-references': Buffer.from(
        JSON.stringify({
          kind: 'ImageStream',
          apiVersion: 'image.openshift.io/v1',
          metadata: { name: '4.99.0' },
          spec: {
            tags: [
              {
                name: 'installer',
                from: { kind: 'DockerImage', name: `${primary.host}/ocp/release-art@sha256:${'1'.repeat(64)}` },
              },
              { name: 'machine-os-images', from: { kind: 'DockerImage', name: refs['machine-os-images']! } },
            ],
          },
        }),
      ),
      'release-manifests/release-metadata': Buffer.from('{"kind":"cincinnati-metadata-v0","version":"4.99.0"}'),
    },
  ]);
  publish('release', 'ocp/release', release, { v2s2: true });

  // a machine-os-images whose .iso.sha256 does not match, and a release naming it
  const mosBad = umociImage(work, 'mosbad', [
    { 'coreos/coreos-x86_64.iso': X86_ISO, 'coreos/coreos-x86_64.iso.sha256': Buffer.from(`${'0'.repeat(64)}\n`) },
  ]);
  publish('machine-os-images-bad-sha', 'ocp/release-art', mosBad, { v2s2: true });
  const releaseBad = umociImage(work, 'releasebad', [
    {
      'release-manifests/image-references': Buffer.from(
        JSON.stringify({
          kind: 'ImageStream',
          spec: {
            tags: [
              { name: 'machine-os-images', from: { kind: 'DockerImage', name: refs['machine-os-images-bad-sha']! } },
            ],
          },
        }),
      ),
    },
  ]);
  publish('release-bad-sha', 'ocp/release', releaseBad, { v2s2: true });

  // as `oras push` labels a file: a "tar" media type around raw ISO bytes, titled *.iso
  const oras = new OciLayout(path.join(work, 'oras'));
  oras.manifest(
    {
      artifactType: 'application/vnd.unknown.artifact.v1',
      config: { mediaType: 'application/vnd.oci.empty.v1+json', bytes: Buffer.from('{}') },
      layers: [
        {
          bytes: X86_ISO,
          mediaType: 'application/vnd.oci.image.layer.v1.tar',
          annotations: { 'org.opencontainers.image.title': 'live.iso' },
        },
      ],
    },
    'oras',
  );
  publish('oras', 'art/oras', { layout: oras.dir, tag: 'oras' });

  // one layer with the machine-os ISOs of two architectures (each with its .iso.sha256)
  const mosMulti = new OciLayout(path.join(work, 'mos-multi'));
  mosMulti.manifest(
    {
      layers: [
        {
          bytes: gzip(
            tarOf(work, {
              'coreos/coreos-x86_64.iso': X86_ISO,
              'coreos/coreos-x86_64.iso.sha256': Buffer.from(`${X86_SHA}  coreos-x86_64.iso\n`),
              'coreos/coreos-aarch64.iso': OTHER_ISO,
              'coreos/coreos-aarch64.iso.sha256': Buffer.from(OTHER_SHA),
            }),
          ),
          mediaType: TAR_GZIP,
        },
      ],
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        bytes: Buffer.from('{"os":"linux","rootfs":{"type":"layers","diff_ids":[]}}'),
      },
    },
    'mos-multi',
  );
  publish('mos-multi', 'ocp/mos-multi', { layout: mosMulti.dir, tag: 'mos-multi' });

  // tar bombs and other bad layers
  const bad = (shape: string, tar: Buffer) => {
    const layout = new OciLayout(path.join(work, shape));
    layout.manifest({ layers: [{ bytes: gzip(tar), mediaType: TAR_GZIP }] }, shape);
    publish(shape, `bad/${shape}`, { layout: layout.dir, tag: shape });
  };
  bad('two-isos', tarOf(work, { 'a/one.iso': X86_ISO, 'b/two.iso': OTHER_ISO }));
  bad('traversal', tarWithNames(work, [{ name: '../../etc/evil.iso', bytes: X86_ISO }]));
  bad('symlink-iso', tarOf(work, { 'real/blob': X86_ISO, 'live.iso': { symlink: 'real/blob' } }));
  bad('hardlink-iso', tarOf(work, { 'a/blob': X86_ISO, 'live.iso': { hardlink: 'a/blob' } })); // sorted: the file first
  bad(
    'many-entries',
    tarOf(work, Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f/${i}.txt`, Buffer.from(`${i}`)]))),
  );
  bad('no-iso', tarOf(work, { 'readme.txt': Buffer.from('nothing here') }));
  bad('long-names', tarOf(work, { [`${'d'.repeat(120)}/${'e'.repeat(120)}/live.iso`]: X86_ISO }, 'gnu'));

  const lab: Lab = {
    dir,
    pki,
    primary,
    mirror,
    bearer,
    realm,
    refs,
    digests,
    work,
    publish: (shape, repo, source, options) => {
      publish(shape, repo, source, options);
      return refs[shape]!;
    },
    authFile: (entries) =>
      parseAuthFile(
        JSON.stringify({
          auths: Object.fromEntries(
            Object.entries(entries).map(([key, c]) => [
              key,
              { auth: Buffer.from(`${c.user}:${c.password}`).toString('base64') },
            ]),
          ),
        }),
        'test auth file',
      ),
    settings: (overrides = {}) => ({
      ...DEFAULT_OCI_SETTINGS,
      authFiles: [
        lab.authFile({
          [primary.host]: PRIMARY_USER,
          [bearer.host]: PRIMARY_USER,
          [mirror.host]: MIRROR_USER,
        }),
      ],
      ca: pki.caPem,
      registriesConf: undefined,
      retry: { attempts: 2, baseDelayMs: 50 },
      reconnectDelayMs: 50,
      ...overrides,
    }),
    stop: async () => {
      await Promise.all([primary.stop(), mirror.stop(), bearer.stop(), realm.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return lab;
}
