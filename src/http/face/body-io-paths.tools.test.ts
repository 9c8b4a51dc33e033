// Every body path serves the same bytes (issue 35): an artifact's representation
// (artifactRepresentation over a real SplicedFile on a fenced BaseFile, as the routes build it)
// served over real loopback HTTP with HTTP_BODY_IO's three modes: `portable` (every read on
// libuv's pool), `auto` (cached bytes written to the plain socket as views of the file's mapping,
// with each read's last page read on the event loop, other cached pages read there too, the rest
// on the pool) and
// `sendfile` (file stretches by sendfile(2), memory bytes by send(2)). Each mode gets its own copy
// of a base file whose last 4 MiB the addon reports as not in the page cache (a test can't evict
// pages, and ext4 fills a hole's pages without I/O, so `uncachedTail` wraps the real addon and says
// "not cached" / EAGAIN there: the not-cached branches run too), and serves a discovery-ISO-like file (patches, one zero-filled past its
// bytes, one inside the hole) and a PXE-initrd-like one (a window of the base plus an appended
// tail): whole bodies, ranges across every kind of boundary, 60 seeded random ranges and a
// multipart answer, each compared with bytes built here from first principles. Each mode also
// shows it took its own path (bytes through the socket's sender, reads on the pool or not). Over
// TLS `auto` copies every byte: a mapping's bytes would be read by this process there.
import { randomBytes } from 'node:crypto';
import { closeSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailable } from '../../../test/support/requirements.js';
import { type KernelIo, kernelIo } from '../../kernel-io/native-binding.js';
import { offStreamProgress } from '../../kernel-io/socket-file-sender.js';
import { BaseFile } from '../../splice/base-file.js';
import { type Patch, SplicedFile } from '../../splice/spliced-file.js';
import type { Representation } from '../representation/representation.js';
import { type BodyKernelIo, serveRepresentation } from '../representation/serve-representation.js';
import { parseMultipart } from '../representation/test-support/serve-harness.js';
import { selfSignedCert } from '../../images/test-support/images.js';
import { artifactRepresentation } from './artifact-response.js';

const io = kernelIo();
const missing = unavailable({ 'the kernel I/O addon (npm ci builds it with g++, make and python3)': io !== undefined });

const WRITTEN = 6 * 1024 * 1024;
/** The base file's size: the last 4 MiB are a hole, reported as not cached (uncachedTail). */
const SIZE = 10 * 1024 * 1024;
const BASE = randomBytes(WRITTEN);
const PATCHES: Patch[] = [
  { offset: 100_000, length: 262_144, bytes: randomBytes(1_000) }, // zero-filled past its bytes, like an embed area
  { offset: 3_000_000, length: 5_000, bytes: randomBytes(5_000) },
  { offset: 7_000_000, length: 70_000, bytes: randomBytes(70_000) }, // inside the hole
];
const WINDOW = { offset: 1_000_000, length: 2_000_000 };
const TAIL = [randomBytes(300_000), randomBytes(17)];

/** The discovery-ISO-like file's bytes, built without the code under test. */
function isoBytes(): Buffer {
  const out = Buffer.alloc(SIZE);
  BASE.copy(out);
  for (const p of PATCHES) {
    out.fill(0, p.offset, p.offset + p.length);
    p.bytes.copy(out, p.offset);
  }
  return out;
}

function initrdBytes(): Buffer {
  return Buffer.concat([BASE.subarray(WINDOW.offset, WINDOW.offset + WINDOW.length), ...TAIL]);
}

