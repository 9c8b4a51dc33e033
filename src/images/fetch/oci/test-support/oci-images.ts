// Test support: the image shapes the OCI source must read, built with real tools and pushed with
// skopeo: images made with umoci (its layers are tar+gzip), OCI layouts assembled here around
// layers made by GNU tar + gzip/zstd (artifacts with a raw ISO blob, tar+zstd, tar bombs), OCI
// indexes for two architectures, and `skopeo copy [--format v2s2] [--all]` to push them as OCI
// or Docker v2 schema 2 (manifest lists included). Used only by tests.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestPki } from './test-pki.js';

export interface LayerSpec {
  bytes: Buffer;
  mediaType: string;
  annotations?: Record<string, string>;
}

export interface ManifestSpec {
  layers: LayerSpec[];
  artifactType?: string;
  /** Defaults to an OCI image config for linux/`architecture`. */
  config?: { mediaType: string; bytes: Buffer };
  architecture?: string;
}

export interface Platform {
  architecture: string;
  os: string;
}

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const TAR = 'application/vnd.oci.image.layer.v1.tar';
export const TAR_GZIP = 'application/vnd.oci.image.layer.v1.tar+gzip';
export const TAR_ZSTD = 'application/vnd.oci.image.layer.v1.tar+zstd';

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Files for a tar layer: bytes, or a symlink / hard link. */
export type TreeEntry = Buffer | { symlink: string } | { hardlink: string };

/** An OCI layout directory assembled by hand. */
export class OciLayout {
  readonly index: Array<{
    mediaType: string;
    digest: string;
    size: number;
    annotations?: Record<string, string>;
    platform?: Platform;
  }> = [];

