// Layer decompression by magic number, on data made by the gzip and zstd tools: the right bytes
// out, in small chunks; corrupt, truncated, mislabelled and oversize inputs refused as FormatErrors.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../errors.js';
import { toolWorks, unavailable } from '../../../../test/support/requirements.js';
import { decodeLayer, sniffCompression } from './layer-decoder.js';
import { gzip, zstd } from './test-support/oci-images.js';

const data = Buffer.concat(Array.from({ length: 64 }, (_, i) => Buffer.alloc(4096, i)));

function source(bytes: Buffer, chunk = 1000): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
    })(),
  );
}

async function decode(bytes: Buffer, mediaType = 'application/octet-stream', max = 10 * 1024 * 1024): Promise<Buffer> {
  const { stream } = await decodeLayer(source(bytes), mediaType, max, 'layer L');
  const parts: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) parts.push(c);
  return Buffer.concat(parts);
}

describe.skipIf(unavailable({ gzip: toolWorks('gzip', ['--version']), zstd: toolWorks('zstd', ['--version']) }))(
  'decodeLayer',
  () => {
    it.each([
      ['gzip', () => gzip(data), 'application/vnd.oci.image.layer.v1.tar+gzip'],
      ['zstd', () => zstd(data), 'application/vnd.oci.image.layer.v1.tar+zstd'],
      ['none', () => data, 'application/vnd.oci.image.layer.v1.tar'],
      [
        'gzip (two members)',
        () => Buffer.concat([gzip(data.subarray(0, 1000)), gzip(data.subarray(1000))]),
        'application/vnd.docker.image.rootfs.diff.tar.gzip',
      ],
    ])('decodes %s', async (name, make, mediaType) => {
      const bytes = make();
      expect(sniffCompression(bytes)).toBe(name.split(' ')[0]);
      expect((await decode(bytes, mediaType)).equals(data)).toBe(true);
    });

    it.each([
      [
        'corrupt gzip',
        () => {
          const b = Buffer.from(gzip(data));
          b[100] = b[100]! ^ 0xff;
          return b;
        },
        /layer L: corrupt gzip data/,
      ],
      [
        'truncated gzip',
        () => gzip(data).subarray(0, gzip(data).length - 20),
        /unexpected end of file|truncated|corrupt gzip/,
      ],
      [
        'corrupt zstd',
        () => {
          const b = Buffer.from(zstd(data));
          b.fill(0xee, 8, 40);
          return b;
        },
        /layer L: corrupt or unsupported zstd data/,
      ],
      [
        'truncated zstd',
        () => zstd(data).subarray(0, zstd(data).length - 10),
        /layer L: (the zstd stream is truncated|corrupt or unsupported zstd)/,
      ],
    ])('refuses %s', async (_name, make, reason) => {
      await expect(decode(make())).rejects.toThrow(reason);
    });

    it('keeps every byte of an input shorter than the sniffed prefix', async () => {
      expect((await decode(Buffer.from('ab'))).toString()).toBe('ab');
      expect((await decode(Buffer.alloc(0))).length).toBe(0);
    });

    it('refuses a layer declared compressed whose bytes are not', async () => {
      await expect(decode(data, 'application/vnd.oci.image.layer.v1.tar+gzip')).rejects.toThrow(
        'layer L: the layer is declared application/vnd.oci.image.layer.v1.tar+gzip but its bytes are not compressed',
      );
    });

    it('stops a decompression bomb at the limit', async () => {
      const bomb = gzip(Buffer.alloc(50 * 1024 * 1024));
      expect(bomb.length).toBeLessThan(100 * 1024);
      const err = await decode(bomb, 'application/octet-stream', 1024 * 1024).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FormatError);
      expect((err as Error).message).toBe('layer L: the layer expands to more than 1048576 bytes');
    });
  },
);
