// ImageLoader (the image store's write side) as a table: each row one configured image — a local
// ISO used in place or one served by a loopback mirror that behaves in some way — and the state
// the loader must publish into the catalog once loadAll() settles: ready (with the bytes it now
// holds in the cache and the mirror requests it took), or failed with its reason and whether a
// retry is scheduled (the slow schedule; fast retries happen within the load). Real parts
// throughout: the fixture ISO, a real cache directory, HTTP over loopback, the real catalog and
// cache budget; no child process (the fixture has no miniso.dat: no minimal ISO rebuilt with xz).
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createLogger } from '../../logger.js';
import { CacheBudget } from '../cache/cache-budget.js';
import { CacheFiles, cacheName, imagesDirOf } from '../cache/cache-layout.js';
import { Quarantine } from '../cache/quarantine.js';
import { StoreCatalog } from '../catalog/store-catalog.js';
import { parseOsImages } from '../os-images-config.js';
import { defaultImageStoreSettings } from '../store-settings.js';
import { type Behaviour, IsoServer } from '../test-support/iso-server.js';
import { ImageLoader } from './image-loader.js';
import { newSlot } from './image-slot.js';
import { rebuildMinimalIsoFromMinisoDat } from './rebuild-minimal-iso.js';
import { SharedContent } from './shared-content.js';
import type { RetryPolicy } from '../load-failure/retry-policy.js';

const FIXTURE = path.resolve(import.meta.dirname, '../../../fixtures/iso/x86_64.iso');
const ISO = readFileSync(FIXTURE);
const SHA256 = createHash('sha256').update(ISO).digest('hex');
const NOT_AN_ISO = Buffer.alloc(64 * 1024, 0x5a);
const shaMismatch = (configured: string): RegExp =>
  new RegExp(`^4\\.16 x86_64: sha256 is ${SHA256} but the configuration says ${configured}$`);
const NO_ISO =
  /^4\.16 x86_64: not a usable CoreOS live ISO: reading primary volume descriptor of .*: not an ISO 9660 image: no ISO 9660 volume descriptor/;
/** Fast attempts in one load, a short backoff between them; a slow retry far beyond the test. */
const POLICY: RetryPolicy = { attempts: 2, baseDelayMs: 10, slowDelayMs: 60_000, slowMaxDelayMs: 600_000 };

type Source =
  { local: 'fixture' | 'missing' | 'not an ISO' } | { mirror: 'fixture' | 'not an ISO'; behaviour?: Behaviour };

interface Expected {
  state: 'ready' | 'failed';
  /** Of a failed image. */
  reason?: RegExp;
  /** Whether a failed image has a retry scheduled (retryAt = failure time + POLICY.slowDelayMs). */
  retryScheduled?: boolean;
  /** Bytes the image holds in the cache afterwards. */
  diskBytes: number;
  /** Requests the mirror got (undefined for local sources). */
  mirrorRequests?: number;
  /** `.iso` files in the cache directory afterwards. */
  cachedIsos: number;
}

interface Row {
  name: string;
  source: Source;
  sha256?: string;
  cacheMaxBytes?: number;
  expected: Expected;
}

const ROWS: Row[] = [
  {
    name: 'a local ISO: used in place, holds no cache bytes',
    source: { local: 'fixture' },
    expected: { state: 'ready', diskBytes: 0, cachedIsos: 0 },
  },
  {
    name: 'a local ISO with its sha256',
    source: { local: 'fixture' },
    sha256: SHA256,
    expected: { state: 'ready', diskBytes: 0, cachedIsos: 0 },
  },
  {
    name: 'a local ISO whose sha256 does not match: never retried',
    source: { local: 'fixture' },
    sha256: '0'.repeat(64),
    expected: {
      state: 'failed',
      reason: shaMismatch('0'.repeat(64)),
      retryScheduled: false,
      diskBytes: 0,
      cachedIsos: 0,
    },
  },
  {
    name: 'a local path that does not exist: retried later',
    source: { local: 'missing' },
    expected: {
      state: 'failed',
      reason: /^4\.16 x86_64: cannot read \/.*\/local\.iso: ENOENT: no such file or directory/,
      retryScheduled: true,
      diskBytes: 0,
      cachedIsos: 0,
    },
  },
  {
    name: 'a local file that is no ISO: never retried',
    source: { local: 'not an ISO' },
    expected: { state: 'failed', reason: NO_ISO, retryScheduled: false, diskBytes: 0, cachedIsos: 0 },
  },
  {
    name: 'a mirror: downloaded into the cache in one request',
    source: { mirror: 'fixture' },
    expected: { state: 'ready', diskBytes: ISO.length, mirrorRequests: 1, cachedIsos: 1 },
  },
  {
    name: 'a mirror with the right sha256',
    source: { mirror: 'fixture' },
    sha256: SHA256,
    expected: { state: 'ready', diskBytes: ISO.length, mirrorRequests: 1, cachedIsos: 1 },
  },
  {
    name: 'a mirror that answers 503 once: retried at once within the load',
    source: { mirror: 'fixture', behaviour: { failFirst: [503] } },
    expected: { state: 'ready', diskBytes: ISO.length, mirrorRequests: 2, cachedIsos: 1 },
  },
  {
    name: 'a mirror that drops the connection part way: resumed with a Range request',
    source: { mirror: 'fixture', behaviour: { dropAfter: 300_000 } },
    expected: { state: 'ready', diskBytes: ISO.length, mirrorRequests: 2, cachedIsos: 1 },
  },
  {
    name: 'a mirror that keeps answering 503: fast attempts used up, then the slow schedule',
    source: { mirror: 'fixture', behaviour: { status: 503 } },
    expected: {
      state: 'failed',
      reason: /^http:\/\/127\.0\.0\.1:\d+\/row-\d+\.iso: the server answered HTTP 503$/,
      retryScheduled: true,
      diskBytes: 0,
      mirrorRequests: 2,
      cachedIsos: 0,
    },
  },
  {
    name: 'a mirror that answers 404: the slow schedule, no fast attempt',
    source: { mirror: 'fixture', behaviour: { status: 404 } },
    expected: {
      state: 'failed',
      reason: /^http:\/\/127\.0\.0\.1:\d+\/row-\d+\.iso: the server answered HTTP 404$/,
      retryScheduled: true,
      diskBytes: 0,
      mirrorRequests: 1,
      cachedIsos: 0,
    },
  },
  {
    name: 'a mirror serving something that is no ISO: never retried, nothing left in the cache',
    source: { mirror: 'not an ISO' },
    expected: {
      state: 'failed',
      reason: NO_ISO,
      retryScheduled: false,
      diskBytes: 0,
      mirrorRequests: 1,
      cachedIsos: 0,
    },
  },
  {
    name: 'a mirror whose bytes do not match the sha256: never retried, nothing left in the cache',
    source: { mirror: 'fixture' },
    sha256: 'f'.repeat(64),
    expected: {
      state: 'failed',
      reason: shaMismatch('f'.repeat(64)),
      retryScheduled: false,
      diskBytes: 0,
      mirrorRequests: 1,
      cachedIsos: 0,
    },
  },
  {
    name: 'a mirror image larger than IMAGE_CACHE_MAX_BYTES: never retried',
    source: { mirror: 'fixture' },
    cacheMaxBytes: ISO.length - 1,
    expected: {
      state: 'failed',
      reason: /^4\.16 x86_64 needs 1\.0 MiB, more than IMAGE_CACHE_MAX_BYTES \(1024 KiB\)$/,
      retryScheduled: false,
      diskBytes: 0,
      mirrorRequests: 1,
      cachedIsos: 0,
    },
  },
];

