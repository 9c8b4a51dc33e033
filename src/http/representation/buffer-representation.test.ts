// bufferRepresentation: a small in-memory body as the range layer's Representation — its size,
// a strong ETag derived from the bytes (or the one given), the optional fields only when given,
// and every inclusive range streamed exactly.
import { describe, expect, it } from 'vitest';

import { bufferRepresentation } from './buffer-representation.js';

const BYTES = Buffer.from('0123456789');
const MODIFIED = new Date('2026-01-01T00:00:00Z');

async function read(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(parts).toString();
}

describe('bufferRepresentation', () => {
  it('describes the bytes: size, a strong ETag of 32 base64url characters, the date; nothing optional unless given', () => {
    const r = bufferRepresentation(BYTES, { lastModified: MODIFIED });
    expect(r.size).toBe(10);
    expect(r.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(r.lastModified).toBe(MODIFIED);
    expect('filename' in r || 'contentType' in r || 'cacheControl' in r).toBe(false);
  });

  it('gives the same ETag for the same bytes and another for other bytes; a given ETag wins', () => {
    const etag = (b: Buffer, given?: string) =>
      bufferRepresentation(b, { lastModified: MODIFIED, ...(given ? { etag: given } : {}) }).etag;
    expect(etag(Buffer.from(BYTES))).toBe(etag(BYTES));
    expect(etag(Buffer.from('0123456780'))).not.toBe(etag(BYTES));
    expect(etag(BYTES, '"v1"')).toBe('"v1"');
  });

  it('carries a file name and content type when given', () => {
    const r = bufferRepresentation(BYTES, { lastModified: MODIFIED, filename: 'x.ipxe', contentType: 'text/plain' });
    expect([r.filename, r.contentType]).toEqual(['x.ipxe', 'text/plain']);
  });

  it.each<[number, number, string]>([
    [0, 9, '0123456789'],
    [0, 0, '0'],
    [9, 9, '9'],
    [3, 6, '3456'],
  ])('streams bytes %d-%d', async (start, end, expected) => {
    expect(await read(bufferRepresentation(BYTES, { lastModified: MODIFIED }).stream(start, end))).toBe(expected);
  });
});
