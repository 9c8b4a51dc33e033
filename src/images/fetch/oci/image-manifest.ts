// Reading the manifests registries serve today: Docker v2 schema 2 manifests and manifest lists
// (as quay.io serves release payloads) and OCI image manifests and indexes (OCI artifacts
// included: `artifactType`, any config media type, layers of any media type with
// `org.opencontainers.image.title` annotations). Schema 1 manifests are refused.
//
// A list or index is resolved by the image entry's `cpu_architecture`, mapped to the OCI
// platform architecture (x86_64→amd64, aarch64→arm64, ppc64le, s390x); only `linux` (or
// unspecified) OS entries count, and entries that are attestations (`unknown/unknown`,
// `vnd.docker.reference.type`) never match.
//
// Does: parse and validate JSON into typed descriptors, choose the platform entry (pure).
// Does not: fetch (registry-client.ts) or choose the ISO layer (oci-pull.ts). Next: iso-extract.ts.
import { MANIFEST_MEDIA_TYPES } from './registry-client.js';

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations: Record<string, string>;
  platform?: { architecture: string; os: string; variant?: string };
}

export type ParsedManifest =
  | { kind: 'index'; mediaType: string; manifests: Descriptor[] }
  | { kind: 'image'; mediaType: string; artifactType: string | undefined; config: Descriptor; layers: Descriptor[] };

export class ManifestError extends Error {}

/** bootsmith's cpu_architecture → the OCI platform architecture (GOARCH names). */
export const OCI_ARCHITECTURE: Readonly<Record<string, string>> = {
  x86_64: 'amd64',
  aarch64: 'arm64',
  arm64: 'arm64',
  ppc64le: 'ppc64le',
  s390x: 's390x',
};

/** bootsmith's cpu_architecture → the name in `coreos/coreos-<arch>.iso` (`uname -m` spelling). */
export const COREOS_ARCHITECTURE: Readonly<Record<string, string>> = {
  x86_64: 'x86_64',
  aarch64: 'aarch64',
  arm64: 'aarch64',
  ppc64le: 'ppc64le',
  s390x: 's390x',
};

const DIGEST = /^sha256:[a-f0-9]{64}$/;
/** An index with more entries than this is not a multi-arch image (the limit on manifest bytes bounds it anyway). */
const MAX_INDEX_ENTRIES = 10_000;
/** Images with more layers than this do not exist in practice (Docker caps at 127). */
const MAX_LAYERS = 1_000;

export function parseManifest(bytes: Buffer, headerMediaType: string): ParsedManifest {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ManifestError('the manifest is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new ManifestError('the manifest is not a JSON object');
  const m = doc as Record<string, unknown>;
  if (m.schemaVersion === 1) throw new ManifestError('Docker schema 1 manifests are not supported');
  if (m.schemaVersion !== 2) throw new ManifestError('the manifest has no schemaVersion 2');
  const mediaType = typeof m.mediaType === 'string' ? m.mediaType : headerMediaType;
  const isIndex =
    mediaType === MANIFEST_MEDIA_TYPES.ociIndex ||
    mediaType === MANIFEST_MEDIA_TYPES.dockerList ||
    (mediaType === '' && Array.isArray(m.manifests) && m.layers === undefined);
  if (isIndex) {
    if (!Array.isArray(m.manifests)) throw new ManifestError('the index has no manifests array');
    if (m.manifests.length > MAX_INDEX_ENTRIES)
      throw new ManifestError(`the index has more than ${MAX_INDEX_ENTRIES} entries`);
    return { kind: 'index', mediaType, manifests: m.manifests.map((d, i) => descriptor(d, `manifests[${i}]`)) };
  }
  if (
    mediaType !== MANIFEST_MEDIA_TYPES.ociManifest &&
    mediaType !== MANIFEST_MEDIA_TYPES.dockerManifest &&
    !(mediaType === '' && m.config !== undefined)
  )
    throw new ManifestError(`unsupported manifest media type ${JSON.stringify(mediaType)}`);
  if (!Array.isArray(m.layers)) throw new ManifestError('the manifest has no layers array');
  if (m.layers.length > MAX_LAYERS) throw new ManifestError(`the manifest has more than ${MAX_LAYERS} layers`);
  return {
    kind: 'image',
    mediaType: mediaType || MANIFEST_MEDIA_TYPES.ociManifest,
    artifactType: typeof m.artifactType === 'string' ? m.artifactType : undefined,
    config: descriptor(m.config, 'config'),
    layers: m.layers.map((d, i) => descriptor(d, `layers[${i}]`)),
  };
}

/** The index entry for `cpuArchitecture`, or a ManifestError listing what the index offers. */
export function selectPlatform(index: Descriptor[], cpuArchitecture: string): Descriptor {
  const wanted = OCI_ARCHITECTURE[cpuArchitecture];
  if (wanted === undefined) throw new ManifestError(`unknown cpu_architecture ${JSON.stringify(cpuArchitecture)}`);
  const candidates = index.filter(
    (d) =>
      d.platform !== undefined &&
      d.platform.architecture === wanted &&
      (d.platform.os === 'linux' || d.platform.os === '') &&
      d.annotations['vnd.docker.reference.type'] === undefined,
  );
  const match =
    candidates.find((d) => wanted !== 'arm64' || !d.platform?.variant || d.platform.variant === 'v8') ?? candidates[0];
  if (match) return match;
  const offered = [
    ...new Set(index.map((d) => (d.platform ? `${d.platform.os}/${d.platform.architecture}` : 'no platform'))),
  ].join(', ');
  throw new ManifestError(
    `the index has no linux/${wanted} entry for ${cpuArchitecture} (it has ${offered || 'no entries'})`,
  );
}

function descriptor(value: unknown, where: string): Descriptor {
  if (typeof value !== 'object' || value === null) throw new ManifestError(`${where} is not a descriptor object`);
  const d = value as Record<string, unknown>;
  if (typeof d.digest !== 'string') throw new ManifestError(`${where} has no digest`);
  if (!DIGEST.test(d.digest))
    throw new ManifestError(`${where} has digest ${JSON.stringify(d.digest.slice(0, 80))}; only sha256 is supported`);
  if (typeof d.size !== 'number' || !Number.isSafeInteger(d.size) || d.size < 0)
    throw new ManifestError(`${where} has no valid size`);
  const annotations: Record<string, string> = {};
  if (typeof d.annotations === 'object' && d.annotations !== null)
    for (const [k, v] of Object.entries(d.annotations as Record<string, unknown>))
      if (typeof v === 'string') annotations[k] = v;
  const out: Descriptor = {
    mediaType: typeof d.mediaType === 'string' ? d.mediaType : '',
    digest: d.digest,
    size: d.size,
    annotations,
  };
  if (typeof d.platform === 'object' && d.platform !== null) {
    const p = d.platform as Record<string, unknown>;
    out.platform = {
      architecture: typeof p.architecture === 'string' ? p.architecture : '',
      os: typeof p.os === 'string' ? p.os : '',
      ...(typeof p.variant === 'string' ? { variant: p.variant } : {}),
    };
  }
  return out;
}
