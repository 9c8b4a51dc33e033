import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { imageErrorHandler } from './error-mapping.js';
import type { Representation } from './representation.js';
import { MAX_RANGES } from './range.js';
import { serveRepresentation, type ServeHooks, type StreamOutcome } from './serve-representation.js';

const execFileAsync = promisify(execFile);

// --- test representation ---------------------------------------------------------------

interface RepOptions {
  etag?: string;
  lastModified?: Date;
  contentType?: string;
  filename?: string;
  cacheControl?: string;
  /** Bytes per pushed chunk. */
  chunkSize?: number;
  /** Fail with an error once this many bytes were pushed by one stream. */
  failAfter?: number;
  /** End cleanly (too early) once this many bytes were pushed by one stream. */
  endAfter?: number;
  /** Throw from stream() instead of returning a stream. */
  throwOnStream?: boolean;
}

interface TestRep extends Representation {
  /** Every stream handed out, in order. */
  opened: { start: number; end: number; stream: Readable }[];
  /** Bytes pulled out of all sources so far. */
  pulled: number;
}

/** Bytes [start, end] of `bytes`, pushed as zero-copy slices of `chunkSize`. */
class SliceStream extends Readable {
  private pos: number;
  private pushed = 0;

  constructor(
    private readonly bytes: Buffer | undefined,
    start: number,
    private readonly endExclusive: number,
    private readonly options: RepOptions,
    private readonly rep: TestRep,
    private readonly filler: Buffer,
  ) {
    super();
    this.pos = start;
  }

  override _read(): void {
    const { failAfter, endAfter } = this.options;
    if (failAfter !== undefined && this.pushed >= failAfter) {
      this.destroy(new Error('disk on fire'));
      return;
    }
    if (this.pos >= this.endExclusive || (endAfter !== undefined && this.pushed >= endAfter)) {
      this.push(null);
      return;
    }
    const n = Math.min(this.options.chunkSize ?? 16 * 1024, this.endExclusive - this.pos);
    const chunk = this.bytes ? this.bytes.subarray(this.pos, this.pos + n) : this.filler.subarray(0, n);
    this.pos += n;
    this.pushed += n;
    this.rep.pulled += n;
    this.push(chunk);
  }
}

/** A representation over `bytes`, or over `size` filler bytes (for huge bodies) when a number. */
function testRep(source: Buffer | number, options: RepOptions = {}): TestRep {
  const bytes = typeof source === 'number' ? undefined : source;
  const size = typeof source === 'number' ? source : source.length;
  const filler = Buffer.alloc(options.chunkSize ?? 16 * 1024, 0x5a);
  const rep: TestRep = {
    size,
    etag: options.etag ?? '"v1-abc"',
    lastModified: options.lastModified ?? LAST_MODIFIED,
    ...(options.contentType !== undefined ? { contentType: options.contentType } : {}),
    ...(options.filename !== undefined ? { filename: options.filename } : {}),
    ...(options.cacheControl !== undefined ? { cacheControl: options.cacheControl } : {}),
    opened: [],
    pulled: 0,
    stream(start: number, end: number): Readable {
      if (!(start >= 0 && start <= end && end < size)) throw new Error(`bad range ${start}-${end} of ${size}`);
      if (options.throwOnStream) throw new Error('cannot open the image');
      const stream = new SliceStream(bytes, start, end + 1, options, rep, filler);
      rep.opened.push({ start, end, stream });
      return stream;
    },
  };
  return rep;
}

// --- server ----------------------------------------------------------------------------

const LAST_MODIFIED = new Date(Date.UTC(2024, 4, 17, 10, 20, 30, 456)); // has milliseconds
const LAST_MODIFIED_HTTP = 'Fri, 17 May 2024 10:20:30 GMT';
const DATA = randomBytes(200_000);

interface Recorded {
  bytes: number;
  starts: number;
  ends: { outcome: StreamOutcome; error: unknown }[];
  errors: unknown[];
}

interface Entry {
  rep: TestRep;
  recorded: Recorded;
  done: Promise<void>[];
}

const entries = new Map<string, Entry>();
let server: Server;
let port: number;
let nextId = 0;

