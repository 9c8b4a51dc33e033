// Fuzz category "tls": native TLS (src/http/transport/tls/, src/http/face/plain-route-policy.ts) under hostile input, three ways.
//   plain-route policy  random request targets assembled from path and query fragments (dot
//                       segments, percent-encodings, repeated and bracketed names, other routes);
//                       whatever the plain-HTTP port admits must, as the app's own query parser
//                       (querystring, express 'simple') reads it, be GET/HEAD of an iPXE route,
//                       and for the files route name exactly one file: `ipxe-script`.
//   PEM pairs           mutated certificate/key files (truncated, bytes flipped, blocks swapped,
//                       keys of another certificate, garbage) through loadTlsMaterial: it resolves
//                       or throws a TlsMaterialError; what it accepts has a key that really
//                       belongs to the leaf (checked independently by signing and verifying).
//   hostile handshakes  random bytes, TLS record headers with random bodies, and a real ClientHello
//                       cut or flipped at random, sent to a real HTTPS listener (short limits): every
//                       such connection is closed within the bound, and a well-behaved client is
//                       answered after each batch.
// A crash is any other exception, or a good client that gets no answer. A hang is a connection
// still open past its bound. A wrong acceptance is an admitted target or pair the oracle refuses.
import { X509Certificate, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import querystring from 'node:querystring';
import tls from 'node:tls';
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LimitedServer, createLimitedServer } from '../../src/http/transport/listener-limits.js';
import { plainHttpRefusal } from '../../src/http/face/plain-route-policy.js';
import {
  makeCa,
  makeLeaf,
  type TestCa,
  type TestLeaf,
} from '../../src/http/transport/tls/test-support/certificates.js';
import { TlsMaterialError, loadTlsMaterial } from '../../src/http/transport/tls/tls-material.js';
import { createLogger } from '../../src/logger.js';
import { FUZZ_SEED, fuzzParameters, fuzzRuns } from './support/budget.js';
import { recordFigures } from './support/figures.js';

const ID = '0b0c2f5e-7c8d-4e6f-9a1b-2c3d4e5f6a7b';
/** A hostile connection must be closed within this (handshake timeout 400 ms, plus a loaded machine). */
const CLOSE_BOUND_MS = 10_000;
const BATCH = 10;

const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0, dataLost: 0 };
const problems: string[] = [];
let dir: string;
let ca: TestCa;
let leaves: TestLeaf[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'fuzz-tls-'));
  ca = makeCa(dir, 'fuzz CA');
  leaves = [makeLeaf(dir, ca, 'one'), makeLeaf(dir, ca, 'two')];
});
afterAll(async () => {
  recordFigures({
    category: 'tls',
    ...figures,
    notes:
      'plain-port route policy vs querystring, mutated PEM pairs vs an independent key check, hostile bytes on a real HTTPS listener' +
      (problems.length ? `; first problems: ${problems.slice(0, 3).join(' | ')}` : ''),
  });
  await rm(dir, { recursive: true, force: true });
});

// ---- plain-route policy -------------------------------------------------------------------

const FILES = `/api/assisted-install/v2/infra-envs/${ID}/downloads/files`;
const pathArb = fc.oneof(
  fc.constantFrom(
    '/live',
    '/health',
    '/metrics',
    '/boot-artifacts/kernel',
    '/boot-artifacts/rootfs',
    `/images/${ID}/pxe-initrd`,
    `/images/${ID}`,
    `/byid/${ID}/4.17/x86_64/full.iso`,
    FILES,
    `${FILES}-presigned`,
  ),
  fc
    .array(
      fc.constantFrom(
        'boot-artifacts',
        'images',
        ID,
        'pxe-initrd',
        '..',
        '.',
        '%2e%2e',
        '%2F',
        'api',
        'live',
        '',
        'downloads',
        'files',
      ),
      {
        maxLength: 7,
      },
    )
    .map((parts) => `/${parts.join('/')}`),
);
const queryPart = fc.oneof(
  fc.constantFrom(
    'file_name=ipxe-script',
    'file_name=discovery.ign',
    'file_name=static-network-config',
    'file%5Fname=discovery.ign',
    'file_name[]=discovery.ign',
    'file_name[0]=discovery.ign',
    'FILE_NAME=discovery.ign',
    'file_name=ipxe%2Dscript',
    'file_name=ipxe-script%00',
    'file_name',
    'ipxe_script_type=boot-order-control',
    'mac=52:54:00:12:34:56',
    'api_key=x',
    'arch=x86_64',
    '',
    '&',
    '=',
  ),
  fc.string({ maxLength: 12 }),
);
const targetArb = fc.record({
  method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'),
  path: pathArb,
  query: fc.option(
    fc.array(queryPart, { maxLength: 5 }).map((parts) => parts.join('&')),
    { nil: undefined },
  ),
});

