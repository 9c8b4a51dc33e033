// What an OpenShift release payload says about its images: the file
// `release-manifests/image-references` in the payload image's layers (what `oc adm release info`
// reads), an ImageStream whose `spec.tags[]` map component names to pullspecs
// (`{"name": "machine-os-images", "from": {"kind": "DockerImage", "name": "quay.io/…@sha256:…"}}`).
// The machine-os-images component carries the CoreOS live ISO as
// `/coreos/coreos-<arch>.iso` beside `/coreos/coreos-<arch>.iso.sha256` (openshift/machine-os-images:
// `fetch_image.sh` names them by `uname -p`: x86_64, aarch64, ppc64le, s390x, and writes the bare
// hex digest into the .sha256); the agent-based installer extracts exactly that path.
//
// Does: find one file in a layer stream (bounded), parse image-references, pick the
// machine-os-images pullspec (pure apart from consuming the stream). Does not: fetch
// (oci-pull.ts drives it). Next: oci-pull.ts.
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { FormatError } from '../../../errors.js';
import { hidesPath } from './iso-extract.js';
import { decodeLayer } from './layer-decoder.js';
import { readTar } from './tar-reader.js';

export const IMAGE_REFERENCES_PATH = 'release-manifests/image-references';
export const MACHINE_OS_IMAGES_TAG = 'machine-os-images';
/** image-references lists ~200 components in ~100 KiB; 8 MiB is no ImageStream. */
export const MAX_IMAGE_REFERENCES_BYTES = 8 * 1024 * 1024;

/**
 * Streams one layer to its end and returns the bytes of `path` if the layer holds it as a regular
 * file, `removed` when the layer deletes it (an OCI whiteout), undefined when it does neither.
 * Fails on a link or an oversize file at `path`.
 */
export async function readFileFromLayer(
  blob: Readable,
  mediaType: string,
  path: string,
  maxBytes: number,
  limits: { maxEntries: number; maxLayerBytes: number },
  label: string,
): Promise<Buffer | 'removed' | undefined> {
  const { stream } = await decodeLayer(blob, mediaType, limits.maxLayerBytes, label);
  let found: Buffer | undefined;
  let removed = false;
  for await (const { entry, body } of readTar(stream, limits.maxEntries, label)) {
    if (hidesPath(entry.path, path)) removed = true;
    if (entry.path !== path) continue;
    if (entry.type !== 'file') throw new FormatError(`${label}: ${path} is a ${entry.type}, not a regular file`);
    if (entry.size > maxBytes)
      throw new FormatError(`${label}: ${path} is ${entry.size} bytes; the limit is ${maxBytes}`);
    const parts: Buffer[] = [];
    for await (const chunk of body) parts.push(chunk);
    found = Buffer.concat(parts);
  }
  await finished(blob); // digest verified before the file is believed
  return found ?? (removed ? 'removed' : undefined);
}

/** The pullspec of `tag` in an image-references ImageStream. */
export function pullspecOf(imageReferences: Buffer, tag: string, label: string): string {
  let doc: unknown;
  try {
    doc = JSON.parse(imageReferences.toString('utf8'));
  } catch {
    throw new FormatError(`${label}: ${IMAGE_REFERENCES_PATH} is not JSON`);
  }
  const tags = (doc as { spec?: { tags?: unknown } } | null)?.spec?.tags;
  if (!Array.isArray(tags))
    throw new FormatError(`${label}: ${IMAGE_REFERENCES_PATH} has no spec.tags (not an ImageStream)`);
  const entry = tags.find((t) => (t as { name?: unknown } | null)?.name === tag) as
    { from?: { kind?: unknown; name?: unknown } } | undefined;
  if (entry === undefined)
    throw new FormatError(`${label}: the release payload has no ${tag} image (not in ${IMAGE_REFERENCES_PATH})`);
  const from = entry.from;
  if (typeof from?.name !== 'string' || from.name === '')
    throw new FormatError(`${label}: the ${tag} entry of ${IMAGE_REFERENCES_PATH} has no from.name`);
  if (from.kind !== undefined && from.kind !== 'DockerImage')
    throw new FormatError(
      `${label}: the ${tag} entry of ${IMAGE_REFERENCES_PATH} is a ${String(from.kind)}, not a DockerImage`,
    );
  return from.name;
}