describe('ImageLoader: table', () => {
  const server = new IsoServer();
  const logger = createLogger('silent');
  let root: string;
  let n = 0;

  beforeAll(async () => {
    await server.start();
    root = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-image-loader-'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  /** Where the row's image comes from: a file under the row's directory, or a route on the mirror. */
  async function urlOf(source: Source, dir: string, route: string): Promise<string> {
    if ('local' in source) {
      const file = path.join(dir, 'local.iso');
      if (source.local === 'fixture') await copyFile(FIXTURE, file);
      if (source.local === 'not an ISO') await writeFile(file, NOT_AN_ISO);
      return file;
    }
    server.serve(route, source.mirror === 'fixture' ? ISO : NOT_AN_ISO, source.behaviour ?? {});
    return server.url(route);
  }

  it.each(ROWS.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const id = ++n;
    const dir = path.join(root, `row-${id}`);
    const route = `/row-${id}.iso`;
    const url = await urlOf(row.source, await mkdtemp(`${dir}-src-`), route);
    const config = parseOsImages(
      JSON.stringify([
        { openshift_version: '4.16', version: '416.94.1', url, ...(row.sha256 ? { sha256: row.sha256 } : {}) },
      ]),
      'OS_IMAGES',
    );
    expect(config.problems).toEqual([]);
    const settings = { ...defaultImageStoreSettings(), cacheMaxBytes: row.cacheMaxBytes };
    const cacheDir = imagesDirOf(dir);
    // The catalog's hooks reach the loader built below, as ManagedImageStore wires them.
    const catalog = new StoreCatalog(config.entries, [], {
      requested: (view) => loader.requested(view),
      served: (view) => loader.served(view),
    });
    const slots = catalog.slots.map((view) => newSlot(view, new CacheFiles(cacheDir, cacheName(view.entry))));
    const budget = new CacheBudget(slots, catalog, logger, {
      dir: cacheDir,
      maxBytes: settings.cacheMaxBytes,
      minIdleMs: 0,
      retireGraceMs: 0,
    });
    const loader = new ImageLoader(slots, catalog, budget, logger, {
      settings,
      policy: POLICY,
      metrics: undefined,
      progressLogIntervalMs: 60_000,
      rebuildMinimalIso: rebuildMinimalIsoFromMinisoDat,
      quarantine: new Quarantine(cacheDir, settings.integrity.quarantineKeep),
      writesAllowed: Promise.resolve(),
      shared: new SharedContent(slots),
    });
    try {
      const before = Date.now();
      await loader.loadAll();
      const after = Date.now();
      const status = catalog.slots[0]!.status;
      const e = row.expected;
      expect(status.state).toBe(e.state);
      if (status.state === 'failed') {
        expect(status.reason).toMatch(e.reason!);
        if (e.retryScheduled) {
          expect(status.retryAt).toBeGreaterThanOrEqual(before + POLICY.slowDelayMs);
          expect(status.retryAt).toBeLessThanOrEqual(after + POLICY.slowDelayMs);
        } else {
          expect(status.retryAt).toBeUndefined();
        }
      }
      if (status.state === 'ready') {
        expect(status.image.base.size).toBe(ISO.length);
        expect(status.image.minimalState).toEqual({ state: 'absent' });
        expect(catalog.slots[0]!.sha256).toBe(SHA256);
        expect(catalog.slots[0]!.integrity.state).toBe('verified');
      }
      expect(slots[0]!.diskBytes).toBe(e.diskBytes);
      if (e.mirrorRequests !== undefined) expect(server.hitsFor(route)).toHaveLength(e.mirrorRequests);
      const isos = (await readdir(cacheDir).catch(() => [] as string[])).filter((f) => f.endsWith('.iso'));
      expect(isos).toHaveLength(e.cachedIsos);
    } finally {
      await loader.close();
      budget.close();
    }
  });
});
