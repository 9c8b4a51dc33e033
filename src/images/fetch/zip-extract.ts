// Extracting the ISO from a `.zip` image source with node-stream-zip (which checks each
// entry's CRC-32 while streaming): the archive must hold exactly one `*.iso` file; the ISO is
// written to a `.part` file, hashed on the way, and fsynced.
//
// A zip that is not a zip, holds no ISO or several, or fails its CRC is a `never` error: the
// same archive would fail again. It does not verify the ISO's layout or rename anything.
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import StreamZip from 'node-stream-zip';
import { describeError } from '../../errors.js';
import { openPartFile } from '../../fs/part-file.js';
import { HashingFileWriter } from './hashing-writer.js';
import { ImageLoadError } from '../load-failure/load-error.js';

export interface ExtractHooks {
  signal: AbortSignal;
  /** Called once the ISO entry is found, with its uncompressed size; throw to refuse. */
  onStart(size: number, entryName: string): void;
  onBytes(bytes: number): void;
}

export async function extractSingleIso(
  zipPath: string,
  out: string,
  label: string,
  hooks: ExtractHooks,
): Promise<{ sha256: string; size: number }> {
  const zip = new StreamZip.async({ file: zipPath });
  try {
    let entries;
    try {
      entries = Object.values(await zip.entries());
    } catch (err) {
      throw new ImageLoadError(
        'format',
        `${label}: not a readable zip archive: ${describeError(err)}`,
        'never',
        {},
        { cause: err },
      );
    }
    const isos = entries.filter((e) => e.isFile && e.name.toLowerCase().endsWith('.iso'));
    const [entry] = isos;
    if (entry === undefined || isos.length > 1) {
      const names = isos.map((e) => e.name).join(', ');
      throw new ImageLoadError(
        'format',
        `${label}: the zip holds ${isos.length} .iso files${names ? ` (${names})` : ''}; expected exactly one`,
        'never',
        {
          isoCount: isos.length,
        },
      );
    }
    hooks.onStart(entry.size, entry.name);
    const hash = createHash('sha256');
    const handle = await openPartFile(out, { resume: false });
    const writer = new HashingFileWriter(handle, 0, hash, hooks.onBytes);
    try {
      await pipeline(await zip.stream(entry), writer, { signal: hooks.signal });
      await handle.sync();
    } catch (err) {
      if (hooks.signal.aborted) throw hooks.signal.reason;
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('E')) throw err; // a local I/O fault (ENOSPC, ...)
      throw new ImageLoadError(
        'format',
        `${label}: extracting ${entry.name} from the zip: ${describeError(err)}`,
        'never',
        {},
        { cause: err },
      );
    } finally {
      await handle.close();
    }
    return { sha256: hash.digest('hex'), size: writer.position };
  } finally {
    await zip.close().catch(() => undefined);
  }
}