  constructor(readonly dir: string) {
    mkdirSync(path.join(dir, 'blobs/sha256'), { recursive: true });
    writeFileSync(path.join(dir, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
    this.save();
  }

  blob(bytes: Buffer): { digest: string; size: number } {
    const hex = sha256Hex(bytes);
    writeFileSync(path.join(this.dir, 'blobs/sha256', hex), bytes);
    return { digest: `sha256:${hex}`, size: bytes.length };
  }

  /** Writes a manifest; tags it in index.json when `tag` is given. Returns its descriptor. */
  manifest(spec: ManifestSpec, tag?: string): { digest: string; size: number } {
    const architecture = spec.architecture ?? 'amd64';
    const config = spec.config ?? {
      mediaType: 'application/vnd.oci.image.config.v1+json',
      bytes: Buffer.from(JSON.stringify({ architecture, os: 'linux', rootfs: { type: 'layers', diff_ids: [] } })),
    };
    const manifest = {
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      ...(spec.artifactType ? { artifactType: spec.artifactType } : {}),
      config: { mediaType: config.mediaType, ...this.blob(config.bytes) },
      layers: spec.layers.map((l) => ({
        mediaType: l.mediaType,
        ...this.blob(l.bytes),
        ...(l.annotations ? { annotations: l.annotations } : {}),
      })),
    };
    const d = this.blob(Buffer.from(JSON.stringify(manifest)));
    if (tag) this.tag(tag, { mediaType: OCI_MANIFEST, ...d });
    return d;
  }

  /** Writes an index over manifests already in the layout and tags it. */
  indexOf(
    entries: Array<{ digest: string; size: number; platform: Platform }>,
    tag: string,
  ): { digest: string; size: number } {
    const index = {
      schemaVersion: 2,
      mediaType: OCI_INDEX,
      manifests: entries.map((e) => ({
        mediaType: OCI_MANIFEST,
        digest: e.digest,
        size: e.size,
        platform: e.platform,
      })),
    };
    const d = this.blob(Buffer.from(JSON.stringify(index)));
    this.tag(tag, { mediaType: OCI_INDEX, ...d });
    return d;
  }

  private tag(tag: string, d: { mediaType: string; digest: string; size: number }): void {
    this.index.push({ ...d, annotations: { 'org.opencontainers.image.ref.name': tag } });
    this.save();
  }

  private save(): void {
    writeFileSync(path.join(this.dir, 'index.json'), JSON.stringify({ schemaVersion: 2, manifests: this.index }));
  }
}

/** A tar of `tree` made by GNU tar (`posix` = pax headers, `gnu` = GNU long names). */
export function tarOf(
  work: string,
  tree: Record<string, TreeEntry>,
  format: 'posix' | 'gnu' | 'ustar' = 'posix',
): Buffer {
  const root = path.join(work, `tree-${sha256Hex(JSON.stringify(Object.keys(tree)) + Math.random()).slice(0, 12)}`);
  mkdirSync(root, { recursive: true });
  for (const [name, entry] of Object.entries(tree)) {
    const file = path.join(root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    if (Buffer.isBuffer(entry)) writeFileSync(file, entry);
    else if ('symlink' in entry) symlinkSync(entry.symlink, file);
  }
  for (const [name, entry] of Object.entries(tree)) {
    if (!Buffer.isBuffer(entry) && 'hardlink' in entry)
      execFileSync('ln', [path.join(root, entry.hardlink), path.join(root, name)]);
  }
  const out = execFileSync(
    'tar',
    ['-C', root, `--format=${format}`, '--sort=name', '--owner=0', '--group=0', '-cf', '-', '.'],
    {
      maxBuffer: 1024 ** 3,
    },
  );
  rmSync(root, { recursive: true, force: true });
  return out;
}

/** A tar whose member names are exactly as given (`../x.iso` included), made by GNU tar with --transform. */
export function tarWithNames(work: string, members: Array<{ name: string; bytes: Buffer }>): Buffer {
  const root = path.join(work, `named-${Math.random().toString(16).slice(2)}`);
  mkdirSync(root, { recursive: true });
  const args = ['-C', root, '--format=posix', '-cf', '-', '-P'];
  members.forEach((m, i) => {
    writeFileSync(path.join(root, `m${i}`), m.bytes);
    args.push(`--transform=s|^m${i}$|${m.name}|`);
  });
  args.push(...members.map((_, i) => `m${i}`));
  const out = execFileSync('tar', args, { maxBuffer: 1024 ** 3 });
  rmSync(root, { recursive: true, force: true });
  return out;
}

export function gzip(bytes: Buffer): Buffer {
  return execFileSync('gzip', ['-c', '-n'], { input: bytes, maxBuffer: 1024 ** 3 });
}

export function zstd(bytes: Buffer): Buffer {
  return execFileSync('zstd', ['-q', '-c', '-3'], { input: bytes, maxBuffer: 1024 ** 3 });
}

/** An image built with umoci: one tar+gzip layer per tree, config for linux/`architecture`. */
export function umociImage(
  work: string,
  name: string,
  trees: Array<Record<string, TreeEntry>>,
  architecture = 'amd64',
): { layout: string; tag: string } {
  const layout = path.join(work, `umoci-${name}`);
  const bundle = path.join(work, `bundle-${name}`);
  const run = (...args: string[]) => execFileSync('umoci', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  run('init', '--layout', layout);
  run('new', '--image', `${layout}:${name}`);
  run('unpack', '--rootless', '--image', `${layout}:${name}`, bundle);
  for (const tree of trees) {
    for (const [file, entry] of Object.entries(tree)) {
      const target = path.join(bundle, 'rootfs', file);
      mkdirSync(path.dirname(target), { recursive: true });
      if (Buffer.isBuffer(entry)) writeFileSync(target, entry);
      else if ('symlink' in entry) symlinkSync(entry.symlink, target);
    }
    run('repack', '--image', `${layout}:${name}`, bundle);
  }
  run('config', '--image', `${layout}:${name}`, '--architecture', architecture, '--os', 'linux');
  rmSync(bundle, { recursive: true, force: true });
  return { layout, tag: name };
}

export interface PushOptions {
  creds: string;
  /** Docker v2 schema 2 (and manifest lists) instead of OCI. */
  v2s2?: boolean;
  all?: boolean;
}

/** `skopeo copy oci:LAYOUT:TAG docker://DEST`; returns the pushed manifest's digest. */
export function push(
  pki: TestPki,
  work: string,
  source: { layout: string; tag: string },
  dest: string,
  options: PushOptions,
): string {
  const digestFile = path.join(work, `digest-${Math.random().toString(16).slice(2)}`);
  execFileSync(
    'skopeo',
    [
      'copy',
      '--quiet',
      '--dest-cert-dir',
      pki.certDir,
      '--dest-creds',
      options.creds,
      '--digestfile',
      digestFile,
      ...(options.v2s2 ? ['--format', 'v2s2'] : []),
      ...(options.all ? ['--all'] : []),
      `oci:${source.layout}:${source.tag}`,
      `docker://${dest}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return readFileSync(digestFile, 'utf8').trim();
}

/** `skopeo copy docker://SRC docker://DEST --all` between registries (what oc-mirror does). */
export function mirror(pki: TestPki, source: string, sourceCreds: string, dest: string, destCreds: string): void {
  execFileSync(
    'skopeo',
    [
      'copy',
      '--quiet',
      '--all',
      '--preserve-digests',
      '--src-cert-dir',
      pki.certDir,
      '--src-creds',
      sourceCreds,
      '--dest-cert-dir',
      pki.certDir,
      '--dest-creds',
      destCreds,
      `docker://${source}`,
      `docker://${dest}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
}
