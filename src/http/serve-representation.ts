// The one place where a Representation becomes an HTTP response: conditional requests,
// byte ranges (single and multipart/byteranges), HEAD, and streaming with backpressure.
//
// Every artifact route (spliced ISO, PXE initrd, boot artifacts, small text files) ends in
// serveRepresentation(). It answers GET and HEAD only; other methods get 405. Headers are
// written with one writeHead() call and always carry an exact Content-Length, so responses
// are never chunked. It does not authenticate, choose representations, compress, or log:
// callers do that, and observe streaming and failures through the optional hooks.
//
// It never rejects, so callers may fire and forget it. Errors raised before the headers go
// out (an unsatisfiable Range, rep.stream() throwing) are answered here with the status,
// headers and `{ code, message }` body of src/http/error-mapping.ts, exactly as
// imageErrorHandler would. A source failing after the headers went out destroys the
// connection: the client sees a truncated response, never a clean short one.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { RangeNotSatisfiableError } from '../errors.js';
import { writeErrorResponse } from './error-mapping.js';
import type { Representation } from './representation.js';
import { ifRangeMatches, matchEntityTag, parseHttpDate, parseRange, type ByteRange } from './range.js';

/** How a streamed body ended. */
export type StreamOutcome = 'complete' | 'client-aborted' | 'source-error';

/** Observers for metrics and logs. They run on the hot path and must not throw. */
export interface ServeHooks {
  /**
   * Body bytes handed to the response (res.write), multipart framing included, reported per
   * chunk as they are written. On a complete response they add up to Content-Length.
   */
  onBytes?(bytes: number): void;
  /** A body starts streaming (GET with a non-empty body, after the headers were written). */
  onStreamStart?(): void;
  /** Called exactly once after every onStreamStart; `error` is set for `source-error`. */
  onStreamEnd?(outcome: StreamOutcome, error?: unknown): void;
  /**
   * A failure of the representation that this layer handled itself: rep.stream() threw
   * (answered with an error response) or a source failed or sent the wrong number of bytes
   * (connection destroyed). For logging. Never called for client behaviour (416, aborts).
   */
  onError?(error: unknown): void;
}

const DONE: Promise<void> = Promise.resolve();

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** One stretch of the body: optional framing text (latin1) followed by rep bytes start..end. */
interface Segment {
  readonly prefix: string | undefined;
  readonly start: number;
  readonly end: number;
}

/**
 * Answers a GET or HEAD for `rep` (RFC 9110 §13.2.2 conditionals, then Range/If-Range).
 *
 * The promise settles once the response is complete, was answered without a body (HEAD,
 * 304, 412, 416, an empty representation) or the connection is gone; it never rejects.
 * HEAD gets exactly the headers of the equivalent GET (206 and Content-Range included, like
 * nginx and Apache httpd) and never calls rep.stream().
 */
export function serveRepresentation(
  req: IncomingMessage,
  res: ServerResponse,
  rep: Representation,
  hooks?: ServeHooks,
): Promise<void> {
  try {
    return respond(req, res, rep, hooks) ?? DONE;
  } catch (err) {
    if (!(err instanceof RangeNotSatisfiableError)) hooks?.onError?.(err);
    writeErrorResponse(req, res, err);
    return DONE;
  }
}

