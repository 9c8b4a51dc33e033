import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { LAST_MODIFIED_HTTP, SIZE } from './test-support/range-cases.js';
import {
  comparable,
  parseMultipart,
  settledCount,
  stalledRequest,
  useServeHarness,
  waitFor,
} from './test-support/serve-harness.js';
import { DATA, testRep } from './test-support/test-representations.js';

// Socket-level tests of serveRepresentation(): streaming, backpressure, aborts, failures after
// the headers, multipart bytes on the wire, HEAD = GET (real clients: serve-representation-curl.tools.test.ts). The header cases
// are tables of the pure functions (response-plan.test.ts, preconditions.test.ts), every one
// of them also sent over a socket by serve-representation-cases.test.ts.

const harness = useServeHarness();
const { mount, send } = harness;

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
    expect(entry.recorded).toEqual({
      bytes: DATA.length,
      starts: 1,
      ends: [{ outcome: 'complete', error: undefined }],
      errors: [],
    });
  });
});

describe('serveRepresentation: keep-alive', () => {
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

describe('serveRepresentation: multipart on the wire', () => {
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
  ] satisfies [string, Record<string, string>][])(
    'with %s sends the GET headers and no body',
    async (_what, headers) => {
      const { path, entry } = mount(testRep(DATA, { filename: 'a.iso', cacheControl: 'no-cache' }));
      const headRes = await send(path, headers, 'HEAD');
      expect(entry.rep.opened).toHaveLength(0);
      expect(entry.recorded.starts).toBe(0);
      const getRes = await send(path, headers, 'GET');
      expect(headRes.status).toBe(getRes.status);
      expect(comparable(headRes.headers)).toEqual(comparable(getRes.headers));
      expect(headRes.body.length).toBe(0);
      expect(headRes.headers['transfer-encoding']).toBeUndefined();
    },
  );
});

describe('serveRepresentation: the plan hook', () => {
  it.each([
    ['a whole GET', 'GET', {}, 200, [[0, SIZE - 1]]],
    [
      'two ranges',
      'GET',
      { Range: 'bytes=0-9,100-199' },
      206,
      [
        [0, 9],
        [100, 199],
      ],
    ],
    ['a stale If-Range', 'GET', { Range: 'bytes=0-9', 'If-Range': '"old"' }, 200, [[0, SIZE - 1]]],
    ['a HEAD with a range', 'HEAD', { Range: 'bytes=0-9' }, 206, []],
    ['an unsatisfiable range', 'GET', { Range: 'bytes=999999-' }, 416, []],
  ] satisfies [string, string, Record<string, string>, number, [number, number][]][])(
    'hands the plan of %s to onPlan once: the status sent and the bytes of its body',
    async (_what, method, headers, status, segments) => {
      const { path, entry } = mount(testRep(DATA));
      const res = await send(path, headers, method);
      expect(res.status).toBe(status);
      expect(entry.plans).toHaveLength(1);
      expect(entry.plans[0]!.status).toBe(status);
      expect(entry.plans[0]!.segments.map((s) => [s.start, s.end])).toEqual(segments);
    },
  );
});

describe('serveRepresentation: streaming', () => {
  it('respects backpressure from a client that stops reading', async () => {
    const { path, entry } = mount(testRep(4 * 1024 ** 3, { chunkSize: 64 * 1024 }));
    const stalled = await stalledRequest(harness.port, path);
    const pulledWhileStalled = await settledCount(() => entry.rep.pulled);
    // only socket and stream buffers worth of data, and no longer growing
    expect(pulledWhileStalled).toBeLessThan(64 * 1024 ** 2);
    stalled.destroy();
    await waitFor(() => entry.recorded.ends.length === 1, 'stream end');
    expect(entry.recorded.ends[0]?.outcome).toBe('client-aborted');
    expect(entry.rep.opened[0]?.stream.destroyed).toBe(true);
  });

  it('destroys the source when the client aborts mid-stream and keeps serving', async () => {
    const { path, entry } = mount(testRep(1024 ** 3, { chunkSize: 64 * 1024 }));
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: harness.port, path, agent: false }, (res) => {
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
        {
          host: '127.0.0.1',
          port: harness.port,
          path,
          agent: false,
          headers: { Range: 'bytes=0-9,100-200000000,300000000-' },
        },
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