function recorderHooks(recorded: Recorded): ServeHooks {
  return {
    onBytes: (n) => {
      recorded.bytes += n;
    },
    onStreamStart: () => {
      recorded.starts++;
    },
    onStreamEnd: (outcome, error) => {
      recorded.ends.push({ outcome, error });
    },
    onError: (error) => {
      recorded.errors.push(error);
    },
  };
}

/** Registers `rep` under a fresh path. */
function mount(rep: TestRep): { path: string; entry: Entry } {
  const name = `r${nextId++}`;
  const entry: Entry = { rep, recorded: { bytes: 0, starts: 0, ends: [], errors: [] }, done: [] };
  entries.set(name, entry);
  return { path: `/r/${name}`, entry };
}

beforeAll(async () => {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.all('/r/:name', (req, res) => {
    const entry = entries.get(req.params.name);
    if (!entry) {
      res.status(404).end();
      return;
    }
    // fire and forget, as production code does; the promise is kept only for assertions
    entry.done.push(serveRepresentation(req, res, entry.rep, recorderHooks(entry.recorded)));
  });
  app.use(imageErrorHandler(() => {}));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterEach(() => {
  entries.clear();
});

// --- client ----------------------------------------------------------------------------

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The whole message (per its framing) arrived. */
  complete: boolean;
  /** The response errored (e.g. the connection was reset mid-body). */
  errored: boolean;
}

function send(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  agent: http.Agent | false = false,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let responded = false;
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, agent }, (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      let errored = false;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => {
        errored = true;
      });
      res.on('close', () => {
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          complete: res.complete,
          errored,
        });
      });
    });
    req.on('error', (err) => {
      if (!responded) reject(err);
    });
    req.end();
  });
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Headers that must be equal between a GET and the matching HEAD. */
function comparable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const copy: IncomingHttpHeaders = { ...headers };
  delete copy.date;
  delete copy.connection;
  delete copy['keep-alive'];
  if (typeof copy['content-type'] === 'string') {
    copy['content-type'] = copy['content-type'].replace(/boundary=\S+/, 'boundary=*');
  }
  return copy;
}

interface Part {
  contentType: string | undefined;
  contentRange: string | undefined;
  start: number;
  end: number;
  total: number;
  data: Buffer;
}

/** Parses a multipart/byteranges body strictly, using each part's Content-Range for its length. */
function parseMultipart(body: Buffer, contentType: string): Part[] {
  const match = /^multipart\/byteranges; boundary=(\S+)$/.exec(contentType);
  if (!match?.[1]) throw new Error(`not multipart/byteranges: ${contentType}`);
  const delimiter = `--${match[1]}`;
  const parts: Part[] = [];
  let pos = 0;
  const expect = (text: string): void => {
    const got = body.subarray(pos, pos + text.length).toString('latin1');
    if (got !== text) throw new Error(`expected ${JSON.stringify(text)} at ${pos}, got ${JSON.stringify(got)}`);
    pos += text.length;
  };
  expect(`${delimiter}\r\n`);
  for (;;) {
    const headerEnd = body.indexOf('\r\n\r\n', pos, 'latin1');
    if (headerEnd < 0) throw new Error('unterminated part header');
    const fields = new Map<string, string>();
    for (const line of body.subarray(pos, headerEnd).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      fields.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
    }
    pos = headerEnd + 4;
    const contentRange = fields.get('content-range');
    const cr = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange ?? '');
    if (!cr) throw new Error(`bad part Content-Range ${contentRange}`);
    const start = Number(cr[1]);
    const end = Number(cr[2]);
    parts.push({
      contentType: fields.get('content-type'),
      contentRange,
      start,
      end,
      total: Number(cr[3]),
      data: body.subarray(pos, pos + end - start + 1),
    });
    pos += end - start + 1;
    expect(`\r\n${delimiter}`);
    if (body.subarray(pos, pos + 2).toString('latin1') === '--') {
      expect('--\r\n');
      break;
    }
    expect('\r\n');
  }
  if (pos !== body.length) throw new Error(`${body.length - pos} bytes after the close delimiter`);
  return parts;
}

