import { describe, expect, it } from 'vitest';
import { RANGE_CASES, SIZE, type RangeCase } from './test-support/range-cases.js';
import { comparable, parseMultipart, useServeHarness } from './test-support/serve-harness.js';
import { DATA, positionalRep, testRep, type RepOptions, type TestRep } from './test-support/test-representations.js';

// Every case of the planning table (response-plan.test.ts), sent over a real socket through
// serveRepresentation() with both kinds of source: the wire carries exactly the planned status
// and headers and exactly the planned bytes, and the hooks see what they should.

const { mount, send } = useServeHarness();

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function repFor(kind: 'stream' | 'positional', c: RangeCase): TestRep {
  const source = (c.meta.size ?? SIZE) === 0 ? Buffer.alloc(0) : DATA;
  const options: RepOptions = {
    ...(c.meta.lastModified !== undefined ? { lastModified: c.meta.lastModified } : {}),
    ...(c.meta.contentType !== undefined ? { contentType: c.meta.contentType } : {}),
    ...(c.meta.filename !== undefined ? { filename: c.meta.filename } : {}),
    ...(c.meta.cacheControl !== undefined ? { cacheControl: c.meta.cacheControl } : {}),
  };
  return kind === 'stream' ? testRep(source, { ...options, chunkSize: 7000 }) : positionalRep(source, options);
}

describe.each(['stream', 'positional'] as const)('serveRepresentation on the wire, %s source', (kind) => {
  it('uses test data of the planned size', () => {
    expect(DATA.length).toBe(SIZE);
  });

  it.each(RANGE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { path, entry } = mount(repFor(kind, c));
    const res = await send(path, c.request, c.method);
    expect(res.status).toBe(c.status);
    expect(res.complete).toBe(true);
    const wire = comparable(res.headers);
    const expected = lowerCaseNames(c.headers);
    if (c.status === 416) {
      const { 'content-type': type, 'content-length': length, ...rest } = wire;
      expect(rest).toEqual(expected);
      expect(type).toBe('application/json; charset=utf-8');
      expect(length).toBe(String(res.body.length));
      expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({ code: 416 });
    } else if (c.body.length > 1) {
      const { 'content-type': type, 'content-length': length, ...rest } = wire;
      expect(rest).toEqual(expected);
      expect(type).toBe('multipart/byteranges; boundary=*');
      expect(length).toBe(String(res.body.length));
      const parts = parseMultipart(res.body, String(res.headers['content-type']));
      expect(parts.map((p) => [p.start, p.end])).toEqual(c.body);
      for (const part of parts) {
        expect(part.contentType).toBe(c.meta.contentType ?? 'application/octet-stream');
        expect(part.total).toBe(SIZE);
        expect(part.data.equals(DATA.subarray(part.start, part.end + 1))).toBe(true);
      }
    } else {
      expect(wire).toEqual(expected);
      const range = c.body[0];
      const body = range === undefined ? Buffer.alloc(0) : DATA.subarray(range[0], range[1] + 1);
      expect(res.body.equals(body)).toBe(true);
    }
    await Promise.all(entry.done);
    expect(entry.recorded.errors).toEqual([]);
    if (kind === 'stream') expect(entry.rep.opened.map((o) => [o.start, o.end])).toEqual(c.body);
    else expect(entry.rep.opened).toEqual([]);
    if (c.body.length === 0) {
      expect(entry.recorded).toEqual({ bytes: 0, starts: 0, ends: [], errors: [] });
      expect(entry.rep.pulled).toBe(0);
    } else {
      expect(entry.recorded.starts).toBe(1);
      expect(entry.recorded.ends).toEqual([{ outcome: 'complete', error: undefined }]);
      expect(entry.recorded.bytes).toBe(res.body.length);
    }
  });
});