/** What the app would serve for an admitted target (the oracle: the app's own parser, not the policy's). */
function admittedSafely(method: string, target: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const q = target.indexOf('?');
  const pathname = q < 0 ? target : target.slice(0, q);
  // /boot-artifacts/<name> is iPXE's whatever the name (the route itself answers unknown names with 400).
  if (pathname === '/live' || pathname === `/images/${ID}/pxe-initrd` || /^\/boot-artifacts\/[^/.%]+$/.test(pathname))
    return true;
  if (pathname !== FILES) return false;
  const parsed = querystring.parse(q < 0 ? '' : target.slice(q + 1));
  return parsed.file_name === 'ipxe-script';
}

it('plain-route policy: nothing outside the iPXE routes and files is admitted', () => {
  const before = problems.length;
  fc.assert(
    fc.property(targetArb, ({ method, path: p, query }) => {
      figures.cases++;
      const target = query === undefined ? p : `${p}?${query}`;
      let refusal;
      try {
        refusal = plainHttpRefusal(method, target, 'ipxe', 'https://boot.example:8443');
      } catch (err) {
        figures.crashes++;
        problems.push(`policy threw on ${method} ${target}: ${String(err)}`);
        return;
      }
      if (refusal === undefined && !admittedSafely(method, target)) {
        figures.wrongAcceptances++;
        problems.push(`admitted ${method} ${target}`);
      }
    }),
    fuzzParameters(3000),
  );
  expect(problems.slice(before)).toEqual([]);
});

// ---- PEM pairs ----------------------------------------------------------------------------

type Mutation =
  | { kind: 'truncate'; file: 'cert' | 'key'; at: number }
  | { kind: 'flip'; file: 'cert' | 'key'; at: number; xor: number }
  | { kind: 'other-key' }
  | { kind: 'swap-blocks' }
  | { kind: 'garbage'; file: 'cert' | 'key'; bytes: Uint8Array }
  | { kind: 'none' };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant('truncate' as const),
    file: fc.constantFrom('cert' as const, 'key' as const),
    at: fc.nat(4000),
  }),
  fc.record({
    kind: fc.constant('flip' as const),
    file: fc.constantFrom('cert' as const, 'key' as const),
    at: fc.nat(4000),
    xor: fc.integer({ min: 1, max: 255 }),
  }),
  fc.constant({ kind: 'other-key' as const }),
  fc.constant({ kind: 'swap-blocks' as const }),
  fc.record({
    kind: fc.constant('garbage' as const),
    file: fc.constantFrom('cert' as const, 'key' as const),
    bytes: fc.uint8Array({ maxLength: 3000 }),
  }),
  fc.constant({ kind: 'none' as const }),
);

function mutate(m: Mutation, leaf: TestLeaf, other: TestLeaf): { cert: Buffer; key: Buffer } {
  const cert = Buffer.from(leaf.chainPem);
  const key = Buffer.from(leaf.keyPem);
  const pick = (file: 'cert' | 'key') => (file === 'cert' ? cert : key);
  switch (m.kind) {
    case 'truncate': {
      const b = pick(m.file);
      const cut = b.subarray(0, m.at % (b.length + 1));
      return m.file === 'cert' ? { cert: cut, key } : { cert, key: cut };
    }
    case 'flip': {
      const b = Buffer.from(pick(m.file));
      const i = m.at % b.length;
      b[i] = b[i]! ^ m.xor;
      return m.file === 'cert' ? { cert: b, key } : { cert, key: b };
    }
    case 'other-key':
      return { cert, key: Buffer.from(other.keyPem) };
    case 'swap-blocks': {
      const blocks = leaf.chainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
      return { cert: Buffer.from([...blocks].reverse().join('')), key };
    }
    case 'garbage':
      return m.file === 'cert' ? { cert: Buffer.from(m.bytes), key } : { cert, key: Buffer.from(m.bytes) };
    case 'none':
      return { cert, key };
  }
}

/** Independent check: a signature made with the key verifies with the leaf's public key. */
function keyBelongsToLeaf(certPem: Buffer, keyPem: Buffer): boolean {
  try {
    const leaf = new X509Certificate(
      certPem.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0],
    );
    const key = createPrivateKey(keyPem);
    const data = Buffer.from('bootsmith tls fuzz');
    return verify(
      null,
      data,
      createPublicKey(leaf.publicKey.export({ type: 'spki', format: 'pem' })),
      sign(null, data, key),
    );
  } catch {
    return false;
  }
}