// --- tests -----------------------------------------------------------------------------

describe('serveRepresentation: full responses', () => {
  it('sends the whole representation with every header and an exact Content-Length', async () => {
    const { path, entry } = mount(testRep(DATA, { filename: 'discovery.iso', cacheControl: 'no-store' }));
    const res = await send(path);
    expect(res.status).toBe(200);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers.etag).toBe('"v1-abc"');
    expect(res.headers['last-modified']).toBe(LAST_MODIFIED_HTTP);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toBe('attachment; filename="discovery.iso"');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-length']).toBe(String(DATA.length));
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['content-range']).toBeUndefined();
    expect(res.complete).toBe(true);
    expect(res.body.equals(DATA)).toBe(true);
    await Promise.all(entry.done);
    expect(entry.recorded).toEqual({ bytes: DATA.length, starts: 1, ends: [{ outcome: 'complete', error: undefined }], errors: [] });
  });

  it('uses the representation content type and encodes awkward file names', async () => {
    const { path } = mount(testRep(DATA, { contentType: 'text/plain; charset=utf-8', filename: 'café "x".iso' }));
    const res = await send(path, {}, 'HEAD');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="caf_ _x_.iso"; filename*=UTF-8''caf%C3%A9%20%22x%22.iso`,
    );
  });

  it('answers an empty representation with 200 and Content-Length 0 without opening a stream', async () => {
    const { path, entry } = mount(testRep(Buffer.alloc(0)));
    const res = await send(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe('0');
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.body.length).toBe(0);
    expect(entry.rep.opened).toHaveLength(0);
  });

  it('answers 416 to a Range on an empty representation', async () => {
    const { path } = mount(testRep(Buffer.alloc(0)));
    for (const range of ['bytes=0-', 'bytes=-1', 'bytes=0-0']) {
      const res = await send(path, { Range: range });
      expect(res.status).toBe(416);
      expect(res.headers['content-range']).toBe('bytes */0');
    }
  });

  it('answers other methods with 405', async () => {
    const { path, entry } = mount(testRep(DATA));
    const res = await send(path, {}, 'POST');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.headers['content-length']).toBe('0');
    expect(entry.rep.opened).toHaveLength(0);
  });

  it('keeps a keep-alive connection in sync across many responses', async () => {
    const { path } = mount(testRep(DATA));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let k = 0; k < 20; k++) {
        const start = k * 7919;
        const res = await send(path, { Range: `bytes=${start}-${start + 999}` }, k % 3 === 0 ? 'HEAD' : 'GET', agent);
        expect(res.status).toBe(206);
        if (k % 3 !== 0) expect(res.body.equals(DATA.subarray(start, start + 1000))).toBe(true);
      }
    } finally {
      agent.destroy();
    }
  });
});

describe('serveRepresentation: ranges', () => {
  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=1000-', 1000, DATA.length - 1],
    ['bytes=-500', DATA.length - 500, DATA.length - 1],
    ['bytes=150000-999999999', 150_000, DATA.length - 1],
    ['bytes=-999999999', 0, DATA.length - 1],
    ['bytes=0-', 0, DATA.length - 1],
    ['bytes=199999-199999', 199_999, 199_999],
    ['bytes=10-19,20-29,15-25', 10, 29],
  ])('%s → 206 %i-%i', async (range, start, end) => {
    const { path, entry } = mount(testRep(DATA));
    const res = await send(path, { Range: range });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${DATA.length}`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.body.equals(DATA.subarray(start, end + 1))).toBe(true);
    expect(entry.rep.opened.map(({ start: s, end: e }) => [s, e])).toEqual([[start, end]]);
    await Promise.all(entry.done);
    expect(entry.recorded.bytes).toBe(end - start + 1);
  });

  it('sends several ranges as multipart/byteranges with an exact Content-Length', async () => {
    const { path, entry } = mount(testRep(DATA, { contentType: 'application/x-iso9660-image', chunkSize: 1000 }));
    const res = await send(path, { Range: 'bytes=0-9, 50000-70000,-100,  199000-199049' });
    expect(res.status).toBe(206);
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['content-range']).toBeUndefined();
    expect(res.headers['content-length']).toBe(String(res.body.length));
    expect(res.complete).toBe(true);
    const parts = parseMultipart(res.body, String(res.headers['content-type']));
    expect(parts.map((p) => [p.start, p.end])).toEqual([
      [0, 9],
      [50_000, 70_000],
      [DATA.length - 100, DATA.length - 1],
      [199_000, 199_049],
    ]);
    for (const part of parts) {
      expect(part.contentType).toBe('application/x-iso9660-image');
      expect(part.total).toBe(DATA.length);
      expect(part.data.equals(DATA.subarray(part.start, part.end + 1))).toBe(true);
    }
    await Promise.all(entry.done);
    expect(entry.recorded.bytes).toBe(res.body.length);
    expect(entry.recorded.ends).toEqual([{ outcome: 'complete', error: undefined }]);
    expect(entry.rep.opened.every((o) => o.stream.destroyed || o.stream.readableEnded)).toBe(true);
  });

  it('coalesces overlapping ranges and keeps request order for the rest', async () => {
    const { path } = mount(testRep(DATA));
    const res = await send(path, { Range: 'bytes=100000-100009,0-9,5-14,10-20' });
    const parts = parseMultipart(res.body, String(res.headers['content-type']));
    expect(parts.map((p) => p.contentRange)).toEqual([`bytes 100000-100009/${DATA.length}`, `bytes 0-20/${DATA.length}`]);
    expect(parts[1]?.data.equals(DATA.subarray(0, 21))).toBe(true);
  });

  it('never sends more than the representation however the ranges overlap', async () => {
    const { path } = mount(testRep(DATA));
    const header = 'bytes=' + Array.from({ length: MAX_RANGES }, () => '0-').join(',');
    const res = await send(path, { Range: header });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-${DATA.length - 1}/${DATA.length}`);
    expect(res.body.length).toBe(DATA.length);
  });

  it(`serves ${MAX_RANGES} ranges as parts and ignores a Range with more`, async () => {
    const { path } = mount(testRep(DATA));
    const specs = (n: number): string => Array.from({ length: n }, (_, k) => `${k * 100}-${k * 100 + 9}`).join(',');
    const atCap = await send(path, { Range: `bytes=${specs(MAX_RANGES)}` });
    expect(atCap.status).toBe(206);
    const parts = parseMultipart(atCap.body, String(atCap.headers['content-type']));
    expect(parts).toHaveLength(MAX_RANGES);
    for (const part of parts) expect(part.data.equals(DATA.subarray(part.start, part.end + 1))).toBe(true);

    const over = await send(path, { Range: `bytes=${specs(MAX_RANGES + 1)}` });
    expect(over.status).toBe(200);
    expect(over.body.equals(DATA)).toBe(true);
  });

  it('drops unsatisfiable specs when others are satisfiable', async () => {
    const { path } = mount(testRep(DATA));
    const res = await send(path, { Range: 'bytes=900000-,0-9,-0' });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-9/${DATA.length}`);
    expect(res.body.equals(DATA.subarray(0, 10))).toBe(true);
  });

  it('answers an unsatisfiable Range with 416 and Content-Range: bytes */size', async () => {
    const { path, entry } = mount(testRep(DATA));
    for (const range of [`bytes=${DATA.length}-`, 'bytes=999999-9999999', 'bytes=-0', `bytes=${DATA.length}-,-0`]) {
      const res = await send(path, { Range: range });
      expect(res.status).toBe(416);
      expect(res.headers['content-range']).toBe(`bytes */${DATA.length}`);
      expect(res.headers['transfer-encoding']).toBeUndefined();
      expect(res.headers['content-length']).toBe(String(res.body.length));
      expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({ code: 416 });
    }
    expect(entry.rep.opened).toHaveLength(0);
    expect(entry.recorded.errors).toEqual([]);
    expect(entry.recorded.starts).toBe(0);
  });

  it.each(['bytes=abc', 'bytes=5-1', 'bytes=0-1;2', 'bytes 0-1', 'bytes=', 'items=0-9', 'bytes=0-1, bytes=4-5'])(
    'ignores the malformed or foreign Range %j and sends 200',
    async (range) => {
      const { path } = mount(testRep(DATA));
      const res = await send(path, { Range: range });
      expect(res.status).toBe(200);
      expect(res.headers['content-range']).toBeUndefined();
      expect(res.headers['content-length']).toBe(String(DATA.length));
      expect(res.body.equals(DATA)).toBe(true);
    },
  );
});