/** Everything up to the first body byte; returns the streaming promise when there is a body. */
function respond(
  req: IncomingMessage,
  res: ServerResponse,
  rep: Representation,
  hooks: ServeHooks | undefined,
): Promise<void> | undefined {
  const method = req.method;
  const head = method === 'HEAD';
  if (!head && method !== 'GET') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Length': '0' });
    res.end();
    return undefined;
  }

  const h = req.headers;
  const etag = rep.etag;
  const modifiedMs = rep.lastModified.getTime();
  // HTTP dates have whole seconds; every comparison uses the truncated value.
  const modifiedSeconds = Number.isFinite(modifiedMs) ? Math.floor(modifiedMs / 1000) : undefined;
  const lastModified = modifiedSeconds === undefined ? undefined : rep.lastModified.toUTCString();

  // RFC 9110 §13.2.2 steps 1-2: If-Match, else If-Unmodified-Since.
  const ifMatch = h['if-match'];
  if (ifMatch !== undefined) {
    if (!matchEntityTag(ifMatch, etag, 'strong')) return preconditionFailed(res);
  } else {
    const ius = h['if-unmodified-since'];
    if (ius !== undefined && modifiedSeconds !== undefined) {
      const date = parseHttpDate(ius);
      if (date !== undefined && modifiedSeconds * 1000 > date) return preconditionFailed(res);
    }
  }

  // Steps 3-4: If-None-Match, else If-Modified-Since.
  const ifNoneMatch = h['if-none-match'];
  if (ifNoneMatch !== undefined) {
    if (matchEntityTag(ifNoneMatch, etag, 'weak')) return notModified(res, rep, lastModified);
  } else {
    const ims = h['if-modified-since'];
    if (ims !== undefined && modifiedSeconds !== undefined) {
      const date = parseHttpDate(ims);
      if (date !== undefined && modifiedSeconds * 1000 <= date) return notModified(res, rep, lastModified);
    }
  }

  // Step 5: Range, unless If-Range says the client's partial copy is stale.
  const size = rep.size;
  const rangeHeader = h.range;
  let ranges: readonly ByteRange[] | undefined;
  if (rangeHeader !== undefined) {
    // Node joins repeated header lines into one string, so an array is never a valid value.
    const ifRange = h['if-range'];
    if (ifRange === undefined || (typeof ifRange === 'string' && ifRangeMatches(ifRange, etag, modifiedSeconds))) {
      const parsed = parseRange(rangeHeader, size);
      if (parsed.kind === 'unsatisfiable') throw new RangeNotSatisfiableError(size, rangeHeader);
      if (parsed.kind === 'ranges') ranges = parsed.ranges;
    }
  }

  const contentType = rep.contentType ?? DEFAULT_CONTENT_TYPE;
  const headers: OutgoingHttpHeaders = {
    'Accept-Ranges': 'bytes',
    ETag: etag,
  };
  if (lastModified !== undefined) headers['Last-Modified'] = lastModified;
  if (rep.cacheControl !== undefined) headers['Cache-Control'] = rep.cacheControl;
  if (rep.filename !== undefined) headers['Content-Disposition'] = contentDisposition(rep.filename);

  let status: number;
  let segments: readonly Segment[];
  let trailer: string | undefined;
  if (ranges === undefined) {
    status = 200;
    headers['Content-Type'] = contentType;
    headers['Content-Length'] = String(size);
    segments = size === 0 ? [] : [{ prefix: undefined, start: 0, end: size - 1 }];
  } else if (ranges.length === 1) {
    const { start, end } = ranges[0] as ByteRange;
    status = 206;
    headers['Content-Type'] = contentType;
    headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    headers['Content-Length'] = String(end - start + 1);
    segments = [{ prefix: undefined, start, end }];
  } else {
    // multipart/byteranges (RFC 9110 §14.6). A random boundary cannot collide with the data
    // in practice; part headers are ASCII, so string length = byte length.
    const boundary = randomUUID();
    const parts: Segment[] = [];
    let length = 0;
    for (let k = 0; k < ranges.length; k++) {
      const { start, end } = ranges[k] as ByteRange;
      const prefix =
        `${k === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Type: ${contentType}\r\n` +
        `Content-Range: bytes ${start}-${end}/${size}\r\n\r\n`;
      parts.push({ prefix, start, end });
      length += prefix.length + (end - start + 1);
    }
    trailer = `\r\n--${boundary}--\r\n`;
    length += trailer.length;
    status = 206;
    headers['Content-Type'] = `multipart/byteranges; boundary=${boundary}`;
    headers['Content-Length'] = String(length);
    segments = parts;
  }

  const first = segments[0];
  if (head || first === undefined) {
    res.writeHead(status, headers);
    res.end();
    return undefined;
  }
  if (res.destroyed) return undefined; // the client left while the representation was being prepared

  // Open the first source before writing anything, so that a synchronous failure can still
  // be answered with a proper error response (serveRepresentation → writeError).
  const source = rep.readInto ? undefined : rep.stream(first.start, first.end);
  try {
    res.writeHead(status, headers);
  } catch (err) {
    source?.destroy();
    throw err;
  }
  hooks?.onStreamStart?.();
  return pump(res, rep, segments, trailer, source, hooks);
}

