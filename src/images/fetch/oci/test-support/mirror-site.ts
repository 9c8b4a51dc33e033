// Test support: a disconnected site's registries as an operator configures them — the "primary"
// registry is down (a loopback port nobody listens on) and a mirror (Debian's docker-registry,
// TLS with the test PKI, htpasswd) holds what was mirrored from it under `mirrored/`. Writes the
// files bootsmith is given: REGISTRIES_CONF_FILE (digest-only mirror of the primary's `ocp/`
// namespace), REGISTRY_CA_FILE (the PKI's CA) and REGISTRY_AUTH_FILE (the mirror's credentials).
// Publishes OCI artifacts whose one raw layer is given bytes (an ISO, an "agent image" blob) into
// the mirror; they are then named by the primary's reference (`sourceRef`). Used only by tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OciLayout, push } from './oci-images.js';
import { type RunningRegistry, freePort, startRegistry } from './registry-process.js';
import { type TestPki, makePki } from './test-pki.js';

export const SITE_MIRROR_USER = { user: 'site', password: 'site-mirror-s3cret' };

export interface MirrorSite {
  dir: string;
  pki: TestPki;
  mirror: RunningRegistry;
  /** `127.0.0.1:PORT` of the primary registry, which never answers. */
  deadHost: string;
  registriesConfFile: string;
  caFile: string;
  authFile: string;
  /** Pushes an artifact with `bytes` as its one raw layer to the mirror as `mirrored/ocp/<repo>:<tag>`; returns its digest. */
  publish(repo: string, bytes: Buffer, title: string, tag?: string): string;
  /** The primary's reference of something published: `DEAD/ocp/<repo>@<digest>`. */
  sourceRef(repo: string, digest: string): string;
  stop(): Promise<void>;
}

export async function startMirrorSite(): Promise<MirrorSite> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-site-'));
  const pki = makePki(path.join(dir, 'pki'));
  const mirror = await startRegistry({
    dir: path.join(dir, 'mirror'),
    pki,
    auth: { kind: 'htpasswd', users: { [SITE_MIRROR_USER.user]: SITE_MIRROR_USER.password } },
  });
  const deadHost = `127.0.0.1:${await freePort()}`;
  const registriesConfFile = path.join(dir, 'registries.conf');
  writeFileSync(
    registriesConfFile,
    [
      '# the disconnected site: everything of ocp/ comes from the mirror, by digest',
      '[[registry]]',
      `prefix = "${deadHost}/ocp"`,
      `location = "${deadHost}/ocp"`,
      '',
      '[[registry.mirror]]',
      `location = "${mirror.host}/mirrored/ocp"`,
      'pull-from-mirror = "digest-only"',
      '',
    ].join('\n'),
  );
  const authFile = path.join(dir, 'auth.json');
  const auth = Buffer.from(`${SITE_MIRROR_USER.user}:${SITE_MIRROR_USER.password}`).toString('base64');
  writeFileSync(authFile, JSON.stringify({ auths: { [mirror.host]: { auth } } }));
  const work = path.join(dir, 'work');
  let n = 0;
  return {
    dir,
    pki,
    mirror,
    deadHost,
    registriesConfFile,
    caFile: pki.caFile,
    authFile,
    publish: (repo, bytes, title, tag = 'latest') => {
      const layout = new OciLayout(path.join(work, `layout-${++n}`));
      layout.manifest(
        {
          artifactType: 'application/vnd.coreos.live-iso',
          config: { mediaType: 'application/vnd.oci.empty.v1+json', bytes: Buffer.from('{}') },
          layers: [
            { bytes, mediaType: 'application/octet-stream', annotations: { 'org.opencontainers.image.title': title } },
          ],
        },
        tag,
      );
      return push(pki, work, { layout: layout.dir, tag }, `${mirror.host}/mirrored/ocp/${repo}:${tag}`, {
        creds: `${SITE_MIRROR_USER.user}:${SITE_MIRROR_USER.password}`,
      });
    },
    sourceRef: (repo, digest) => `${deadHost}/ocp/${repo}@${digest}`,
    stop: async () => {
      await mirror.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