describe('serveRepresentation: If-Range', () => {
  it.each([
    ['the matching strong ETag', '"v1-abc"', 206],
    ['another ETag', '"v0-old"', 200],
    ['the weak form of the ETag', 'W/"v1-abc"', 200],
    ['the exact Last-Modified date', LAST_MODIFIED_HTTP, 206],
    ['a later date', 'Fri, 17 May 2024 10:20:31 GMT', 200],
    ['an earlier date', 'Fri, 17 May 2024 10:20:29 GMT', 200],
    ['garbage', 'not a validator', 200],
  ])('with %s (%s) answers %i', async (_what, ifRange, status) => {
    const { path } = mount(testRep(DATA));
    const res = await send(path, { Range: 'bytes=10-19', 'If-Range': ifRange });
    expect(res.status).toBe(status);
    expect(res.body.equals(status === 206 ? DATA.subarray(10, 20) : DATA)).toBe(true);
  });

  it('ignores an unsatisfiable Range when If-Range does not match', async () => {
    const { path } = mount(testRep(DATA));
    const res = await send(path, { Range: 'bytes=999999-', 'If-Range': '"v0-old"' });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(DATA.length);
  });

  it('is ignored without a Range', async () => {
    const { path } = mount(testRep(DATA));
    const res = await send(path, { 'If-Range': '"v0-old"' });
    expect(res.status).toBe(200);
  });
});

