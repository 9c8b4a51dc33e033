// IMAGE_SERVE_WHILE_DOWNLOADING on real parts: a loopback origin that sends the whole ISO slowly
// (ranged reads at once), a real cache directory. The image is served (layout parsed, bytes
// right, identity from the configured sha256) before its download finished, then switches to the
// verified file; a sha256 mismatch stops serving it and /health says why.
import { describe, expect, it } from 'vitest';
import { readVolumeDate } from '../../iso/volume-date.js';
import { defaultImageStoreSettings } from '../store-settings.js';
import { FIXTURE_ISO, entry, fixtureBytes, sha256 } from '../test-support/images.js';
import { storeHarness } from '../test-support/store-harness.js';
import { waitFor } from '../test-support/wait.js';

const iso = fixtureBytes();
const ISO_SHA = sha256(iso);
/** The whole download takes ~64 × 60 ms: long enough to be caught serving in the middle. */
const SLOW = { chunkBytes: 16 * 1024, delayMs: 60, closedRangesFast: true };
const settings = { ...defaultImageStoreSettings(), serveWhileDownloading: true };

describe('serving while downloading', () => {
  const { server, newDataDir, imageStore } = storeHarness();

  it('serves the right bytes before the download finished, then switches to the verified file', async () => {
    server.serve('/swd.iso', iso, SLOW);
    const r = imageStore([entry('4.17', server.url('/swd.iso'), { sha256: ISO_SHA })], newDataDir(), { settings });
    const loaded = r.loadAll();

    const early = await waitFor(() => {
      const h = r.health().images[0]!;
      return h.state === 'ready' && h.serving_while_downloading ? h : undefined;
    }, 'the image served while downloading');
    expect(early.serving_while_downloading!.verified).toBe(false);
    expect(early.serving_while_downloading!.local_bytes).toBeLessThan(iso.length);
    const provisional = r.resolve('4.17', 'x86_64');
    expect(provisional.unverified).toBeDefined();
    expect(provisional.base.identity).toBe(`sha256:${ISO_SHA}`);
    expect(provisional.base.size).toBe(iso.length);
    expect(provisional.base.mtime.getTime()).toBe((await readVolumeDate(FIXTURE_ISO))!.getTime());
    // the tail is not local yet: it comes from the origin with closed ranges
    const tail = await provisional.base.readExactly(iso.length - 300_000, 300_000);
    expect(tail.equals(iso.subarray(iso.length - 300_000))).toBe(true);
    expect(server.hitsFor('/swd.iso').some((h) => /^bytes=\d+-\d+$/.test(h.range ?? ''))).toBe(true);
    expect((await provisional.base.readExactly(0, iso.length)).equals(iso)).toBe(true);

    await loaded;
    const verified = r.resolve('4.17', 'x86_64');
    expect(verified.unverified).toBeUndefined();
    expect(verified.base).not.toBe(provisional.base);
    expect(verified.base.identity).toBe(provisional.base.identity); // the ETag does not change at the switch
    expect(verified.base.mtime.getTime()).toBe(provisional.base.mtime.getTime());
    expect(verified.manifest).toEqual(provisional.manifest);
    expect(r.health().images[0]!.serving_while_downloading).toBeUndefined();
    // streams that started on the provisional file can still finish
    expect((await provisional.base.readExactly(0, 4096)).equals(iso.subarray(0, 4096))).toBe(true);
  });

  it('stops serving an image whose finished download has the wrong sha256, and says so', async () => {
    server.serve('/bad.iso', iso, SLOW);
    const wrong = 'ab'.repeat(32);
    const r = imageStore([entry('4.17', server.url('/bad.iso'), { sha256: wrong })], newDataDir(), { settings });
    const loaded = r.loadAll();
    await waitFor(() => r.health().images[0]!.serving_while_downloading, 'the image served while downloading');
    const provisional = r.resolve('4.17', 'x86_64');
    expect(provisional.base.identity).toBe(`sha256:${wrong}`);
    await loaded;
    const h = r.health().images[0]!;
    expect(h.state).toBe('failed');
    expect(h.reason).toMatch(new RegExp(`sha256 is ${ISO_SHA} but the configuration says ${wrong}`));
    expect(() => r.resolve('4.17', 'x86_64')).toThrow(/sha256/);
    await expect(provisional.base.readExactly(0, 2048)).rejects.toThrow(/serving stopped: .*sha256/);
  });

  it('keeps verified-first without the setting: nothing is served while downloading', async () => {
    server.serve('/plain.iso', iso, SLOW);
    const r = imageStore([entry('4.17', server.url('/plain.iso'), { sha256: ISO_SHA })], newDataDir());
    const loaded = r.loadAll();
    await waitFor(() => (r.health().images[0]!.bytes ?? 0) > 0 && r.health().images[0], 'download progress');
    expect(r.health().images[0]!.state).toBe('downloading');
    expect(() => r.resolve('4.17', 'x86_64')).toThrow(/not ready yet/);
    await loaded;
    expect(server.hitsFor('/plain.iso').every((h) => !/^bytes=\d+-\d+$/.test(h.range ?? ''))).toBe(true);
  });
});