function preconditionFailed(res: ServerResponse): undefined {
  res.writeHead(412, { 'Content-Length': '0' });
  res.end();
  return undefined;
}

function notModified(res: ServerResponse, rep: Representation, lastModified: string | undefined): undefined {
  // RFC 9110 §15.4.5: the validators and Cache-Control of the 200, no content, no Content-Length.
  const headers: OutgoingHttpHeaders = { ETag: rep.etag };
  if (lastModified !== undefined) headers['Last-Modified'] = lastModified;
  if (rep.cacheControl !== undefined) headers['Cache-Control'] = rep.cacheControl;
  res.writeHead(304, headers);
  res.end();
  return undefined;
}

function noop(): void {}

/**
 * Bodies of representations with readInto() go through buffers of this size, taken from a
 * small free list and given back once the socket has taken their bytes (the write
 * callback): no allocation per chunk, so no external-memory pressure on the GC.
 */
const CHUNK = 512 * 1024;
/** A body of at most this many bytes (a BMC's typical Range) goes out in one read and one write. */
const WHOLE = 1024 * 1024;
const FREE = new Map<number, Buffer[]>([[CHUNK, []], [WHOLE, []]]);
const FREE_MAX = 64;

function takeBuffer(size: number): Buffer {
  return FREE.get(size)!.pop() ?? Buffer.allocUnsafeSlow(size);
}

function giveBack(buffer: Buffer): void {
  const list = FREE.get(buffer.length);
  if (list && list.length < FREE_MAX) list.push(buffer);
}

/**
 * Writes the segments to `res` in order, one source at a time, with backpressure: a source
 * is paused whenever res.write() reports a full buffer and resumed on 'drain'. Every source
 * must deliver exactly its byte count; anything else destroys the connection. A client that
 * goes away destroys the current source. Resolves when the response finished or was torn
 * down; never rejects.
 *
 * Hand-rolled instead of stream.pipeline() because pipeline(…, { end: false }), needed for
 * multipart, leaves listeners on the response per part, and because pipeline would end the
 * response cleanly after a source that ends early (a silently short body).
 */
