// A loopback HTTP server that answers with serveRepresentation() for the range layer's socket
// tests, a raw client that reports framing (complete or cut), and a strict
// multipart/byteranges reader independent of the code under test. Test support only.
import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { writeErrorResponse } from '../error-response.js';
import type { ResponsePlan } from '../response-plan.js';
import { serveRepresentation, type ServeHooks, type StreamOutcome } from '../serve-representation.js';
import type { TestRep } from './test-representations.js';

export interface Recorded {
  bytes: number;
  starts: number;
  ends: { outcome: StreamOutcome; error: unknown }[];
  errors: unknown[];
}

export interface Entry<R extends TestRep = TestRep> {
  rep: R;
  recorded: Recorded;
  /** The plans handed to the onPlan hook, in order. */
  plans: ResponsePlan[];
  /** serveRepresentation()'s promises, kept only for assertions. */
  done: Promise<void>[];
}

export interface ServeHarness {
  /** The server's port (after beforeAll). */
  readonly port: number;
  /** Registers `rep` under a fresh path. */
  mount<R extends TestRep>(rep: R): { path: string; entry: Entry<R> };
  /** One request on a fresh connection (or `agent`). */
  send(
    path: string,
    headers?: Record<string, string>,
    method?: string,
    agent?: http.Agent | false,
  ): Promise<RawResponse>;
}

function recorderHooks({ recorded, plans }: Entry): ServeHooks {
  return {
    onPlan: (plan) => {
      plans.push(plan);
    },
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

/** Starts the server for the calling test file (beforeAll) and stops it afterwards. */
export function useServeHarness(): ServeHarness {
  const entries = new Map<string, Entry>();
  let server: Server | undefined;
  let port = 0;
  let nextId = 0;

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
      entry.done.push(serveRepresentation(req, res, entry.rep, recorderHooks(entry)));
    });
    app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => writeErrorResponse(req, res, err));
    const s = http.createServer(app);
    server = s;
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    port = (s.address() as AddressInfo).port;
  });

  afterAll(async () => {
    const s = server;
    if (s === undefined) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  });

  afterEach(() => {
    entries.clear();
  });

  return {
    get port() {
      return port;
    },
    mount<R extends TestRep>(rep: R) {
      const name = `r${nextId++}`;
      const entry: Entry<R> = { rep, recorded: { bytes: 0, starts: 0, ends: [], errors: [] }, plans: [], done: [] };
      entries.set(name, entry);
      return { path: `/r/${name}`, entry };
    },
    send: (path, headers, method, agent) => send(port, path, headers, method, agent),
  };
}

// --- client ----------------------------------------------------------------------------

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The whole message (per its framing) arrived. */
  complete: boolean;
  /** The response errored (e.g. the connection was reset mid-body). */
  errored: boolean;
}

export function send(
  port: number,
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

/** Waits for `condition`; the bound is only a backstop (a loaded machine is slow, never wrong). */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * The value of `count` once it has stopped growing for `quietMs` (a stream held by backpressure);
 * throws when it keeps growing past `boundMs`. Polls instead of sleeping a fixed time, so a loaded
 * machine that fills the buffers slowly is waited for, not failed.
 */
export async function settledCount(count: () => number, quietMs = 200, boundMs = 30_000): Promise<number> {
  const deadline = Date.now() + boundMs;
  let last = count();
  let since = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 20));
    const now = count();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return now;
    if (Date.now() > deadline) throw new Error(`still growing after ${boundMs} ms: ${now}`);
  }
}

/** Headers that must be equal between a GET and the matching HEAD. */
export function comparable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const copy: IncomingHttpHeaders = { ...headers };
  delete copy.date;
  delete copy.connection;
  delete copy['keep-alive'];
  if (typeof copy['content-type'] === 'string') {
    copy['content-type'] = copy['content-type'].replace(/boundary=\S+/, 'boundary=*');
  }
  return copy;
}

export interface Part {
  contentType: string | undefined;
  contentRange: string | undefined;
  start: number;
  end: number;
  total: number;
  data: Buffer;
}

/** Parses a multipart/byteranges body strictly, using each part's Content-Range for its length. */
export function parseMultipart(body: Buffer, contentType: string): Part[] {
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

/** A GET of `path` whose client reads nothing after the headers; resolves once they arrived. */
export async function stalledRequest(port: number, path: string): Promise<http.ClientRequest> {
  const request = http.request({ host: '127.0.0.1', port, path, agent: false });
  await new Promise<void>((resolve, reject) => {
    request.on('response', (res) => {
      res.pause(); // read nothing
      resolve();
    });
    request.on('error', reject);
    request.end();
  });
  request.on('error', () => {}); // the stream is torn down later on purpose
  return request;
}