/** A deterministic generator for the random ranges (the same ranges for every mode). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function rangesOf(size: number, random: () => number): Array<[number, number]> {
  const boundaries = [
    ...PATCHES.flatMap((p) => [p.offset, p.offset + p.bytes.length, p.offset + p.length]),
    WINDOW.length,
    WRITTEN,
  ].filter((b) => b < size);
  const ranges: Array<[number, number]> = [
    [0, 0],
    [size - 1, size - 1],
    [0, size - 1],
    ...boundaries.map((b): [number, number] => [Math.max(0, b - 70_000), Math.min(size - 1, b + 70_000)]),
    ...boundaries.map((b): [number, number] => [Math.max(0, b - 1), Math.min(size - 1, b)]),
  ];
  for (let i = 0; i < 60; i++) {
    const length = 65_536 + Math.floor(random() * (1024 * 1024 - 65_536));
    const start = Math.floor(random() * (size - length));
    ranges.push([start, start + length - 1]);
  }
  return ranges;
}

interface Served {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET over `client` (http, or https with an agent that trusts the test certificate). */
function get(
  agent: http.Agent,
  port: number,
  pathname: string,
  range?: string,
  client: Pick<typeof http, 'get'> = http,
): Promise<Served> {
  return new Promise((resolve, reject) => {
    const req = client.get(
      { host: '127.0.0.1', port, path: pathname, agent, headers: range ? { Range: range } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/** A GET whose body may be cut short: the bytes that arrived and whether the response completed. */
function getMaybeCut(agent: http.Agent, port: number, pathname: string): Promise<{ body: Buffer; complete: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = (complete: boolean) => resolve({ body: Buffer.concat(chunks), complete });
    const req = http.get({ host: '127.0.0.1', port, path: pathname, agent }, (res) => {
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(res.complete));
      res.on('error', () => done(false));
      res.on('aborted', () => done(false));
    });
    req.on('error', () => done(false));
  });
}

/** Reads counted on the way to the representation: which path a mode took. */
interface Counts {
  poolReads: number;
  cachedReads: number;
  /** Bytes handed to the socket as cachedViews (file bytes as views of its mapping). */
  viewBytes: number;
  sentPastNode: number;
}

function counted(rep: Representation, counts: Counts): Representation {
  return {
    ...rep,
    readInto: (target, offset, length, position, callback) => {
      counts.poolReads++;
      rep.readInto!(target, offset, length, position, callback);
    },
    readIntoCached: (k, target, offset, length, position) => {
      const n = rep.readIntoCached!(k, target, offset, length, position);
      if (n === length) counts.cachedReads++;
      return n;
    },
    cachedViews: (k, position, length) => {
      const views = rep.cachedViews!(k, position, length);
      if (views !== undefined) counts.viewBytes += length;
      return views;
    },
  };
}

/** The real addon, except that pages past WRITTEN of any file count as not in the page cache. */
function uncachedTail(real: KernelIo): KernelIo {
  return {
    ...real,
    residency: (fd, position, length) => (position + length > WRITTEN ? 0 : real.residency(fd, position, length)),
    mappedResidency: (mapping, position, length) =>
      position + length > WRITTEN ? 0 : real.mappedResidency(mapping, position, length),
    readNoWait: (fd, buffer, offset, length, position) =>
      position + length > WRITTEN ? -real.EAGAIN : real.readNoWait(fd, buffer, offset, length, position),
  };
}

const MODES: Array<{ name: 'portable' | 'auto' | 'sendfile'; kernelIo: () => BodyKernelIo | undefined }> = [
  { name: 'portable', kernelIo: () => undefined },
  { name: 'auto', kernelIo: () => ({ io: uncachedTail(io!), sendfile: false }) },
  { name: 'sendfile', kernelIo: () => ({ io: uncachedTail(io!), sendfile: true }) },
];

describe.skipIf(missing)('HTTP_BODY_IO: every body path serves the same bytes', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'body-io-paths-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A base file of its own: BASE, then a hole up to SIZE. */
  function writeBase(name: string): string {
    const file = path.join(dir, name);
    const fd = openSync(file, 'w');
    writeSync(fd, BASE, 0, BASE.length, 0);
    ftruncateSync(fd, SIZE);
    closeSync(fd);
    return file;
  }

  for (const mode of MODES) {
    it(`${mode.name}: whole bodies, ranges across patches, window and tail, random ranges, multipart`, async () => {
      const file = writeBase(`${mode.name}.iso`);
      const st = statSync(file);
      const changes: string[] = [];
      const base = await BaseFile.open(file, `sha256:${mode.name}`, new Date(0), {
        expected: { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino },
        onChanged: (reason) => changes.push(reason),
      });
      const counts: Counts = { poolReads: 0, cachedReads: 0, viewBytes: 0, sentPastNode: 0 };
      const files = {
        '/iso': {
          rep: counted(
            artifactRepresentation(
              { file: new SplicedFile(base, { patches: PATCHES }), lastModified: new Date(0) },
              'x.iso',
            ),
            counts,
          ),
          bytes: isoBytes(),
        },
        '/initrd': {
          rep: counted(
            artifactRepresentation(
              { file: new SplicedFile(base, { window: WINDOW, tail: TAIL }), lastModified: new Date(0) },
              'x.img',
            ),
            counts,
          ),
          bytes: initrdBytes(),
        },
      };
      const kernel = mode.kernelIo();
      const server = http.createServer((req, res) => {
        const target = files[req.url as keyof typeof files];
        const socket: Socket = req.socket;
        const before = offStreamProgress(socket)?.sent ?? 0;
        res.on('finish', () => {
          counts.sentPastNode += (offStreamProgress(socket)?.sent ?? 0) - before;
        });
        void serveRepresentation(req, res, target.rep, undefined, { kernelIo: kernel });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
      try {
        let bodyBytes = 0;
        for (const [pathname, { bytes }] of Object.entries(files)) {
          const whole = await get(agent, port, pathname);
          expect(whole.status).toBe(200);
          expect(whole.body.equals(bytes), `${mode.name} ${pathname}: whole body`).toBe(true);
          bodyBytes += bytes.length;
          for (const [start, end] of rangesOf(bytes.length, seeded(35))) {
            const part = await get(agent, port, pathname, `bytes=${start}-${end}`);
            expect(part.status, `${pathname} ${start}-${end}`).toBe(206);
            expect(
              part.body.equals(bytes.subarray(start, end + 1)),
              `${mode.name} ${pathname} bytes ${start}-${end}`,
            ).toBe(true);
            bodyBytes += end - start + 1;
          }
          const multi = await get(agent, port, pathname, 'bytes=0-99,99000-400000,-70000');
          expect(multi.status).toBe(206);
          const parts = parseMultipart(multi.body, String(multi.headers['content-type']));
          expect(parts.map((p) => [p.start, p.end])).toEqual([
            [0, 99],
            [99_000, 400_000],
            [bytes.length - 70_000, bytes.length - 1],
          ]);
          for (const p of parts) expect(p.data.equals(bytes.subarray(p.start, p.end + 1))).toBe(true);
        }
        expect(changes).toEqual([]);
        // each mode took its own path
        if (mode.name === 'sendfile') {
          expect(counts.sentPastNode).toBeGreaterThanOrEqual(bodyBytes); // every single-range body (multipart framing aside)
          expect(counts.poolReads).toBeGreaterThan(0); // the uncached tail, read on the pool
        } else {
          expect(counts.sentPastNode).toBe(0);
        }
        if (mode.name === 'auto') {
          expect(counts.cachedReads).toBeGreaterThan(counts.poolReads);
          expect(counts.viewBytes).toBeGreaterThan(bodyBytes / 2); // most bytes never copied here
        }
        if (mode.name === 'portable') expect(counts.cachedReads + counts.viewBytes).toBe(0);
        if (mode.name !== 'sendfile') expect(counts.poolReads).toBeGreaterThan(0); // portable: all; auto: the uncached tail

        // a changed file is never served: one byte rewritten (new mtime/ctime) cuts every answer short
        const rewrite = openSync(file, 'r+');
        writeSync(rewrite, Buffer.from([BASE[0]! ^ 0xff]), 0, 1, 0);
        closeSync(rewrite);
        for (const pathname of Object.keys(files)) {
          const cut = await getMaybeCut(agent, port, pathname);
          expect(cut.complete, `${mode.name} ${pathname} after the change`).toBe(false);
          expect(cut.body.length).toBeLessThan(files[pathname as keyof typeof files].bytes.length);
        }
        expect(changes).toEqual(['the file changed since it was verified']);
      } finally {
        agent.destroy();
        await new Promise((resolve) => server.close(resolve));
        base.close();
      }
    }, 120_000);
  }

  it('auto over TLS: the same bytes, and never a view of the mapping (TLS reads what it sends)', async () => {
    const base = await BaseFile.open(writeBase('tls.iso'), 'sha256:tls', new Date(0));
    const counts: Counts = { poolReads: 0, cachedReads: 0, viewBytes: 0, sentPastNode: 0 };
    const rep = counted(
      artifactRepresentation({ file: new SplicedFile(base, { patches: PATCHES }), lastModified: new Date(0) }, 'x.iso'),
      counts,
    );
    const server = https.createServer(selfSignedCert(dir), (req, res) => {
      void serveRepresentation(req, res, rep, undefined, { kernelIo: { io: uncachedTail(io!), sendfile: false } });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    try {
      const bytes = isoBytes();
      for (const [start, end] of rangesOf(bytes.length, seeded(36)).slice(0, 30)) {
        const part = await get(agent, port, '/iso', `bytes=${start}-${end}`, https);
        expect(part.status).toBe(206);
        expect(part.body.equals(bytes.subarray(start, end + 1)), `TLS bytes ${start}-${end}`).toBe(true);
      }
      expect(counts.cachedReads).toBeGreaterThan(0);
      expect(counts.viewBytes).toBe(0);
    } finally {
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
      base.close();
    }
  }, 60_000);
});