function pump(
  res: ServerResponse,
  rep: Representation,
  segments: readonly Segment[],
  trailer: string | undefined,
  firstSource: Readable | undefined,
  hooks: ServeHooks | undefined,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const onBytes = hooks?.onBytes;
    let index = 0;
    let source: Readable | undefined;
    let expected = 0;
    let received = 0;
    let ended = false;
    let needDrain = false;
    let done = false;
    // positional reads (rep.readInto): the next byte to read and the segment's last byte
    let position = 0;
    let last = -1;
    let reading = false;
    let bufferSize = CHUNK;

    const detachSource = (): void => {
      if (source === undefined) return;
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', fail);
      source.off('close', onSourceClose);
      source.on('error', noop); // a late error from a detached source must not crash the process
    };

    const settle = (outcome: StreamOutcome, error?: unknown): void => {
      done = true;
      res.off('drain', onDrain);
      res.off('finish', onFinish);
      res.off('close', onResClose);
      res.off('error', onResError);
      if (source !== undefined) {
        detachSource();
        source.destroy();
        source = undefined;
      }
      if (outcome === 'source-error') hooks?.onError?.(error);
      hooks?.onStreamEnd?.(outcome, error);
      resolve();
    };

    /** The body cannot be completed: drop the connection so the client sees the truncation. */
    function fail(err: unknown): void {
      if (done) return;
      settle('source-error', err);
      res.destroy();
    }

    function write(chunk: Uint8Array): void {
      if (!res.write(chunk)) needDrain = true;
      onBytes?.(chunk.length);
    }

    function onData(chunk: Uint8Array): void {
      received += chunk.length;
      if (received > expected) {
        fail(new Error(`representation stream sent more than the ${expected} bytes requested`));
        return;
      }
      try {
        write(chunk);
      } catch (err) {
        fail(err); // e.g. a source in object mode emitting something that is not bytes
        return;
      }
      if (needDrain) (source as Readable).pause();
    }

    function onEnd(): void {
      ended = true;
      if (received !== expected) {
        fail(new Error(`representation stream ended after ${received} of ${expected} bytes`));
        return;
      }
      detachSource();
      source = undefined;
      index++;
      next();
    }

    function onSourceClose(): void {
      if (!ended) fail(new Error(`representation stream closed after ${received} of ${expected} bytes`));
    }

    function onDrain(): void {
      needDrain = false;
      if (source) source.resume();
      else if (rep.readInto) readNext();
    }

    /** One positional read at a time into a recycled buffer; pauses while the socket is full. */
    function readNext(): void {
      if (done || reading || needDrain) return;
      if (position > last) {
        index++;
        next();
        return;
      }
      const length = Math.min(bufferSize, last - position + 1);
      const buffer = takeBuffer(bufferSize);
      reading = true;
      rep.readInto!(buffer, 0, length, position, (err, copied) => {
        reading = false;
        if (done) {
          giveBack(buffer);
          return;
        }
        if (err || copied !== length) {
          giveBack(buffer);
          fail(err ?? new Error(`representation read ${copied} of ${length} bytes at ${position}`));
          return;
        }
        position += length;
        try {
          if (!res.write(length === buffer.length ? buffer : buffer.subarray(0, length), () => giveBack(buffer))) needDrain = true;
        } catch (e) {
          fail(e);
          return;
        }
        onBytes?.(length);
        readNext();
      });
    }

    function onFinish(): void {
      if (!done) settle('complete');
    }

    function onResClose(): void {
      if (!done) settle('client-aborted');
    }

    function onResError(err: unknown): void {
      if (!done) settle('client-aborted', err);
    }

    function next(): void {
      const segment = segments[index];
      if (segment === undefined) {
        if (trailer !== undefined) write(Buffer.from(trailer, 'latin1'));
        res.end();
        return;
      }
      if (segment.prefix !== undefined) write(Buffer.from(segment.prefix, 'latin1'));
      if (rep.readInto) {
        position = segment.start;
        last = segment.end;
        bufferSize = segment.end - segment.start + 1 <= WHOLE ? WHOLE : CHUNK;
        readNext();
        return;
      }
      let s: Readable;
      if (index === 0 && firstSource) {
        s = firstSource;
      } else {
        try {
          s = rep.stream(segment.start, segment.end);
        } catch (err) {
          fail(err);
          return;
        }
      }
      source = s;
      expected = segment.end - segment.start + 1;
      received = 0;
      ended = false;
      if (needDrain) s.pause(); // stays paused when the 'data' listener is added
      s.on('data', onData);
      s.on('end', onEnd);
      s.on('error', fail);
      s.on('close', onSourceClose);
    }

    res.on('drain', onDrain);
    res.on('finish', onFinish);
    res.on('close', onResClose);
    res.on('error', onResError);
    next();
  });
}

/**
 * `attachment; filename="…"`, plus an RFC 8187 `filename*` (with an ASCII fallback) when the
 * name holds characters a quoted-string cannot carry safely.
 */
function contentDisposition(filename: string): string {
  let plain = true;
  for (let i = 0; i < filename.length; i++) {
    const c = filename.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
      plain = false;
      break;
    }
  }
  if (plain) return `attachment; filename="${filename}"`;

  let fallback = '';
  for (let i = 0; i < filename.length; i++) {
    const c = filename.charCodeAt(i);
    fallback += c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c ? '_' : filename[i];
  }
  let encoded = '';
  for (const byte of Buffer.from(filename, 'utf8')) {
    encoded += isAttrChar(byte) ? String.fromCharCode(byte) : `%${byte < 16 ? '0' : ''}${byte.toString(16).toUpperCase()}`;
  }
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** RFC 8187 attr-char: ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" */
function isAttrChar(b: number): boolean {
  return (
    (b >= 0x30 && b <= 0x39) ||
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x61 && b <= 0x7a) ||
    b === 0x21 || b === 0x23 || b === 0x24 || b === 0x26 || b === 0x2b || b === 0x2d ||
    b === 0x2e || b === 0x5e || b === 0x5f || b === 0x60 || b === 0x7c || b === 0x7e
  );
}