describe('serveRepresentation: conditionals', () => {
  it.each([
    ['the exact ETag', '"v1-abc"'],
    ['*', '*'],
    ['a list containing the ETag', '"zzz", "v1-abc" , "yyy"'],
    ['the weak form (weak comparison)', 'W/"v1-abc"'],
  ])('If-None-Match with %s → 304 without a body', async (_what, value) => {
    const { path, entry } = mount(testRep(DATA, { cacheControl: 'max-age=60', filename: 'x.iso' }));
    const res = await send(path, { 'If-None-Match': value, Range: 'bytes=0-9' });
    expect(res.status).toBe(304);
    expect(res.headers.etag).toBe('"v1-abc"');
    expect(res.headers['last-modified']).toBe(LAST_MODIFIED_HTTP);
    expect(res.headers['cache-control']).toBe('max-age=60');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.headers['content-range']).toBeUndefined();
    expect(res.body.length).toBe(0);
    expect(entry.rep.opened).toHaveLength(0);
  });

  it('If-None-Match without a match → 200, and If-Modified-Since is then not consulted', async () => {
    const { path } = mount(testRep(DATA));
    const res = await send(path, { 'If-None-Match': '"other", W/"v2"', 'If-Modified-Since': 'Fri, 01 Jan 2100 00:00:00 GMT' });
    expect(res.status).toBe(200);
    expect(res.body.equals(DATA)).toBe(true);
  });

  it.each([
    [LAST_MODIFIED_HTTP, 304],
    ['Sat, 18 May 2024 00:00:00 GMT', 304],
    ['Fri, 17 May 2024 10:20:29 GMT', 200],
    ['not a date', 200],
  ])('If-Modified-Since %s → %i', async (value, status) => {
    const { path } = mount(testRep(DATA));
    const res = await send(path, { 'If-Modified-Since': value });
    expect(res.status).toBe(status);
  });

  it.each([
    ['another ETag', '"other"', 412],
    ['the weak form (strong comparison)', 'W/"v1-abc"', 412],
    ['garbage', 'v1-abc', 412],
    ['the ETag', '"v1-abc"', 200],
    ['a list containing the ETag', '"a", "v1-abc"', 200],
    ['*', '*', 200],
  ])('If-Match with %s (%s) → %i', async (_what, value, status) => {
    const { path, entry } = mount(testRep(DATA));
    const res = await send(path, { 'If-Match': value });
    expect(res.status).toBe(status);
    expect(res.headers['transfer-encoding']).toBeUndefined();
    if (status === 412) {
      expect(res.body.length).toBe(0);
      expect(res.headers['content-length']).toBe('0');
      expect(entry.rep.opened).toHaveLength(0);
    }
  });

  it.each([
    ['Fri, 17 May 2024 10:20:29 GMT', 412],
    [LAST_MODIFIED_HTTP, 200],
    ['Fri, 17 May 2024 10:20:31 GMT', 200],
    ['garbage', 200],
  ])('If-Unmodified-Since %s → %i', async (value, status) => {
    const { path } = mount(testRep(DATA));
    const res = await send(path, { 'If-Unmodified-Since': value });
    expect(res.status).toBe(status);
  });

  it('evaluates If-Match before If-None-Match and If-Unmodified-Since only without If-Match', async () => {
    const { path } = mount(testRep(DATA));
    expect((await send(path, { 'If-Match': '"other"', 'If-None-Match': '"v1-abc"' })).status).toBe(412);
    expect((await send(path, { 'If-Match': '"v1-abc"', 'If-None-Match': '"v1-abc"' })).status).toBe(304);
    expect(
      (await send(path, { 'If-Match': '"v1-abc"', 'If-Unmodified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).status,
    ).toBe(200);
    // preconditions come before Range: a stale precondition wins over an unsatisfiable range
    expect((await send(path, { 'If-Match': '"other"', Range: 'bytes=999999-' })).status).toBe(412);
  });
});

describe('serveRepresentation: HEAD', () => {
  it.each([
    ['no conditions', {}],
    ['a single range', { Range: 'bytes=5-500' }],
    ['a suffix range', { Range: 'bytes=-77' }],
    ['several ranges', { Range: 'bytes=0-1,10-20,-5' }],
    ['an unsatisfiable range', { Range: 'bytes=999999-' }],
    ['a malformed range', { Range: 'bytes=oops' }],
    ['a stale If-Range', { Range: 'bytes=0-9', 'If-Range': '"old"' }],
    ['If-None-Match', { 'If-None-Match': '"v1-abc"' }],
    ['If-Match failing', { 'If-Match': '"nope"' }],
  ] satisfies [string, Record<string, string>][])('with %s sends the GET headers and no body', async (_what, headers) => {
    const { path, entry } = mount(testRep(DATA, { filename: 'a.iso', cacheControl: 'no-cache' }));
    const headRes = await send(path, headers, 'HEAD');
    expect(entry.rep.opened).toHaveLength(0);
    expect(entry.recorded.starts).toBe(0);
    const getRes = await send(path, headers, 'GET');
    expect(headRes.status).toBe(getRes.status);
    expect(comparable(headRes.headers)).toEqual(comparable(getRes.headers));
    expect(headRes.body.length).toBe(0);
    expect(headRes.headers['transfer-encoding']).toBeUndefined();
  });
});

describe('serveRepresentation: streaming', () => {
  it('respects backpressure from a client that stops reading', async () => {
    const { path, entry } = mount(testRep(4 * 1024 ** 3, { chunkSize: 64 * 1024 }));
    let stalled: http.ClientRequest | undefined;
    await new Promise<void>((resolve, reject) => {
      stalled = http.request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        res.pause(); // read nothing
        resolve();
      });
      stalled.on('error', () => {});
      stalled.on('response', () => {}).on('error', reject);
      stalled.end();
    });
    await new Promise((r) => setTimeout(r, 300));
    const pulledWhileStalled = entry.rep.pulled;
    await new Promise((r) => setTimeout(r, 200));
    // only socket and stream buffers worth of data, and no longer growing
    expect(pulledWhileStalled).toBeLessThan(64 * 1024 ** 2);
    expect(entry.rep.pulled).toBe(pulledWhileStalled);
    stalled?.destroy();
    await waitFor(() => entry.recorded.ends.length === 1, 'stream end');
    expect(entry.recorded.ends[0]?.outcome).toBe('client-aborted');
    expect(entry.rep.opened[0]?.stream.destroyed).toBe(true);
  });

  it('destroys the source when the client aborts mid-stream and keeps serving', async () => {
    const { path, entry } = mount(testRep(1024 ** 3, { chunkSize: 64 * 1024 }));
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > 1024 * 1024) {
            req.destroy();
            resolve();
          }
        });
        res.on('error', () => {});
      });
      req.on('error', (err) => {
        if (!req.destroyed) reject(err);
      });
      req.end();
    });
    await waitFor(() => entry.recorded.ends.length === 1, 'stream end');
    expect(entry.recorded.starts).toBe(1);
    expect(entry.recorded.ends[0]?.outcome).toBe('client-aborted');
    expect(entry.recorded.errors).toEqual([]);
    expect(entry.rep.opened).toHaveLength(1);
    expect(entry.rep.opened[0]?.stream.destroyed).toBe(true);
    await Promise.all(entry.done); // settles
    expect(entry.rep.pulled).toBeLessThan(1024 ** 3);

    const { path: other } = mount(testRep(DATA));
    const res = await send(other, { Range: 'bytes=0-9' });
    expect(res.body.equals(DATA.subarray(0, 10))).toBe(true);
  });

  it('destroys the source when the client aborts during a multipart body', async () => {
    const { path, entry } = mount(testRep(1024 ** 3, { chunkSize: 64 * 1024 }));
    await new Promise<void>((resolve) => {
      const req = http.request(
        { host: '127.0.0.1', port, path, agent: false, headers: { Range: 'bytes=0-9,100-200000000,300000000-' } },
        (res) => {
          let received = 0;
          res.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > 1024 * 1024) {
              req.destroy();
              resolve();
            }
          });
          res.on('error', () => {});
        },
      );
      req.on('error', () => {});
      req.end();
    });
    await waitFor(() => entry.recorded.ends.length === 1, 'stream end');
    expect(entry.recorded.ends[0]?.outcome).toBe('client-aborted');
    expect(entry.rep.opened.length).toBe(2); // never opened the third part
    expect(entry.rep.opened.every((o) => o.stream.destroyed)).toBe(true);
  });

  it('cuts the connection when the source fails mid-stream: never a clean short response', async () => {
    const { path, entry } = mount(testRep(DATA, { failAfter: 64 * 1024 }));
    const res = await send(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(DATA.length));
    expect(res.complete).toBe(false);
    expect(res.errored).toBe(true);
    expect(res.body.length).toBeLessThan(DATA.length);
    expect(res.body.equals(DATA.subarray(0, res.body.length))).toBe(true);
    await Promise.all(entry.done);
    expect(entry.recorded.ends).toHaveLength(1);
    expect(entry.recorded.ends[0]?.outcome).toBe('source-error');
    expect(String(entry.recorded.ends[0]?.error)).toContain('disk on fire');
    expect(entry.recorded.errors).toHaveLength(1);
  });

  it('cuts the connection when a multipart source fails', async () => {
    const { path, entry } = mount(testRep(DATA, { failAfter: 5000, chunkSize: 1000 }));
    const res = await send(path, { Range: 'bytes=0-99,1000-99999' });
    expect(res.status).toBe(206);
    expect(res.complete).toBe(false);
    expect(res.body.length).toBeLessThan(Number(res.headers['content-length']));
    await Promise.all(entry.done);
    expect(entry.recorded.ends[0]?.outcome).toBe('source-error');
  });

  it('cuts the connection when the source ends early without an error', async () => {
    const { path, entry } = mount(testRep(DATA, { endAfter: 10_000, chunkSize: 1000 }));
    const res = await send(path, { Range: 'bytes=0-49999' });
    expect(res.status).toBe(206);
    expect(res.complete).toBe(false);
    expect(res.body.length).toBeLessThanOrEqual(10_000);
    await Promise.all(entry.done);
    expect(entry.recorded.ends[0]?.outcome).toBe('source-error');
    expect(String(entry.recorded.errors[0])).toContain('ended after 10000 of 50000 bytes');
  });

  it('answers 500 through the error mapping when rep.stream() throws before any byte is sent', async () => {
    const { path, entry } = mount(testRep(DATA, { throwOnStream: true }));
    const res = await send(path, { Range: 'bytes=0-9' });
    expect(res.status).toBe(500);
    expect(res.headers['content-range']).toBeUndefined();
    expect(res.headers.etag).toBeUndefined();
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ code: 500, message: 'internal server error' });
    expect(entry.recorded.errors).toHaveLength(1);
    expect(entry.recorded.starts).toBe(0);
  });
});