it('PEM pairs: mutated files are refused with a TlsMaterialError, and nothing mismatched is accepted', async () => {
  const before = problems.length;
  await fc.assert(
    fc.asyncProperty(mutationArb, fc.boolean(), async (m, second) => {
      figures.cases++;
      const leaf = second ? leaves[1]! : leaves[0]!;
      const other = second ? leaves[0]! : leaves[1]!;
      const { cert, key } = mutate(m, leaf, other);
      const certFile = path.join(dir, 'case.crt');
      const keyFile = path.join(dir, 'case.key');
      await writeFile(certFile, cert);
      await writeFile(keyFile, key);
      try {
        const material = await loadTlsMaterial({ certFile, keyFile, minVersion: 'TLSv1.2' });
        if (!keyBelongsToLeaf(cert, key)) {
          figures.wrongAcceptances++;
          problems.push(`accepted a mismatched pair (${m.kind})`);
        }
        expect(material.info.fingerprint256).toMatch(/^[0-9A-F:]+$/);
      } catch (err) {
        if (!(err instanceof TlsMaterialError)) {
          figures.crashes++;
          problems.push(`${m.kind}: ${String(err)}`);
        }
      }
    }),
    fuzzParameters(150),
  );
  expect(problems.slice(before)).toEqual([]);
});

// ---- hostile handshakes -------------------------------------------------------------------

async function realClientHello(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sink = net.createServer((s) => {
      s.once('data', (d: Buffer) => {
        resolve(d);
        s.destroy();
        sink.close();
      });
    });
    sink.listen(0, '127.0.0.1', () => {
      const c = tls.connect({ port: (sink.address() as AddressInfo).port, host: '127.0.0.1', servername: 'localhost' });
      c.on('error', () => undefined);
    });
    sink.on('error', reject);
  });
}

it('hostile handshakes: every connection is closed within its bound; good clients keep being answered', async () => {
  const before = problems.length;
  const hello = await realClientHello();
  const material = await loadTlsMaterial({
    certFile: leaves[0]!.certFile,
    keyFile: leaves[0]!.keyFile,
    minVersion: 'TLSv1.2',
  });
  const limits = {
    headerTimeoutMs: 400,
    bodyTimeoutMs: 400,
    idleTimeoutMs: 400,
    sendTimeoutMs: 800,
    maxIdlePerAddress: 64,
    maxConnections: undefined,
  };
  const listener: LimitedServer = await createLimitedServer(
    limits,
    { logger: createLogger('silent'), registry: new Registry() },
    (_req, res) => res.end('ok'),
    material,
  );
  await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', () => resolve()));
  const port = (listener.server.address() as AddressInfo).port;
  const payloadArb = fc.oneof(
    fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b)),
    fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.concat([Buffer.from([0x16, 0x03, 0x01, 0x01, 0x00]), b])),
    fc.nat(hello.length).map((n) => hello.subarray(0, n)),
    fc.tuple(fc.nat(hello.length - 1), fc.integer({ min: 1, max: 255 })).map(([i, x]) => {
      const b = Buffer.from(hello);
      b[i] = b[i]! ^ x;
      return b;
    }),
    fc.constant(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')),
  );
  const good = () =>
    new Promise<string>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port, path: '/', ca: ca.certPem, agent: false, servername: 'localhost' }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        })
        .on('error', reject);
    });
  const hostile = (payload: Buffer) =>
    new Promise<'closed' | 'hung'>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => s.write(payload));
      s.on('error', () => undefined);
      s.on('data', () => undefined);
      const timer = setTimeout(() => {
        s.destroy();
        resolve('hung');
      }, CLOSE_BOUND_MS);
      s.once('close', () => {
        clearTimeout(timer);
        resolve('closed');
      });
    });
  try {
    const batches = Math.ceil(fuzzRuns(60) / BATCH);
    const samples = fc.sample(fc.array(payloadArb, { minLength: BATCH, maxLength: BATCH }), {
      numRuns: batches,
      seed: FUZZ_SEED,
    });
    for (const batch of samples) {
      const outcomes = await Promise.all(batch.map(hostile));
      figures.cases += batch.length;
      const hung = outcomes.filter((o) => o === 'hung').length;
      figures.hangs += hung;
      if (hung) problems.push(`${hung} hostile connection(s) still open after ${CLOSE_BOUND_MS} ms`);
      try {
        if ((await good()) !== 'ok') throw new Error('wrong body');
      } catch (err) {
        figures.crashes++;
        problems.push(`a good client after a batch: ${String(err)}`);
      }
    }
  } finally {
    listener.server.closeAllConnections();
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  }
  expect(problems.slice(before)).toEqual([]);
});
