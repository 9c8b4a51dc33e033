// downloadToFile with the real HTTP source against a loopback server that misbehaves the
// ways mirrors do: every case must end with exactly the served bytes (or a classified error)
// and must resume with Range rather than start over whenever the server allows it.
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DownloadHooks, downloadToFile } from './download.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../load-failure/retry-policy.js';
import { HttpSource, type HttpSettings } from './http-source.js';
import { fixtureBytes, sha256 } from '../test-support/images.js';
import { IsoServer } from '../test-support/iso-server.js';

/**
 * Where a request resumed (0 without Range). After a dropped connection the downloader resumes
 * after the last byte it had *written*, which on a busy machine can be short of the drop point.
 */
const resumedAt = (range: string | undefined) =>
  range === undefined ? 0 : Number(/^bytes=(\d+)-$/.exec(range)?.[1] ?? NaN);
/** The ETag IsoServer sends by default. */
const etagOf = (bytes: Buffer) => `"${sha256(bytes).slice(0, 16)}"`;
const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, attempts: 3, baseDelayMs: 10 };
const settings: HttpSettings = { headers: {}, ca: undefined, idleTimeoutMs: 5_000 };

describe('downloadToFile over HTTP', () => {
  const body = fixtureBytes();
  const server = new IsoServer();
  let dir: string;
  let part: string;
  let notices: string[];
  let starts: Array<[number | undefined, number]>;

  const hooks = (): DownloadHooks => ({
    signal: new AbortController().signal,
    onStart: (total, already) => starts.push([total, already]),
    onBytes: () => undefined,
    onNotice: (message) => notices.push(message),
  });
  const fetchFrom = (p: string, s: HttpSettings = settings, pol = policy) =>
    downloadToFile(new HttpSource(server.url(p), s), part, hooks(), pol);

  beforeAll(async () => {
    await server.start();
    dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-download-'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await rm(part, { force: true });
    await rm(`${part}.json`, { force: true });
  });
  const fresh = (name: string) => {
    part = path.join(dir, `${name}.part`);
    notices = [];
    starts = [];
    server.hits.length = 0;
  };

  it('downloads slowly served bytes exactly and hashes them on the way', async () => {
    fresh('slow');
    server.serve('/slow.iso', body, { chunkBytes: 64 * 1024, delayMs: 5 });
    const result = await fetchFrom('/slow.iso');
    expect(result).toEqual({ sha256: sha256(body), size: body.length });
    expect((await readFile(part)).equals(body)).toBe(true);
    expect(starts).toEqual([[body.length, 0]]);
  });

  it('resumes a dropped transfer with Range + If-Range and produces identical bytes', async () => {
    fresh('drop');
    const half = Math.floor(body.length / 2) + 123;
    server.serve('/drop.iso', body, { dropAfter: half, chunkBytes: 32 * 1024 });
    const result = await fetchFrom('/drop.iso');
    expect(result.sha256).toBe(sha256(body));
    expect((await readFile(part)).equals(body)).toBe(true);
    const hits = server.hitsFor('/drop.iso');
    expect(hits).toHaveLength(2);
    expect(hits[0]!.range).toBeUndefined();
    const at = resumedAt(hits[1]!.range);
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThanOrEqual(half);
    expect(hits[1]!.ifRange).toMatch(/^"/);
    expect(starts[1]).toEqual([body.length, at]);
    expect(notices[0]).toMatch(/retrying/);
  });

  it('resumes a .part left by an earlier process, re-hashing the bytes already there', async () => {
    fresh('leftover');
    server.serve('/leftover.iso', body);
    await writeFile(part, body.subarray(0, 300_000));
    await writeFile(`${part}.json`, JSON.stringify({ validator: etagOf(body), total: body.length }));
    const result = await fetchFrom('/leftover.iso');
    expect(result.sha256).toBe(sha256(body));
    expect(server.hitsFor('/leftover.iso').map((h) => [h.range, h.ifRange])).toEqual([['bytes=300000-', etagOf(body)]]);
  });

  it('resumes with If-Range on Last-Modified when the source sends no ETag', async () => {
    fresh('lastmod');
    const lastModified = 'Tue, 03 Nov 2026 10:00:00 GMT';
    server.serve('/lastmod.iso', body, { etag: null, lastModified, dropAfter: 200_000 });
    expect((await fetchFrom('/lastmod.iso')).sha256).toBe(sha256(body));
    const hits = server.hitsFor('/lastmod.iso');
    expect(hits.map((h) => h.ifRange)).toEqual([undefined, lastModified]);
    expect(resumedAt(hits[1]!.range)).toBeGreaterThan(0);
    expect(resumedAt(hits[1]!.range)).toBeLessThanOrEqual(200_000);
  });

  it('never resumes without a validator: a .part from a source with neither ETag nor Last-Modified starts over', async () => {
    fresh('novalidator');
    const v2 = Buffer.from(body);
    v2.fill(0x5a, 100_000, 400_000); // the object changed after the .part was written
    server.serve('/novalidator.iso', v2, { etag: null });
    await writeFile(part, body.subarray(0, 300_000));
    await writeFile(`${part}.json`, JSON.stringify({ total: body.length }));
    const result = await fetchFrom('/novalidator.iso');
    expect(result.sha256).toBe(sha256(v2));
    expect((await readFile(part)).equals(v2)).toBe(true);
    expect(server.hitsFor('/novalidator.iso').map((h) => h.range)).toEqual([undefined]);
    expect(notices.some((n) => /no ETag or Last-Modified/.test(n))).toBe(true);
  });

  it('starts over after a dropped transfer when the source gives no validator, even in the same process', async () => {
    fresh('novalidator-drop');
    server.serve('/nv-drop.iso', body, { etag: null, dropAfter: 250_000 });
    expect((await fetchFrom('/nv-drop.iso')).sha256).toBe(sha256(body));
    expect(server.hitsFor('/nv-drop.iso').map((h) => h.range)).toEqual([undefined, undefined]);
  });

  it('finishes a complete .part without downloading anything', async () => {
    fresh('complete');
    server.serve('/complete.iso', body);
    await writeFile(part, body);
    await writeFile(`${part}.json`, JSON.stringify({ validator: etagOf(body), total: body.length }));
    expect((await fetchFrom('/complete.iso')).sha256).toBe(sha256(body));
    expect(server.hitsFor('/complete.iso')).toHaveLength(0);
  });

  it('starts again from 0 when the server ignores Range', async () => {
    fresh('norange');
    server.serve('/norange.iso', body, { ignoreRange: true });
    await writeFile(part, Buffer.alloc(5000, 0xff)); // wrong bytes: must be replaced, not kept
    await writeFile(`${part}.json`, JSON.stringify({ validator: etagOf(body), total: body.length }));
    const result = await fetchFrom('/norange.iso');
    expect(result.sha256).toBe(sha256(body));
    expect((await readFile(part)).equals(body)).toBe(true);
    expect(notices.some((n) => /did not resume/.test(n))).toBe(true);
  });

  it('starts again from 0 when the object changed since the .part began (If-Range mismatch)', async () => {
    fresh('changed');
    server.serve('/changed.iso', body, { etag: '"v2"' });
    await writeFile(part, Buffer.alloc(5000, 0xff));
    await writeFile(`${part}.json`, JSON.stringify({ validator: '"v1"', total: body.length }));
    expect((await fetchFrom('/changed.iso')).sha256).toBe(sha256(body));
    expect(server.hitsFor('/changed.iso')[0]!.ifRange).toBe('"v1"');
  });

  it('resumes when the server announces more bytes than it sends (lying Content-Length)', async () => {
    fresh('liar');
    server.serve('/liar.iso', body, { dropAfter: body.length - 1000, contentLength: body.length });
    const result = await fetchFrom('/liar.iso');
    expect(result.sha256).toBe(sha256(body));
    const at = resumedAt(server.hitsFor('/liar.iso')[1]!.range);
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThanOrEqual(body.length - 1000);
  });

  it('retries a 500 and succeeds on the following 200', async () => {
    fresh('flaky');
    server.serve('/flaky.iso', body, { failFirst: [500, 503] });
    expect((await fetchFrom('/flaky.iso')).sha256).toBe(sha256(body));
    expect(server.hitsFor('/flaky.iso')).toHaveLength(3);
  });

  it('gives up after the configured attempts with a fast-class error', async () => {
    fresh('down');
    server.serve('/down.iso', body, { status: 502 });
    const err = await fetchFrom('/down.iso').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageLoadError);
    expect((err as ImageLoadError).retry).toBe('fast');
    expect((err as Error).message).toMatch(/HTTP 502/);
    expect(server.hitsFor('/down.iso')).toHaveLength(3);
  });

  it('does not retry a 404 at once (slow class) and names the redacted URL', async () => {
    fresh('missing');
    const err = await downloadToFile(
      new HttpSource(`${server.url('/nothing.iso')}?X-Amz-Signature=secret`, settings),
      part,
      hooks(),
      policy,
    ).catch((e: unknown) => e);
    expect((err as ImageLoadError).retry).toBe('slow');
    expect((err as Error).message).toMatch(/nothing\.iso: the server answered HTTP 404/);
    expect((err as Error).message).not.toContain('secret');
    expect(server.hitsFor('/nothing.iso')).toHaveLength(1);
    expect(existsSync(part)).toBe(false);
  });

  it('sends extra headers, follows redirects, and drops the headers when leaving the origin', async () => {
    fresh('redirect');
    const other = await new IsoServer().start();
    try {
      other.serve('/elsewhere.iso', body);
      server
        .serve('/same.iso', body, { redirectTo: '/moved.iso' })
        .serve('/moved.iso', body, { redirectTo: other.url('/elsewhere.iso') });
      const withHeaders = { ...settings, headers: { authorization: 'Bearer s3cret' } };
      expect((await fetchFrom('/same.iso', withHeaders)).sha256).toBe(sha256(body));
      expect(server.hitsFor('/same.iso')[0]!.headers.authorization).toBe('Bearer s3cret');
      expect(server.hitsFor('/moved.iso')[0]!.headers.authorization).toBe('Bearer s3cret');
      expect(other.hitsFor('/elsewhere.iso')[0]!.headers.authorization).toBeUndefined();
    } finally {
      await other.stop();
    }
  });

  it('resumes a transfer cut short twice, each time after the last byte written', async () => {
    fresh('short');
    server.serve('/short.iso', body, { dropAfter: 1000, dropTimes: 2, chunkBytes: 500 });
    expect((await fetchFrom('/short.iso')).sha256).toBe(sha256(body));
    const offsets = server.hitsFor('/short.iso').map((h) => resumedAt(h.range));
    expect(offsets).toHaveLength(3);
    expect(offsets[0]).toBe(0);
    expect(offsets[1]).toBeLessThanOrEqual(1000);
    expect(offsets[2]).toBeGreaterThanOrEqual(offsets[1]!);
    expect(offsets[2]).toBeLessThanOrEqual(offsets[1]! + 1000);
  });

  it('never follows a symbolic link planted as the .part: removes it and downloads from the first byte', async () => {
    fresh('planted');
    server.serve('/planted.iso', body);
    // a link to a file this process may write, with a sidecar that would make the bytes there resumable
    const victim = path.join(dir, 'victim');
    await writeFile(victim, body.subarray(0, 1000));
    await symlink(victim, part);
    await writeFile(`${part}.json`, JSON.stringify({ validator: etagOf(body), total: body.length }));
    const result = await fetchFrom('/planted.iso');
    expect(result).toEqual({ sha256: sha256(body), size: body.length });
    expect((await lstat(part)).isFile()).toBe(true);
    expect((await readFile(part)).equals(body)).toBe(true);
    expect((await readFile(victim)).equals(body.subarray(0, 1000))).toBe(true); // untouched
    expect(server.hitsFor('/planted.iso').map((h) => h.range)).toEqual([undefined]);
    expect(notices).toEqual([
      `${part} was a symbolic link, not a file bootsmith wrote: removed it (never followed); downloading from the first byte`,
    ]);
  });

  it('drops a connection that stays silent past the idle timeout and resumes after it', async () => {
    fresh('stall');
    // The first response goes silent for good after its first half: only the idle timeout can end
    // it (no race with the server's pace), and the resumed request gets the rest at once. The
    // timeout is long enough that a loaded machine delivers the first half well inside it.
    server.serve('/stall.iso', body, { stallAfter: body.length / 2 });
    const result = await fetchFrom('/stall.iso', { ...settings, idleTimeoutMs: 2_000 });
    expect(result.sha256).toBe(sha256(body));
    expect(server.hitsFor('/stall.iso').map((h) => h.range)).toEqual([undefined, `bytes=${body.length / 2}-`]);
    expect(notices).toEqual(['download attempt failed; retrying']);
  });
});
