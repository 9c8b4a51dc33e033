// Taking the ISO out of one layer while it streams, straight into the destination file (no
// temporary copy of the layer): the verified blob stream (blob-reader.ts) → decompression
// (layer-decoder.ts) → either the ISO itself (a raw blob, as OCI artifacts carry it) or a tar
// (tar-reader.ts) holding it → the file, with the ISO's sha256 computed on the way.
//
// What counts as the ISO (IsoTarget):
//   any-iso     the one regular file named `*.iso` in the layer (oci:// images and artifacts);
//               a second one fails ("several ISOs"); a machine-os-images-shaped layer counts
//               only its own architecture's `coreos/coreos-<arch>.iso`, checked against the
//               `.iso.sha256` beside it when there is one;
//   machine-os  `coreos/coreos-<arch>.iso` of a machine-os-images image, which must have
//               `coreos/coreos-<arch>.iso.sha256` beside it (the hex sha256, as the image's build
//               writes it); a mismatch fails. Other architectures' ISOs are ignored.
//
// Refused with FormatErrors (class `never`: the same layer fails again): paths with `..` or a
// leading `/`, a link or special file where the ISO (or its .sha256) should be, more than
// `maxEntries` entries, more than `maxLayerBytes` decompressed, a truncated or corrupt archive.
// The result is returned only after the layer's whole input was read and its digest verified
// (the blob stream fails at its end otherwise), so nothing unverified ever looks finished.
//
// Does: decide raw/tar, pick entries, write and hash. Does not: choose layers or open files
// (oci-pull.ts). Next: oci-pull.ts.
import type { Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { type Readable, Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { FormatError } from '../../../errors.js';
import { HashingFileWriter } from '../hashing-writer.js';
import { type LayerCompression, decodeLayer, peekStream } from './layer-decoder.js';
import { readTar } from './tar-reader.js';

export type IsoTarget = { kind: 'any-iso'; coreosArch: string } | { kind: 'machine-os'; coreosArch: string };

export interface LayerLimits {
  /** Tar headers per layer (metadata records included). */
  maxEntries: number;
  /** Bytes a layer may decompress to (its ISO included). */
  maxLayerBytes: number;
}

/** RHEL base layers hold ~30 000 files; ten times that is no image layer. */
export const DEFAULT_MAX_TAR_ENTRIES = 300_000;
/** ISOs of 50+ GiB exist (ARCHITECTURE.md); a layer expanding past 128 GiB is a bomb. */
export const DEFAULT_MAX_LAYER_BYTES = 128 * 1024 ** 3;
/** machine-os-images names its ISOs `coreos/coreos-<arch>.iso`. */
const OTHER_ARCH_ISO = /^coreos\/coreos-[^/]+\.iso$/;
/** A `.iso.sha256` holds 64 hex digits and perhaps a file name. */
const MAX_SHA256_FILE_BYTES = 4096;

export interface IsoSink {
  handle: FileHandle;
  /** Where the ISO's first byte goes (0 unless resuming a raw blob). */
  start: number;
  /** sha256 of bytes [0, start) of the ISO; fresh when start is 0. */
  hash: Hash;
  /** The ISO's size, once known; throw to refuse it (disk budget). */
  onStart(size: number | undefined): void;
  onBytes(bytes: number): void;
}

export type LayerResult =
  /** `removed`: the layer deletes the target (an OCI whiteout), so lower layers must not be searched. */
  | { found: false; compression: LayerCompression; layout: 'raw' | 'tar'; removed?: boolean }
  | {
      found: true;
      compression: LayerCompression;
      layout: 'raw' | 'tar';
      /** The ISO's name in the tar (undefined for a raw blob). */
      name: string | undefined;
      sha256: string;
      size: number;
    };

/**
 * Streams one layer; writes the target ISO into the sink when the layer holds it.
 * `blob` must be the verified blob stream (it fails at its end unless the digest matches).
 * `rawAllowed`: a layer that is not a tar may be the ISO itself (artifacts); otherwise it is skipped.
 */
export async function extractIsoFromLayer(
  blob: Readable,
  mediaType: string,
  target: IsoTarget,
  sink: IsoSink,
  limits: LayerLimits,
  label: string,
  rawAllowed: boolean,
  layerSize: number,
): Promise<LayerResult> {
  const decoded = await decodeLayer(blob, mediaType, limits.maxLayerBytes, label);
  const compression = decoded.compression;
  const { head, stream } = await peekStream(decoded.stream, 512);
  const isTar = head.length >= 512 && head.subarray(257, 262).toString('latin1') === 'ustar';
  if (!isTar) {
    if (!rawAllowed || target.kind !== 'any-iso') {
      await drain(stream);
      await finished(blob);
      return { found: false, compression, layout: 'raw' };
    }
    sink.onStart(compression === 'none' ? layerSize : undefined);
    const size = await writeInto(stream, sink);
    await finished(blob);
    return { found: true, compression, layout: 'raw', name: undefined, sha256: sink.hash.digest('hex'), size };
  }

  const machineOs = `coreos/coreos-${target.coreosArch}.iso`;
  const wanted = target.kind === 'machine-os' ? machineOs : undefined;
  let written: { name: string; size: number } | undefined;
  let sidecar: string | undefined;
  let removed = false;
  const isos: string[] = [];
  for await (const { entry, body } of readTar(stream, limits.maxEntries, label)) {
    if (entry.escapes)
      throw new FormatError(`${label}: the layer has an entry outside its root (${JSON.stringify(clip(entry.path))})`);
    if (wanted !== undefined && hidesPath(entry.path, wanted)) removed = true;
    const isCandidate =
      wanted !== undefined
        ? entry.path === wanted
        : entry.path.toLowerCase().endsWith('.iso') &&
          entry.type !== 'directory' &&
          (entry.path === machineOs || !OTHER_ARCH_ISO.test(entry.path)); // other architectures' machine-os ISOs
    if (isCandidate) {
      if (entry.type !== 'file')
        throw new FormatError(
          `${label}: ${entry.path} is a ${entry.type === 'other' ? 'special file' : entry.type}, not a regular file`,
        );
      isos.push(entry.path);
      if (written !== undefined)
        throw new FormatError(
          `${label}: the layer holds several ISOs (${isos.map(clip).join(', ')}); expected exactly one`,
        );
      sink.onStart(entry.size);
      const size = await writeInto(body, sink);
      written = { name: entry.path, size };
      continue;
    }
    if (entry.path === `${machineOs}.sha256`) {
      if (entry.type !== 'file')
        throw new FormatError(`${label}: ${entry.path} is a ${entry.type}, not a regular file`);
      if (entry.size > MAX_SHA256_FILE_BYTES)
        throw new FormatError(
          `${label}: ${entry.path} is ${entry.size} bytes; a sha256 file is at most ${MAX_SHA256_FILE_BYTES}`,
        );
      const parts: Buffer[] = [];
      for await (const chunk of body) parts.push(chunk);
      sidecar = Buffer.concat(parts).toString('utf8');
    }
  }
  await finished(blob); // the digest is verified at the blob's end; a mismatch rejects here
  if (written === undefined) return { found: false, compression, layout: 'tar', removed };
  const sha256 = sink.hash.digest('hex');
  if (wanted !== undefined && sidecar === undefined)
    throw new FormatError(`${label}: ${wanted} has no ${wanted}.sha256 beside it`);
  if (written.name === machineOs && sidecar !== undefined) {
    const expected = /^([a-fA-F0-9]{64})(?:\s|$)/.exec(sidecar.trim())?.[1]?.toLowerCase();
    if (expected === undefined) throw new FormatError(`${label}: ${machineOs}.sha256 does not hold a sha256`);
    if (expected !== sha256)
      throw new FormatError(`${label}: ${machineOs} has sha256 ${sha256} but ${machineOs}.sha256 says ${expected}`, {
        sha256,
        expected,
      });
  }
  return { found: true, compression, layout: 'tar', name: written.name, sha256, size: written.size };
}

/**
 * True when a layer entry is an OCI whiteout hiding `target` from lower layers: `.wh.<name>` for
 * the target or one of its directories, or the opaque marker `.wh..wh..opq` of a directory above it.
 */
export function hidesPath(entry: string, target: string): boolean {
  const slash = entry.lastIndexOf('/');
  const dir = slash < 0 ? '' : entry.slice(0, slash);
  const base = entry.slice(slash + 1);
  if (!base.startsWith('.wh.')) return false;
  const prefix = dir === '' ? '' : `${dir}/`;
  if (base === '.wh..wh..opq') return target.startsWith(prefix);
  const hidden = `${prefix}${base.slice('.wh.'.length)}`;
  return target === hidden || target.startsWith(`${hidden}/`);
}

/** Writes a body into the sink at its position, hashing; returns the bytes written. */
async function writeInto(body: AsyncIterable<Buffer> | Readable, sink: IsoSink): Promise<number> {
  const writer = new HashingFileWriter(sink.handle, sink.start, sink.hash, sink.onBytes);
  await pipeline(body, writer);
  return writer.position - sink.start;
}

async function drain(stream: Readable): Promise<void> {
  await pipeline(
    stream,
    new Writable({
      write(_chunk, _encoding, callback) {
        callback();
      },
    }),
  );
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** Writes chunks to a file at increasing positions (no hashing: the blob reader already hashes). */
export class PositionedFileWriter extends Writable {
  position: number;

  constructor(
    private readonly handle: FileHandle,
    start: number,
    private readonly onBytes: (bytes: number) => void,
  ) {
    super({ highWaterMark: 1024 * 1024 });
    this.position = start;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.handle.write(chunk, 0, chunk.length, this.position).then(() => {
      this.position += chunk.length;
      this.onBytes(chunk.length);
      callback();
    }, callback);
  }
}
