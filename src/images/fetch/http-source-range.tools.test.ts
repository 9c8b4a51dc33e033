// HttpSource.readRange against a loopback origin: exact closed ranges, a changed object refused
// through If-Range, an origin that ignores Range refused, and errors that name the range.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureBytes } from '../test-support/images.js';
import { IsoServer } from '../test-support/iso-server.js';
import { type HttpSettings, HttpSource } from './http-source.js';

const settings: HttpSettings = { headers: {}, ca: undefined, idleTimeoutMs: 5_000 };
const iso = fixtureBytes();

describe('HttpSource.readRange', () => {
  const server = new IsoServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  const signal = () => AbortSignal.timeout(10_000);

  it('reads exactly the asked bytes with a closed Range guarded by If-Range', async () => {
    server.serve('/r.iso', iso, { etag: '"v1"' });
    const source = new HttpSource(server.url('/r.iso'), settings);
    expect((await source.readRange(1000, 1999, '"v1"', signal())).equals(iso.subarray(1000, 2000))).toBe(true);
    expect((await source.readRange(iso.length - 1, iso.length - 1, undefined, signal()))[0]).toBe(iso[iso.length - 1]);
    const hit = server.hitsFor('/r.iso')[0]!;
    expect(hit.range).toBe('bytes=1000-1999');
    expect(hit.ifRange).toBe('"v1"');
  });

  it('refuses an object that changed since the download started, and an origin that ignores Range', async () => {
    server.serve('/changed.iso', iso, { etag: '"v2"' });
    const changed = new HttpSource(server.url('/changed.iso'), settings);
    await expect(changed.readRange(0, 99, '"v1"', signal())).rejects.toThrow(/bytes 0-99: the source no longer holds/);
    server.serve('/norange.iso', iso, { ignoreRange: true });
    const noRange = new HttpSource(server.url('/norange.iso'), settings);
    await expect(noRange.readRange(0, 99, undefined, signal())).rejects.toThrow(/answered HTTP 200/);
    server.serve('/gone.iso', iso, { status: 404 });
    await expect(
      new HttpSource(server.url('/gone.iso'), settings).readRange(0, 99, undefined, signal()),
    ).rejects.toThrow(/HTTP 404/);
  });
});
