import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../errors.js';
import { statusForError } from '../../error-status.js';
import { Metrics } from '../../metrics.js';
import { FakeAssistedService, type Seen } from '../../../test/support/fake-assisted-service.js';
import { CachedIgnitionSource } from '../cached-ignition-source.js';
import { RemoteIgnitionSource, parseKernelArguments } from './remote-source.js';

const ID = '6f1d7e2a-3b4c-4d5e-8f90-a1b2c3d4e5f6';
const IGNITION = '{"ignition":{"version":"3.1.0"}}';

describe('RemoteIgnitionSource', () => {
  const upstream = new FakeAssistedService(ID, IGNITION);
  beforeAll(() => upstream.start());
  afterAll(() => upstream.stop());
  afterEach(() => {
    upstream.seen = [];
    upstream.status = 200;
    upstream.minimalInitrd = null;
    upstream.delayMs = 0;
  });

  it('fetches Ignition, kernel arguments and the minimal initrd', async () => {
    upstream.minimalInitrd = Buffer.from('initrd-bytes');
    const source = new RemoteIgnitionSource({ baseUrl: upstream.url });
    const result = await source.discoveryCustomization({
      infraEnvId: ID,
      imageType: 'minimal-iso',
      credential: { kind: 'none' },
    });
    expect(result.ignition.toString()).toBe(IGNITION);
    expect(result.kernelArguments).toEqual(['console=ttyS0', 'rd.debug']);
    expect(result.extraInitrd?.toString()).toBe('initrd-bytes');
    expect(result.lastModified?.toISOString()).toBe('2026-11-03T10:00:00.000Z');
    const ignitionCall = upstream.seen.find((s) => s.path.endsWith('/downloads/files'));
    expect(ignitionCall?.query.get('discovery_iso_type')).toBe('minimal-iso');
  });

  it('treats 204 from minimal-initrd as no extra initrd', async () => {
    const source = new RemoteIgnitionSource({ baseUrl: upstream.url });
    const result = await source.discoveryCustomization({
      infraEnvId: ID,
      imageType: 'full-iso',
      credential: { kind: 'none' },
    });
    expect(result.extraInitrd).toBeUndefined();
  });

  it.each([
    [{ kind: 'api-key', value: 'k1' } as const, (s: Seen) => s.query.get('api_key') === 'k1'],
    [{ kind: 'image-token', value: 't1' } as const, (s: Seen) => s.headers['image-token'] === 't1'],
    [{ kind: 'authorization', value: 'Bearer b1' } as const, (s: Seen) => s.headers.authorization === 'Bearer b1'],
  ])('forwards the %o credential on every call', async (credential, check) => {
    const source = new RemoteIgnitionSource({ baseUrl: upstream.url });
    await source.discoveryCustomization({ infraEnvId: ID, imageType: 'full-iso', credential });
    expect(upstream.seen).toHaveLength(3);
    for (const s of upstream.seen) expect(check(s)).toBe(true);
  });

  it.each([401, 403, 404])('passes upstream %i through as that status', async (status) => {
    upstream.status = status;
    const source = new RemoteIgnitionSource({ baseUrl: upstream.url });
    const error = await source
      .discoveryCustomization({ infraEnvId: ID, imageType: 'full-iso', credential: { kind: 'none' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(statusForError(error)).toBe(status);
  });

  it('maps upstream 500 to 502', async () => {
    upstream.status = 500;
    const source = new RemoteIgnitionSource({ baseUrl: upstream.url });
    const error = await source
      .discoveryCustomization({ infraEnvId: ID, imageType: 'full-iso', credential: { kind: 'none' } })
      .catch((e: unknown) => e);
    expect(statusForError(error)).toBe(502);
    expect((error as Error).message).toMatch(/answered 500.*nope/);
  });

  it('maps an unreachable upstream to 502 with a clear message', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const source = new RemoteIgnitionSource({ baseUrl: `http://127.0.0.1:${port}` });
    const error = await source
      .discoveryCustomization({ infraEnvId: ID, imageType: 'full-iso', credential: { kind: 'none' } })
      .catch((e: unknown) => e);
    expect(statusForError(error)).toBe(502);
    expect((error as Error).message).toMatch(/unreachable.*ECONNREFUSED/);
  });

  it('times out a hanging upstream', async () => {
    upstream.delayMs = 2000;
    const source = new RemoteIgnitionSource({ baseUrl: upstream.url, timeoutMs: 100 });
    const error = await source
      .discoveryCustomization({ infraEnvId: ID, imageType: 'full-iso', credential: { kind: 'none' } })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/no answer within 100 ms/);
  });

  it('rejects ids that are not UUIDs before calling upstream', async () => {
    const source = new RemoteIgnitionSource({ baseUrl: upstream.url });
    const error = await source
      .discoveryCustomization({ infraEnvId: '../../x', imageType: 'full-iso', credential: { kind: 'none' } })
      .catch((e: unknown) => e);
    expect(statusForError(error)).toBe(400);
    expect(upstream.seen).toHaveLength(0);
  });

  it('behind the cache: 200 concurrent and sequential lookups cost one upstream round', async () => {
    upstream.delayMs = 20;
    const metrics = new Metrics({ defaultMetrics: false });
    const cached = new CachedIgnitionSource(new RemoteIgnitionSource({ baseUrl: upstream.url, metrics }), {
      ttlMs: 60_000,
      metrics,
    });
    const request = {
      infraEnvId: ID,
      imageType: 'full-iso' as const,
      credential: { kind: 'api-key' as const, value: 'k' },
    };
    await Promise.all(Array.from({ length: 100 }, () => cached.discoveryCustomization(request)));
    for (let i = 0; i < 100; i++) await cached.discoveryCustomization(request);
    expect(upstream.seen).toHaveLength(3);
    const lookups = await metrics.ignitionLookups.get();
    const count = (result: string) => lookups.values.find((v) => v.labels.result === result)?.value ?? 0;
    expect(count('miss')).toBe(1);
    expect(count('hit')).toBe(199);
    // another credential is another cache entry: it must be checked upstream on its own
    await cached.discoveryCustomization({ ...request, credential: { kind: 'api-key', value: 'other' } });
    expect(upstream.seen).toHaveLength(6);
  });

  it('does not cache failures', async () => {
    const cached = new CachedIgnitionSource(new RemoteIgnitionSource({ baseUrl: upstream.url }), { ttlMs: 60_000 });
    const request = { infraEnvId: ID, imageType: 'full-iso' as const, credential: { kind: 'none' as const } };
    upstream.status = 401;
    await expect(cached.discoveryCustomization(request)).rejects.toThrow(/401/);
    upstream.status = 200;
    await expect(cached.discoveryCustomization(request)).resolves.toBeDefined();
  });
});

describe('parseKernelArguments', () => {
  const parse = (value: unknown) => parseKernelArguments(Buffer.from(JSON.stringify({ kernel_arguments: value })), ID);
  it('splits append operations into words and ignores absent values', () => {
    expect(
      parse(
        JSON.stringify([
          { operation: 'append', value: 'a=1  b' },
          { operation: 'append', value: 'c' },
        ]),
      ),
    ).toEqual(['a=1', 'b', 'c']);
    expect(parse(null)).toEqual([]);
    expect(parse('')).toEqual([]);
  });
  it('rejects operations other than append and malformed JSON', () => {
    expect(() => parse(JSON.stringify([{ operation: 'delete', value: 'a' }]))).toThrow(/only append/);
    expect(() => parse('[oops')).toThrow(/not a JSON list/);
  });
});