const CURL = findCurl();

function findCurl(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'curl'))) return join(dir, 'curl');
  }
  return undefined;
}

/** Runs curl; returns the response headers it dumped (status line first). */
async function curl(args: string[]): Promise<{ headers: string; stdout: Buffer }> {
  const dir = await mkdtemp(join(tmpdir(), 'range-curl-'));
  try {
    const headerFile = join(dir, 'headers');
    const { stdout } = await execFileAsync(CURL as string, ['-s', '-S', '-D', headerFile, ...args], {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    return { headers: await readFile(headerFile, 'latin1'), stdout };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function headerValue(dump: string, name: string): string | undefined {
  for (const line of dump.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return undefined;
}

describe.skipIf(CURL === undefined)('serveRepresentation with curl', () => {
  it('downloads the whole representation', async () => {
    const { path } = mount(testRep(DATA));
    const { headers, stdout } = await curl([`http://127.0.0.1:${port}${path}`]);
    expect(headers).toMatch(/^HTTP\/1\.1 200 /);
    expect(headerValue(headers, 'transfer-encoding')).toBeUndefined();
    expect(stdout.equals(DATA)).toBe(true);
  });

  it('fetches a single range with -r', async () => {
    const { path } = mount(testRep(DATA));
    const { headers, stdout } = await curl(['-r', '1000-1999', `http://127.0.0.1:${port}${path}`]);
    expect(headers).toMatch(/^HTTP\/1\.1 206 /);
    expect(headerValue(headers, 'content-range')).toBe(`bytes 1000-1999/${DATA.length}`);
    expect(stdout.equals(DATA.subarray(1000, 2000))).toBe(true);
  });

  it('fetches several ranges as a multipart body', async () => {
    const { path } = mount(testRep(DATA));
    const { headers, stdout } = await curl(['-r', '0-9,100-109,-20', `http://127.0.0.1:${port}${path}`]);
    expect(headers).toMatch(/^HTTP\/1\.1 206 /);
    expect(headerValue(headers, 'content-length')).toBe(String(stdout.length));
    const parts = parseMultipart(stdout, headerValue(headers, 'content-type') ?? '');
    expect(parts.map((p) => [p.start, p.end])).toEqual([
      [0, 9],
      [100, 109],
      [DATA.length - 20, DATA.length - 1],
    ]);
    for (const part of parts) expect(part.data.equals(DATA.subarray(part.start, part.end + 1))).toBe(true);
  });

  it('answers curl -I like the GET', async () => {
    const { path } = mount(testRep(DATA, { filename: 'discovery.iso' }));
    const { headers } = await curl(['-I', `http://127.0.0.1:${port}${path}`]);
    expect(headers).toMatch(/^HTTP\/1\.1 200 /);
    expect(headerValue(headers, 'content-length')).toBe(String(DATA.length));
    expect(headerValue(headers, 'accept-ranges')).toBe('bytes');
    expect(headerValue(headers, 'content-disposition')).toBe('attachment; filename="discovery.iso"');
  });

  it('resumes an interrupted download with -C -', async () => {
    const { path } = mount(testRep(DATA));
    const dir = await mkdtemp(join(tmpdir(), 'range-resume-'));
    try {
      const file = join(dir, 'partial.iso');
      await writeFile(file, DATA.subarray(0, 12_345));
      const { headers } = await curl(['-C', '-', '-o', file, `http://127.0.0.1:${port}${path}`]);
      expect(headers).toMatch(/^HTTP\/1\.1 206 /);
      expect((await readFile(file)).equals(DATA)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
