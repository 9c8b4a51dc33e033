// Rebuilding the byte-exact minimal ISO from a full CoreOS live ISO and its coreos/miniso.dat,
// as `coreos-installer iso extract minimal-iso` does before it edits kargs (src/live/mod.rs,
// src/miniso.rs `Data::unxzpack`).
//
// Does: read and decode miniso.dat (extent from the manifest, at most 1 MiB); refuse a full ISO
// that is not pristine, like coreos-installer ("Cannot operate on ISO with embedded
// customizations"): the Ignition embed area must be all zeros and, when the image has kargs
// areas, they must hold the default kargs (both areas lie in files the minimal ISO shares, so a
// customised full ISO could only fail the digest check later, with a vaguer message); then stream
// the minimal ISO: xz-packed gap bytes and shared-file bytes copied from the full ISO, in order,
// hashing as it goes; compare with the recorded SHA-256. The output is written to a temp file
// beside `outPath` and renamed into place only once the digest matches; on any failure nothing
// is left behind. Memory use is bounded by one copy buffer plus one xz pipe chunk.
// Differences from coreos-installer: an image without kargs areas (s390x ISOs before 2023-07)
// is rebuilt (coreos-installer refuses, because it must then edit kargs; choosing kargs is
// src/iso/minimal-kargs*.ts's job); kargs are not edited here.
// Does NOT: edit kargs or kargs.json (src/iso/minimal-kargs-patches.ts), or cache results.

import { randomBytes, createHash, type Hash } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

import { BootsmithError, FormatError, withContext } from '../../errors.js';
import type { LiveManifest } from '../manifest.js';
import { MINISO_MAX_BYTES, MINISO_PATH, parseMinisoData, sectorOffset, type MinisoData } from './miniso-format.js';
import { XzSliceReader, type Sink } from './miniso-xz.js';
import { xzUncompressedSize } from './xz-size.js';
import { readExactly } from '../read-range.js';
import { kargsInAreas } from '../read-embed-areas.js';

const COPY_CHUNK = 1024 * 1024;

export interface RebuildResult {
  /** Size of the minimal ISO in bytes. */
  size: number;
  /** Its SHA-256, lower-case hex (equal to the digest recorded in miniso.dat). */
  sha256: string;
}

/** An open full ISO: handle, path for messages, and size. */
export interface FullIso {
  fh: FileHandle;
  path: string;
  size: number;
}

async function openFullIso(fullIsoPath: string): Promise<FullIso> {
  return withContext(
    `opening full ISO ${fullIsoPath}`,
    async () => {
      const fh = await open(fullIsoPath, 'r');
      try {
        return { fh, path: fullIsoPath, size: (await fh.stat()).size };
      } catch (err) {
        await fh.close();
        throw err;
      }
    },
    (message, cause) => new FormatError(message, { path: fullIsoPath }, { cause }),
  );
}

/** Decodes the image's coreos/miniso.dat; FormatError when the image has none or it is corrupt. */
export async function readMinisoData(iso: FullIso, manifest: Pick<LiveManifest, 'files'>): Promise<MinisoData> {
  const extent = manifest.files.minisoData;
  if (extent === undefined) {
    throw new FormatError(
      `${iso.path} has no ${MINISO_PATH}: a minimal ISO can only be built from a base image that carries one ` +
        '(written by `coreos-installer pack minimal-iso` when the live ISO was built)',
      { path: iso.path, reason: 'no-miniso-data' },
    );
  }
  const length = Math.min(extent.length, MINISO_MAX_BYTES);
  const bytes = await readExactly(iso.fh, iso.path, iso.size, extent.offset, length, MINISO_PATH);
  return parseMinisoData(bytes, `${MINISO_PATH} of ${iso.path}`);
}

/** FormatError unless the full ISO carries no embedded Ignition config and its kargs are the defaults. */
export async function checkPristine(iso: FullIso, manifest: Pick<LiveManifest, 'ignition' | 'kargs'>): Promise<void> {
  const refuse = (what: string): FormatError =>
    new FormatError(
      `cannot rebuild the minimal ISO from ${iso.path}: the full ISO carries embedded customizations (${what}); ` +
        'minimal ISOs are rebuilt only from a pristine base image (see `coreos-installer iso reset`)',
      { path: iso.path, reason: 'customized-full-iso' },
    );
  const { offset, length, file } = manifest.ignition;
  for (let done = 0; done < length; done += COPY_CHUNK) {
    const n = Math.min(COPY_CHUNK, length - done);
    const chunk = await readExactly(iso.fh, iso.path, iso.size, offset + done, n, `Ignition embed area (${file})`);
    if (chunk.some((b) => b !== 0)) throw refuse(`the Ignition embed area in ${file} is not empty`);
  }
  if (manifest.kargs === undefined) return;
  const current = await kargsInAreas(
    (o, l, what) => readExactly(iso.fh, iso.path, iso.size, o, l, what),
    manifest.kargs,
    iso.path,
  );
  if (current !== manifest.kargs.default)
    throw refuse('the kernel arguments differ from the defaults in coreos/kargs.json');
}

/**
 * Streams the minimal ISO described by `data` into `sink`: gap bytes from `xzpacked`, shared
 * files from `iso`. Returns its size and SHA-256; FormatError when the digest differs from the
 * recorded one or the data does not fit the full ISO.
 */
