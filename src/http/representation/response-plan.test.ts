import type { OutgoingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { RangeNotSatisfiableError } from '../../errors.js';
import { planResponse, type RepresentationMeta, type ResponsePlan } from './response-plan.js';
import { ETAG, HEAD_CASES, LAST_MODIFIED, RANGE_CASES, SIZE, type MetaOptions } from './test-support/range-cases.js';

const BOUNDARY = 'fixed-boundary-0123456789';

function meta(options: MetaOptions): RepresentationMeta {
  return {
    size: options.size ?? SIZE,
    etag: ETAG,
    lastModified: options.lastModified ?? LAST_MODIFIED,
    ...(options.contentType !== undefined ? { contentType: options.contentType } : {}),
    ...(options.filename !== undefined ? { filename: options.filename } : {}),
    ...(options.cacheControl !== undefined ? { cacheControl: options.cacheControl } : {}),
  };
}

/** Request headers as Node presents them: lower-case names. */
function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function plan(method: string, request: Record<string, string>, options: MetaOptions = {}): ResponsePlan {
  return planResponse(method, lower(request), meta(options), () => BOUNDARY);
}

describe('planResponse: table', () => {
  it.each(RANGE_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const p = plan(c.method, c.request, c.meta);
    expect(p.status).toBe(c.status);
    const ranges = p.segments.map((s) => [s.start, s.end]);
    if (c.body.length > 1) {
      const contentType = c.meta.contentType ?? 'application/octet-stream';
      const { 'Content-Type': type, 'Content-Length': length, ...rest } = p.headers;
      expect(rest).toEqual(c.headers);
      expect(type).toBe(`multipart/byteranges; boundary=${BOUNDARY}`);
      expect(ranges).toEqual(c.body);
      // every part: delimiter, its own Content-Type and Content-Range, a blank line
      p.segments.forEach((s, k) => {
        expect(s.prefix).toBe(
          `${k === 0 ? '' : '\r\n'}--${BOUNDARY}\r\nContent-Type: ${contentType}\r\n` +
            `Content-Range: bytes ${s.start}-${s.end}/${SIZE}\r\n\r\n`,
        );
      });
      expect(p.trailer).toBe(`\r\n--${BOUNDARY}--\r\n`);
      let total = (p.trailer ?? '').length;
      for (const s of p.segments) total += (s.prefix ?? '').length + s.end - s.start + 1;
      expect(length).toBe(String(total));
    } else {
      expect(p.headers).toEqual(c.headers);
      expect(Object.keys(p.headers)).toEqual(Object.keys(c.headers));
      expect(ranges).toEqual(c.body);
      expect(p.segments.every((s) => s.prefix === undefined)).toBe(true);
      expect(p.trailer).toBeUndefined();
    }
    if (c.status === 416) {
      expect(p.error).toBeInstanceOf(RangeNotSatisfiableError);
      expect(p.error?.size).toBe(c.meta.size ?? SIZE);
    } else {
      expect(p.error).toBeUndefined();
    }
  });

  it('writes a small multipart body exactly (independently spelled out)', () => {
    const p = plan('GET', { Range: 'bytes=0-1,10-12' }, { size: 100, contentType: 'x/y' });
    const data = Buffer.from(Array.from({ length: 100 }, (_, k) => k));
    const body = Buffer.concat([
      ...p.segments.flatMap((s) => [Buffer.from(s.prefix ?? '', 'latin1'), data.subarray(s.start, s.end + 1)]),
      Buffer.from(p.trailer ?? '', 'latin1'),
    ]);
    const b = BOUNDARY;
    const expected = Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Type: x/y\r\nContent-Range: bytes 0-1/100\r\n\r\n`, 'latin1'),
      Buffer.from([0, 1]),
      Buffer.from(`\r\n--${b}\r\nContent-Type: x/y\r\nContent-Range: bytes 10-12/100\r\n\r\n`, 'latin1'),
      Buffer.from([10, 11, 12]),
      Buffer.from(`\r\n--${b}--\r\n`, 'latin1'),
    ]);
    expect(body.equals(expected)).toBe(true);
    expect(p.headers['Content-Length']).toBe(String(expected.length));
  });

  it('makes a fresh boundary per multipart response by default', () => {
    const a = planResponse('GET', { range: 'bytes=0-1,5-6' }, meta({}));
    const b = planResponse('GET', { range: 'bytes=0-1,5-6' }, meta({}));
    expect(a.headers['Content-Type']).toMatch(/^multipart\/byteranges; boundary=[0-9a-f-]{36}$/);
    expect(a.headers['Content-Type']).not.toBe(b.headers['Content-Type']);
  });

  it('ignores an If-Range given as an array (never valid: Node joins repeated lines)', () => {
    const p = planResponse('GET', { range: 'bytes=0-9', 'if-range': [ETAG, ETAG] as unknown as string }, meta({}));
    expect(p.status).toBe(200);
  });
});

describe('planResponse: HEAD', () => {
  const variants: [string, MetaOptions][] = [
    ['a plain representation', {}],
    ['a named, cache-controlled representation', { filename: 'a.iso', cacheControl: 'no-cache' }],
  ];
  for (const [what, options] of variants) {
    it.each(HEAD_CASES)(`of ${what} with %s: the GET's status and headers, no body`, (_what, request) => {
      const get = plan('GET', request, options);
      const head = plan('HEAD', request, options);
      expect(head.status).toBe(get.status);
      expect(head.headers).toEqual(get.headers);
      expect(Object.keys(head.headers)).toEqual(Object.keys(get.headers));
      expect(head.segments).toEqual([]);
      expect(head.trailer).toBeUndefined();
      expect(head.error?.message).toBe(get.error?.message);
    });
  }

  it('has a Content-Length on every planned answer except 304', () => {
    for (const c of RANGE_CASES) {
      const headers: OutgoingHttpHeaders = plan(c.method, c.request, c.meta).headers;
      if (c.status === 304 || c.status === 416) expect(headers['Content-Length'], c.name).toBeUndefined();
      else expect(headers['Content-Length'], c.name).toMatch(/^\d+$/);
    }
  });
});

