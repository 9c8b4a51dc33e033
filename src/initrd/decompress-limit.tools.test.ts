// The decompressed-size limit of the initrd readers: a small compressed archive that expands past
// the caller's limit is refused with one FormatError naming the limit, in every format, and
// decoding stops there (xz is killed, zlib and fzstd stop); within the limit nothing changes.
import { describe, expect, it } from 'vitest';

import { FormatError } from '../errors.js';
import { HAVE_XZ } from '../../test/support/probes.js';
import { toolWorks, unavailable } from '../../test/support/requirements.js';
import { decodeStream } from './compression.js';
import { writeCpio } from './cpio.js';
import { readEmbedArea } from './embed-archive.js';
import { gzipEncode } from './gzip.js';
import { readInitrd } from './initrd.js';
import { tool } from './test-support/tools.js';
import { xzEncode } from './xz.js';

const HAVE_ZSTD = toolWorks('zstd', ['--version']);
/** 8 MiB of zeros: compresses to a few KiB in every format. */
const BOMB = Buffer.alloc(8 * 1024 * 1024);
const LIMIT = 1024 * 1024;

describe.skipIf(unavailable({ xz: HAVE_XZ, zstd: HAVE_ZSTD }))('decompressed-size limit', () => {
  const encoders: [string, () => Promise<Buffer>][] = [
    ['gzip', () => Promise.resolve(gzipEncode(BOMB))],
    ['xz', () => xzEncode(BOMB)],
    ['zstd', () => Promise.resolve(tool('zstd', ['-q', '-19', '-c'], { input: BOMB }).stdout)],
  ];

  it.each(encoders)('%s: past the limit is a FormatError naming it; within it decodes as before', async (_, encode) => {
    const compressed = await encode();
    expect(compressed.length).toBeLessThan(LIMIT);
    const refused = await decodeStream(compressed, LIMIT).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(FormatError);
    expect((refused as Error).message).toBe(`compressed data expands to more than the ${LIMIT}-byte limit`);
    expect((await decodeStream(compressed, BOMB.length)).data.equals(BOMB)).toBe(true);
    expect((await decodeStream(compressed)).data.length).toBe(BOMB.length);
  });

  it('the limit covers all archives of an initrd together, and readEmbedArea passes it on', async () => {
    const half = await xzEncode(writeCpio([{ path: 'a', data: Buffer.alloc(LIMIT / 2 + 1024) }]));
    const two = Buffer.concat([half, Buffer.alloc((4 - (half.length % 4)) % 4), half]);
    expect(await readInitrd(two, 2 * LIMIT)).toHaveLength(2);
    await expect(readInitrd(two, LIMIT)).rejects.toThrow(/more than the 1048576-byte limit/);
    const config = gzipEncode(writeCpio([{ path: 'config.ign', data: BOMB }]));
    await expect(readEmbedArea(config, LIMIT)).rejects.toThrow(FormatError);
    expect((await readEmbedArea(config)).ignition?.length).toBe(BOMB.length);
  });
});