export async function unpackMiniso(data: MinisoData, iso: FullIso, sink: Sink, where: string): Promise<RebuildResult> {
  const hash = createHash('sha256');
  const out: Sink = async (chunk) => {
    hash.update(chunk);
    await sink(chunk);
  };
  const xz = new XzSliceReader(data.xzpacked, `the xz-packed data of ${where}`);
  let offset = 0;
  try {
    for (const entry of data.entries) {
      const minimalAt = sectorOffset(entry.minimal);
      if (minimalAt > offset) {
        await xz.copy(minimalAt - offset, out);
        offset = minimalAt;
      }
      await copyFromFull(iso, sectorOffset(entry.full), entry.length, out, where);
      offset += entry.length;
    }
    const before = xz.produced;
    await xz.copyRest(out);
    offset += xz.produced - before;
  } finally {
    xz.destroy();
  }
  return { size: offset, sha256: checkDigest(hash, data, where) };
}

function checkDigest(hash: Hash, data: MinisoData, where: string): string {
  const actual = hash.digest();
  if (!actual.equals(data.digest)) {
    throw new FormatError(
      `rebuilding the minimal ISO from ${where}: wrong final digest: expected sha256 ${data.digest.toString('hex')}, ` +
        `found ${actual.toString('hex')} (the full ISO or its miniso.dat is not the one they were packed from)`,
      { expected: data.digest.toString('hex'), actual: actual.toString('hex') },
    );
  }
  return actual.toString('hex');
}

async function copyFromFull(iso: FullIso, start: number, length: number, sink: Sink, where: string): Promise<void> {
  if (start + length > iso.size) {
    throw new FormatError(
      `rebuilding the minimal ISO from ${where}: a table entry reads ${length} bytes at offset ${start} of the full ISO, ` +
        `beyond its ${iso.size} bytes`,
      { path: iso.path, offset: start, length, size: iso.size },
    );
  }
  const buf = Buffer.alloc(Math.min(COPY_CHUNK, Math.max(length, 1)));
  for (let done = 0; done < length;) {
    const n = Math.min(buf.length, length - done);
    const { bytesRead } = await iso.fh.read(buf, 0, n, start + done);
    if (bytesRead === 0)
      throw new FormatError(`reading full ISO ${iso.path} at offset ${start + done}: unexpected end of file`, {
        path: iso.path,
      });
    await sink(buf.subarray(0, bytesRead));
    done += bytesRead;
  }
}

export interface RebuildOptions {
  /** Aborts the rebuild (xz is stopped, the temp file removed; rejects with `signal.reason`). */
  signal?: AbortSignal;
  /**
   * Told the expected size once miniso.dat is read (undefined when its xz index is unreadable),
   * then the length of every chunk written (for a progress meter).
   */
  progress?: { start(total: number | undefined): void; add(bytes: number): void };
}

/**
 * Rebuilds the minimal ISO described by the full ISO's coreos/miniso.dat into `outPath`,
 * verifying its SHA-256 (see the header comment). `manifest` is `parseLiveIso(fullIsoPath)`.
 */
export async function rebuildMinimalIso(
  fullIsoPath: string,
  manifest: LiveManifest,
  outPath: string,
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  const { signal } = options;
  signal?.throwIfAborted();
  const iso = await openFullIso(fullIsoPath);
  try {
    if (iso.size !== manifest.size) {
      throw new FormatError(
        `rebuilding the minimal ISO from ${fullIsoPath}: the manifest describes a ${manifest.size}-byte image but the file has ${iso.size} bytes`,
        {
          path: fullIsoPath,
        },
      );
    }
    const data = await readMinisoData(iso, manifest);
    await checkPristine(iso, manifest);
    const where = `${MINISO_PATH} of ${fullIsoPath}`;
    const { progress } = options;
    if (progress !== undefined) {
      const packed = xzUncompressedSize(data.xzpacked);
      progress.start(packed === undefined ? undefined : packed + data.entries.reduce((n, e) => n + e.length, 0));
    }
    return await writeAtomically(outPath, (write) =>
      unpackMiniso(
        data,
        iso,
        async (chunk) => {
          signal?.throwIfAborted();
          await write(chunk);
          progress?.add(chunk.length);
        },
        where,
      ),
    );
  } finally {
    await iso.fh.close();
  }
}

/** Runs `produce` into a temp file beside `outPath`, renamed to `outPath` only on success. */
async function writeAtomically<T>(outPath: string, produce: (sink: Sink) => Promise<T>): Promise<T> {
  const tmp = path.join(
    path.dirname(outPath),
    `.${path.basename(outPath)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  let fh: FileHandle | undefined;
  try {
    fh = await open(tmp, 'wx').catch((err: Error) => {
      throw new BootsmithError(
        'internal',
        `creating ${tmp} for the minimal ISO: ${err.message}`,
        { path: tmp },
        { cause: err },
      );
    });
    const handle = fh;
    const result = await produce(async (chunk) => {
      for (let done = 0; done < chunk.length;) {
        const { bytesWritten } = await handle.write(chunk, done, chunk.length - done);
        done += bytesWritten;
      }
    });
    await fh.sync();
    await fh.close();
    fh = undefined;
    await rename(tmp, outPath);
    return result;
  } catch (err) {
    if (fh !== undefined) await fh.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
}