describe('planResponse: header strings derived once per representation object', () => {
  it('follows the fields of a reused object when they change (never a stale Last-Modified or filename)', () => {
    const rep: RepresentationMeta = { size: SIZE, etag: ETAG, lastModified: LAST_MODIFIED, filename: 'a.iso' };
    const first = planResponse('GET', {}, rep);
    expect(first.headers['Content-Disposition']).toBe('attachment; filename="a.iso"');
    expect(first.headers['Last-Modified']).toBe(LAST_MODIFIED.toUTCString());
    // the same object again: the same strings
    expect(planResponse('GET', {}, rep).headers).toEqual(first.headers);

    const later = new Date(LAST_MODIFIED.getTime() + 86_400_000);
    rep.lastModified = later;
    rep.filename = 'b €.iso';
    const second = planResponse('HEAD', {}, rep);
    expect(second.headers['Last-Modified']).toBe(later.toUTCString());
    expect(second.headers['Content-Disposition']).toBe(
      `attachment; filename="b _.iso"; filename*=UTF-8''b%20%E2%82%AC.iso`,
    );
    // conditionals compare against the new date too
    expect(planResponse('GET', { 'if-modified-since': later.toUTCString() }, rep).status).toBe(304);
    expect(planResponse('GET', { 'if-modified-since': LAST_MODIFIED.toUTCString() }, rep).status).toBe(200);

    rep.lastModified = new Date(Number.NaN);
    delete rep.filename;
    const third = planResponse('GET', {}, rep);
    expect(third.headers['Last-Modified']).toBeUndefined();
    expect(third.headers['Content-Disposition']).toBeUndefined();
  });
});
