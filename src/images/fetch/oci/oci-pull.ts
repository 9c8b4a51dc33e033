// The OCI image source's one entry point (the seam the image loader calls): pull the CoreOS
// ISO named by an OS_IMAGES entry into a `.part` file and say what was verified.
//
//   { kind: 'image', reference: 'oci://HOST[:PORT]/REPO@sha256:…' }
//       an image or artifact whose layer is the ISO: a raw blob, or a tar / tar+gzip / tar+zstd
//       layer holding one `*.iso`. Layer choice: the one layer titled `*.iso`
//       (`org.opencontainers.image.title`), else the only layer, else every layer from the top
//       down until one holds an ISO.
//   { kind: 'release', releaseImage: 'HOST[:PORT]/REPO@sha256:…' }
//       an OpenShift release payload: its `release-manifests/image-references` names the
//       machine-os-images image, whose `coreos/coreos-<arch>.iso` is taken and checked against the
//       `.iso.sha256` beside it (release-payload.ts).
//
// For every reference the pull sources come from registries.conf (mirror-resolution.ts):
// mirrors first, then the source; the first source that serves the manifest serves the blobs
// too (as containers-image does). Manifest lists and indexes are resolved for the entry's
// cpu_architecture; a single-architecture image whose config names another architecture is
// refused. A tag is resolved once: everything after the first manifest is fetched by digest,
// and `resolved` carries the digest for the caller to record.
//
// Resume: a raw, uncompressed ISO blob is resumable across restarts. Before its first byte,
// `<part>.oci.json` records the layer digest; a later pull of the same layer re-hashes the
// `.part` and asks for the rest with Range. Compressed or tar layers restart from their first
// byte after a restart (decompressor state cannot be saved); within one pull every broken blob
// transfer resumes with Range (blob-reader.ts).
//
// The promise resolves only after the layer digest and the ISO's sha256 (and .iso.sha256) were
// verified; until then the `.part` holds unverified bytes the caller must not serve.
// Does not: rename the `.part`, parse the ISO, or know OS_IMAGES (phase 2's loader does).
import { type Hash, createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { BadRequestError, describeError } from '../../../errors.js';
import { ImageLoadError } from '../../load-failure/load-error.js';
import { writeFileAtomic } from '../../../fs/atomic-file.js';
import { openPartFile, regularPartSize } from '../../../fs/part-file.js';
import { hashInto } from '../verify-iso.js';
import { DEFAULT_MAX_RECONNECTS, DEFAULT_RECONNECT_DELAY_MS, readVerifiedBlob } from './blob-reader.js';
import { type ImageReference, formatReference, parseImageReference, pinned } from '../../image-reference.js';
import {
  COREOS_ARCHITECTURE,
  type Descriptor,
  ManifestError,
  OCI_ARCHITECTURE,
  type ParsedManifest,
  parseManifest,
  selectPlatform,
} from './image-manifest.js';
import {
  DEFAULT_MAX_LAYER_BYTES,
  DEFAULT_MAX_TAR_ENTRIES,
  type IsoSink,
  type IsoTarget,
  type LayerLimits,
  PositionedFileWriter,
  extractIsoFromLayer,
} from './iso-extract.js';
import { peekStream, sniffCompression } from './layer-decoder.js';
import { type PullSource, resolvePullSources, skippedMirrorsNote } from './mirror-resolution.js';
import type { RegistriesConf } from './registries-conf.js';
import type { AuthFile } from './registry-auth-file.js';
import {
  DEFAULT_REGISTRY_RETRY,
  MAX_MANIFEST_BYTES,
  RegistryClient,
  type RegistryClientSettings,
  type RetrySettings,
} from './registry-client.js';
import { RegistryError } from './registry-error.js';
import { DEFAULT_REGISTRY_TIMEOUTS, type RegistryTimeouts } from './registry-http.js';
import {
  IMAGE_REFERENCES_PATH,
  MACHINE_OS_IMAGES_TAG,
  MAX_IMAGE_REFERENCES_BYTES,
  pullspecOf,
  readFileFromLayer,
} from './release-payload.js';

export interface OciSettings {
  /** REGISTRY_AUTH_FILE, then the pull secret (registry-auth-file.ts); searched in order. */
  authFiles: readonly AuthFile[];
  /** REGISTRY_CA_FILE's PEM, trusted in addition to the default roots. */
  ca: string | undefined;
  /** REGISTRIES_CONF_FILE, parsed (registries-conf.ts); undefined: pull from the sources only. */
  registriesConf: RegistriesConf | undefined;
  timeouts: RegistryTimeouts;
  retry: RetrySettings;
  maxManifestBytes: number;
  layerLimits: LayerLimits;
  /** Re-opened connections per blob after a broken transfer. */
  maxReconnects: number;
  reconnectDelayMs: number;
}

export const DEFAULT_OCI_SETTINGS: Omit<OciSettings, 'authFiles' | 'ca' | 'registriesConf'> = {
  timeouts: DEFAULT_REGISTRY_TIMEOUTS,
  retry: DEFAULT_REGISTRY_RETRY,
  maxManifestBytes: MAX_MANIFEST_BYTES,
  layerLimits: { maxEntries: DEFAULT_MAX_TAR_ENTRIES, maxLayerBytes: DEFAULT_MAX_LAYER_BYTES },
  maxReconnects: DEFAULT_MAX_RECONNECTS,
  reconnectDelayMs: DEFAULT_RECONNECT_DELAY_MS,
};

export type OciSource = { kind: 'image'; reference: string } | { kind: 'release'; releaseImage: string };

export interface OciPullRequest {
  source: OciSource;
  /** The entry's cpu_architecture (x86_64, aarch64, ppc64le, s390x). */
  cpuArchitecture: string;
  /** The file the ISO is written to; the caller renames it once this resolves. */
  partPath: string;
  signal: AbortSignal;
  /** The ISO's size when known and the bytes already on disk (a resume); throw to refuse. */
  onStart?(size: number | undefined, already: number): void;
  onBytes?(bytes: number): void;
  /** A recoverable event worth a log line (mirror failed, transfer resumed); never carries secrets. */
  onNotice?(message: string, context: Record<string, unknown>): void;
}

export interface OciPullResult {
  /** sha256 (hex) and size of the ISO now in `partPath`. */
  sha256: string;
  size: number;
  /** The configured reference pinned to the digest its tag (or digest) resolved to: record it. */
  resolved: string;
  /** The physical reference the ISO's layer came from (a mirror or the source). */
  pulledFrom: string;
  /** The (platform) image manifest the layer belongs to, and the layer. */
  manifestDigest: string;
  layerDigest: string;
  /** Name of the ISO inside its tar layer; undefined for a raw blob. */
  isoName: string | undefined;
  /** For release payloads: the machine-os-images pullspec that was followed. */
  machineOsImages?: string;
}

/** `<part>.oci.json`: what a resumable raw-blob pull is writing (callers remove it with the .part). */
export function ociPartState(partPath: string): string {
  return `${partPath}.oci.json`;
}

interface PartState {
  layer: string;
}

export async function pullOciIso(request: OciPullRequest, settings: OciSettings): Promise<OciPullResult> {
  const session = new PullSession(request, settings);
  try {
    return await (request.source.kind === 'image'
      ? session.pullImage(request.source.reference)
      : session.pullRelease(request.source.releaseImage));
  } catch (err) {
    // a reference that cannot be parsed (configured, rewritten by registries.conf, or named by a
    // release payload) fails the same way every time: a `never` error, like bad bytes
    if (err instanceof BadRequestError) throw new ImageLoadError('format', err.message, 'never', { ...err.context });
    throw err;
  }
}

interface ResolvedImage {
  client: RegistryClient;
  source: PullSource;
  /** Digest of the top-level manifest (index or image) the reference named. */
  topDigest: string;
  manifestDigest: string;
  manifest: Extract<ParsedManifest, { kind: 'image' }>;
}

class PullSession {
  private readonly clients = new Map<string, RegistryClient>();
  private readonly clientSettings: RegistryClientSettings;

  constructor(
    private readonly request: OciPullRequest,
    private readonly settings: OciSettings,
  ) {
    this.clientSettings = {
      authFiles: settings.authFiles,
      trust: { ca: settings.ca },
      timeouts: settings.timeouts,
      retry: settings.retry,
      maxManifestBytes: settings.maxManifestBytes,
    };
  }

  async pullImage(text: string): Promise<OciPullResult> {
    const ref = parseImageReference(text, 'OCI image');
    const image = await this.resolve(ref);
    const layers = image.manifest.layers;
    const titled = layers.filter((l) =>
      (l.annotations['org.opencontainers.image.title'] ?? '').toLowerCase().endsWith('.iso'),
    );
    if (titled.length > 1)
      throw this.formatError(
        image,
        `the image has ${titled.length} layers titled *.iso (${titled.map((l) => l.annotations['org.opencontainers.image.title']).join(', ')}); expected one`,
      );
    const single = titled.length === 1 || layers.length === 1;
    const candidates = titled.length === 1 ? titled : layers.length === 1 ? layers : [...layers].reverse();
    const coreosArch = COREOS_ARCHITECTURE[this.request.cpuArchitecture]!;
    const result = await this.extract(image, candidates, { kind: 'any-iso', coreosArch }, single);
    return { ...result, resolved: formatReference(pinned(ref, image.topDigest)) };
  }

  async pullRelease(text: string): Promise<OciPullResult> {
    const releaseRef = parseImageReference(text, 'release_image');
    const release = await this.resolve(releaseRef);
    const label = `release ${formatReference(release.source.reference)}`;
    let imageReferences: Buffer | 'removed' | undefined;
    for (const layer of [...release.manifest.layers].reverse()) {
      const blob = readVerifiedBlob(
        release.client,
        release.source.reference.repository,
        layer,
        this.blobOptions(0, undefined),
      );
      imageReferences = await readFileFromLayer(
        blob,
        layer.mediaType,
        IMAGE_REFERENCES_PATH,
        MAX_IMAGE_REFERENCES_BYTES,
        this.settings.layerLimits,
        `${label} layer ${layer.digest}`,
      ).catch((err: unknown) => {
        throw this.wrap(err, release, 'release-payload');
      });
      if (imageReferences !== undefined) break;
    }
    if (imageReferences === undefined || imageReferences === 'removed')
      throw this.formatError(
        release,
        `the release payload has no ${IMAGE_REFERENCES_PATH} (not a release image?)`,
        'release-payload',
      );
    const pullspec = pullspecOf(imageReferences, MACHINE_OS_IMAGES_TAG, label);
    const mosRef = parseImageReference(pullspec, `${MACHINE_OS_IMAGES_TAG} pullspec`);
    const mos = await this.resolve(mosRef);
    const coreosArch = COREOS_ARCHITECTURE[this.request.cpuArchitecture]!;
    const result = await this.extract(
      mos,
      [...mos.manifest.layers].reverse(),
      { kind: 'machine-os', coreosArch },
      false,
    );
    return { ...result, resolved: formatReference(pinned(releaseRef, release.topDigest)), machineOsImages: pullspec };
  }

  /** Manifest (and platform manifest) from the first pull source that serves it. */
  private async resolve(ref: ImageReference): Promise<ResolvedImage> {
    if (OCI_ARCHITECTURE[this.request.cpuArchitecture] === undefined)
      throw new RegistryError(
        `unknown cpu_architecture ${JSON.stringify(this.request.cpuArchitecture)}`,
        { registry: ref.registry, step: 'manifest' },
        'never',
        'format',
      );
    const plan = resolvePullSources(this.settings.registriesConf, ref);
    if (plan.sources.length === 0)
      throw new RegistryError(
        `${formatReference(ref)}: every pull source is blocked by registries.conf (${plan.blocked.join(', ')})`,
        { registry: ref.registry, repository: ref.repository, step: 'mirror' },
        'never',
      );
    const failures: { source: PullSource; error: RegistryError }[] = [];
    for (const source of plan.sources) {
      try {
        return await this.resolveAt(source);
      } catch (err) {
        if (this.request.signal.aborted) throw this.request.signal.reason;
        const error = err instanceof RegistryError ? err : this.wrap(err, undefined, 'manifest', source);
        failures.push({ source, error });
        if (plan.sources.length > 1)
          this.request.onNotice?.('pull source failed; trying the next one', {
            source: formatReference(source.reference),
            mirror: source.mirror,
            reason: error.message,
          });
      }
    }
    const last = failures[failures.length - 1]!;
    // a mirror left out for the kind of reference is named, with the fix (issue 37: a tag through
    // a digest-only mirror named only the source's refusal)
    const skipped = skippedMirrorsNote(plan, ref);
    if (failures.length === 1 && skipped === undefined) throw last.error;
    const others = failures
      .slice(0, -1)
      .map((f) => `[${formatReference(f.source.reference)}: ${f.error.message}]`)
      .join(' ');
    const notes = [...(others ? [`mirrors also failed: ${others}`] : []), ...(skipped ? [skipped] : [])];
    throw new RegistryError(
      `${last.error.message} (${notes.join('; ')})`,
      {
        registry: last.error.registry,
        repository: last.error.repository,
        step: last.error.step,
        status: last.error.status,
      },
      last.error.retry,
      last.error.kind === 'format' ? 'format' : 'upstream',
      { cause: last.error },
    );
  }

  private async resolveAt(source: PullSource): Promise<ResolvedImage> {
    const ref = source.reference;
    const client = this.client(source);
    const signal = this.request.signal;
    const top = await client.getManifest(ref.repository, ref.digest ?? ref.tag!, signal);
    let parsed = this.parse(top.bytes, top.mediaType, source);
    let manifestDigest = top.digest;
    if (parsed.kind === 'index') {
      let entry: Descriptor;
      try {
        entry = selectPlatform(parsed.manifests, this.request.cpuArchitecture);
      } catch (err) {
        throw this.formatErrorAt(source, describeError(err));
      }
      const platform = await client.getManifest(ref.repository, entry.digest, signal);
      parsed = this.parse(platform.bytes, platform.mediaType, source);
      if (parsed.kind === 'index')
        throw this.formatErrorAt(source, 'the index entry for the architecture is itself an index');
      manifestDigest = platform.digest;
    } else {
      await this.checkArchitecture(client, source, parsed);
    }
    return { client, source, topDigest: top.digest, manifestDigest, manifest: parsed };
  }

  /** A single-architecture image must be for the entry's architecture (artifacts carry none). */
  private async checkArchitecture(
    client: RegistryClient,
    source: PullSource,
    manifest: Extract<ParsedManifest, { kind: 'image' }>,
  ): Promise<void> {
    const configTypes = ['application/vnd.oci.image.config.v1+json', 'application/vnd.docker.container.image.v1+json'];
    if (!configTypes.includes(manifest.config.mediaType) || manifest.config.size > this.settings.maxManifestBytes)
      return;
    const bytes = await client.readBlob(
      source.reference.repository,
      manifest.config.digest,
      this.settings.maxManifestBytes,
      this.request.signal,
    );
    let architecture: unknown;
    try {
      architecture = (JSON.parse(bytes.toString('utf8')) as { architecture?: unknown }).architecture;
    } catch {
      throw this.formatErrorAt(source, 'the image config is not JSON');
    }
    const wanted = OCI_ARCHITECTURE[this.request.cpuArchitecture];
    if (typeof architecture === 'string' && architecture !== '' && architecture !== wanted)
      throw this.formatErrorAt(
        source,
        `the image is for ${architecture}, the entry's cpu_architecture ${this.request.cpuArchitecture} needs ${wanted}`,
      );
  }

  /** Streams candidate layers until one yields the ISO; resumes a raw blob recorded in the part state. */
  private async extract(
    image: ResolvedImage,
    candidates: Descriptor[],
    target: IsoTarget,
    rawAllowed: boolean,
  ): Promise<Omit<OciPullResult, 'resolved'>> {
    const repository = image.source.reference.repository;
    const physical = formatReference(pinned(image.source.reference, image.manifestDigest));
    const part = this.request.partPath;
    const stateFile = ociPartState(part);
    const resumed = rawAllowed ? await this.resumeRaw(image, candidates, stateFile) : undefined;
    if (resumed) return { ...resumed, pulledFrom: physical, manifestDigest: image.manifestDigest };
    await rm(stateFile, { force: true });

    for (const layer of candidates) {
      const label = `${formatReference(image.source.reference)} layer ${layer.digest}`;
      const handle = await openPartFile(part, { resume: false });
      const hash = createHash('sha256');
      try {
        const blob = readVerifiedBlob(image.client, repository, layer, this.blobOptions(0, undefined));
        const refusal: { err?: unknown } = {};
        const sink: IsoSink = {
          handle,
          start: 0,
          hash,
          onStart: (size) => {
            try {
              this.request.onStart?.(size, 0);
            } catch (err) {
              refusal.err = err; // the caller's own error (a disk budget) goes back to it as it is
              throw err;
            }
          },
          onBytes: (n) => this.request.onBytes?.(n),
        };
        const result = await extractIsoFromLayer(
          blob,
          layer.mediaType,
          target,
          sink,
          this.settings.layerLimits,
          label,
          rawAllowed,
          layer.size,
        ).catch((err: unknown) => {
          blob.destroy();
          if ('err' in refusal && err === refusal.err) throw err;
          throw this.wrap(err, image, 'layer');
        });
        if (!result.found && result.removed) break; // a whiteout: lower layers hold a deleted file
        if (!result.found) continue;
        await handle.sync();
        return {
          sha256: result.sha256,
          size: result.size,
          pulledFrom: physical,
          manifestDigest: image.manifestDigest,
          layerDigest: layer.digest,
          isoName: result.name,
        };
      } finally {
        await handle.close();
      }
    }
    const what = target.kind === 'machine-os' ? `coreos/coreos-${target.coreosArch}.iso` : 'an ISO';
    throw this.formatError(image, `no layer holds ${what}`, 'layer');
  }

  /**
   * The raw-blob path with resume: when the part state names one of the candidates (a raw,
   * uncompressed ISO blob) the `.part` prefix is re-hashed and only the rest is fetched.
   * Returns undefined when the candidate is not such a blob (the caller streams normally).
   */
  private async resumeRaw(
    image: ResolvedImage,
    candidates: Descriptor[],
    stateFile: string,
  ): Promise<Omit<OciPullResult, 'resolved' | 'pulledFrom' | 'manifestDigest'> | undefined> {
    if (candidates.length !== 1) return undefined;
    const layer = candidates[0]!;
    const state = await readState(stateFile);
    const part = this.request.partPath;
    const found = await regularPartSize(part);
    if (found.removed) this.request.onNotice?.(`${found.removed}; pulling from the first byte`, { part });
    const already = state?.layer === layer.digest ? found.size : 0;
    if (already > 0 && already <= layer.size) {
      const hash = createHash('sha256');
      await hashInto(hash, part, already, this.request.signal);
      this.request.onNotice?.('resuming the ISO blob after a restart', { digest: layer.digest, already });
      return this.writeRawBlob(image, layer, already, hash);
    }
    // fresh: is the candidate a raw uncompressed blob? Sniff its first bytes cheaply by media type and title.
    if (!isRawIsoDescriptor(layer)) return undefined;
    await writeFileAtomic(stateFile, JSON.stringify({ layer: layer.digest } satisfies PartState));
    const written = await this.writeRawBlob(image, layer, 0, createHash('sha256'));
    if (written === undefined) await rm(stateFile, { force: true });
    return written;
  }

  /**
   * Writes a raw ISO blob from `start` (resuming). A fresh blob (start 0) whose first bytes turn
   * out to be compressed or a tar is left to the streaming path: undefined is returned.
   */
  private async writeRawBlob(
    image: ResolvedImage,
    layer: Descriptor,
    start: number,
    hash: Hash,
  ): Promise<Omit<OciPullResult, 'resolved' | 'pulledFrom' | 'manifestDigest'> | undefined> {
    let blob = readVerifiedBlob(image.client, image.source.reference.repository, layer, this.blobOptions(start, hash));
    if (start === 0) {
      const peeked = await peekStream(blob, 512).catch((err: unknown) => {
        blob.destroy();
        throw this.wrap(err, image, 'blob');
      });
      const head = peeked.head;
      blob = peeked.stream;
      const tar = head.length >= 512 && head.subarray(257, 262).toString('latin1') === 'ustar';
      if (sniffCompression(head) !== 'none' || tar) {
        blob.destroy();
        return undefined;
      }
    }
    const handle = await openPartFile(this.request.partPath, { resume: start > 0 });
    try {
      if (start > 0) await handle.truncate(start);
      this.request.onStart?.(layer.size, start);
      const writer = new PositionedFileWriter(handle, start, (n) => this.request.onBytes?.(n));
      // a broken transfer still lands every byte received, so the next attempt resumes after them
      const failure: { err?: unknown } = {};
      await pipeline(untilError(blob, failure), writer).catch((err: unknown) => {
        throw this.wrap(err, image, 'blob');
      });
      if ('err' in failure) throw this.wrap(failure.err, image, 'blob');
      await handle.sync();
      // the blob reader verified the digest: the ISO's sha256 is the layer digest
      return {
        sha256: layer.digest.slice('sha256:'.length),
        size: layer.size,
        layerDigest: layer.digest,
        isoName: undefined,
      };
    } finally {
      blob.destroy();
      await handle.close();
    }
  }

  private blobOptions(start: number, hash: Hash | undefined) {
    return {
      start,
      ...(hash ? { hash } : {}),
      signal: this.request.signal,
      maxReconnects: this.settings.maxReconnects,
      reconnectDelayMs: this.settings.reconnectDelayMs,
      ...(this.request.onNotice ? { onNotice: this.request.onNotice } : {}),
    };
  }

  private client(source: PullSource): RegistryClient {
    const key = `${source.reference.registry} ${source.insecure}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new RegistryClient(source.reference.registry, source.insecure, this.clientSettings);
      this.clients.set(key, client);
    }
    return client;
  }

  private parse(bytes: Buffer, mediaType: string, source: PullSource): ParsedManifest {
    try {
      return parseManifest(bytes, mediaType);
    } catch (err) {
      if (err instanceof ManifestError) throw this.formatErrorAt(source, err.message);
      throw err;
    }
  }

  private formatError(
    image: ResolvedImage,
    why: string,
    step: 'manifest' | 'layer' | 'release-payload' = 'manifest',
  ): RegistryError {
    return this.formatErrorAt(image.source, why, step);
  }

  private formatErrorAt(
    source: PullSource,
    why: string,
    step: 'manifest' | 'layer' | 'release-payload' = 'manifest',
  ): RegistryError {
    const ref = source.reference;
    return new RegistryError(
      `${formatReference(ref)} (registry ${ref.registry}): ${why}`,
      { registry: ref.registry, repository: ref.repository, step },
      'never',
      'format',
    );
  }

  /** Any failure while streaming a layer as a RegistryError naming where it happened. */
  private wrap(
    err: unknown,
    image: ResolvedImage | undefined,
    step: 'layer' | 'blob' | 'manifest' | 'release-payload',
    source = image?.source,
  ): RegistryError {
    if (err instanceof RegistryError) return err;
    if (this.request.signal.aborted) throw this.request.signal.reason;
    const ref = source?.reference;
    const registry = ref?.registry ?? 'unknown';
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && !['ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(code))
      throw err; // local I/O (ENOSPC …): the caller's
    const isFormat = err instanceof Error && err.name === 'FormatError';
    return new RegistryError(
      `${ref ? formatReference(ref) : 'image'} (registry ${registry}): ${describeError(err)}`,
      { registry, repository: ref?.repository, step },
      isFormat ? 'never' : 'fast',
      isFormat ? 'format' : 'upstream',
      { cause: err },
    );
  }
}

/** The stream's chunks; an error ends the iteration and is kept in `failure` instead of thrown. */
async function* untilError(stream: AsyncIterable<Buffer>, failure: { err?: unknown }): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream) yield chunk;
  } catch (err) {
    failure.err = err;
  }
}

/** A layer that is plainly the ISO itself, uncompressed: safe to resume byte for byte. */
function isRawIsoDescriptor(layer: Descriptor): boolean {
  const title = (layer.annotations['org.opencontainers.image.title'] ?? '').toLowerCase();
  const type = layer.mediaType;
  if (/tar|gzip|zstd/.test(type)) return false;
  return title.endsWith('.iso') || type === 'application/octet-stream' || type.endsWith('.iso') || /iso9660/.test(type);
}

async function readState(file: string): Promise<PartState | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<PartState>;
    return typeof parsed.layer === 'string' ? { layer: parsed.layer } : undefined;
  } catch {
    return undefined;
  }
}
