// CacheBudget.reserve as a table: each row the images the cache holds (state, bytes, when last
// served or made ready, used in place, busy loading), the unreferenced files, IMAGE_CACHE_MAX_BYTES
// and the minimum idle time, and a newcomer asking for room; the answer is what is evicted (in
// order) and what the newcomer then holds, or the ImageLoadError (retry class and message) that
// leaves everything as it was. Real catalog, slots, records and open fixture files; the
// unreferenced files are real files in a temporary cache directory. The end-to-end behaviour
// through the whole store (downloads, on-demand fetches) is cache-budget-store.tools.test.ts.
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { createLogger } from '../../logger.js';
import type { LiveManifest } from '../../iso/manifest.js';
import { parseLiveIso } from '../../iso/live-layout.js';
import { BaseFile } from '../../splice/base-file.js';
import { StoreCatalog } from '../catalog/store-catalog.js';
import { newSlot, type ImageSlot } from '../loader/image-slot.js';
import { ImageLoadError, type RetryClass } from '../load-failure/load-error.js';
import { parseOsImages } from '../os-images-config.js';
import { CacheBudget } from './cache-budget.js';
import { CacheFiles, cacheName, contentIsoName } from './cache-layout.js';
import { newRecord } from './cache-record.js';
import { QUARANTINE_DIR_NAME } from './quarantine.js';

const FIXTURE = path.resolve(import.meta.dirname, '../../../fixtures/iso/x86_64.iso');
const MiB = 2 ** 20;
const MINUTE = 60_000;
const MIN_IDLE_MS = 15 * MINUTE;
const VERSIONS = ['4.10', '4.11', '4.12'] as const;
/** The image asking for room in every row. */
const NEWCOMER = '4.13';

type Version = (typeof VERSIONS)[number];

interface Held {
  state: 'ready' | 'pending' | 'failed';
  mib: number;
  /** Minutes since it was last served; undefined: never served. */
  servedAgo?: number;
  /** Minutes since it became ready. */
  readyAgo?: number;
  inPlace?: boolean;
  /** A load job is running for it. */
  busy?: boolean;
}

type Outcome =
  { evicted: Array<Version | `file:${string}`>; newcomerMib: number } | { error: RetryClass; message: string };

interface Row {
  name: string;
  maxMib: number | undefined;
  held: Partial<Record<Version, Held>>;
  /** Unreferenced files (quarantined or of images no longer configured), MiB each. */
  orphans?: Record<string, number>;
  /** What the newcomer already holds (a resumed download) and asks for. */
  newcomerHoldsMib?: number;
  reserveMib: number;
  outcome: Outcome;
}

const ready = (mib: number, servedAgo: number | undefined, extra: Partial<Held> = {}): Held => ({
  state: 'ready',
  mib,
  readyAgo: 120,
  ...(servedAgo !== undefined ? { servedAgo } : {}),
  ...extra,
});

const ROWS: Row[] = [
  {
    name: 'no budget: room for anything, nothing evicted',
    maxMib: undefined,
    held: { '4.10': ready(400, 60) },
    reserveMib: 900,
    outcome: { evicted: [], newcomerMib: 900 },
  },
  {
    name: 'room left: nothing evicted',
    maxMib: 10,
    held: { '4.10': ready(3, 60) },
    reserveMib: 5,
    outcome: { evicted: [], newcomerMib: 5 },
  },
  {
    name: 'exactly full fits',
    maxMib: 10,
    held: { '4.10': ready(5, 60) },
    reserveMib: 5,
    outcome: { evicted: [], newcomerMib: 5 },
  },
  {
    name: 'over: the least recently served goes',
    maxMib: 10,
    held: { '4.10': ready(4, 60), '4.11': ready(4, 30) },
    reserveMib: 3,
    outcome: { evicted: ['4.10'], newcomerMib: 3 },
  },
  {
    name: 'never served: its ready time counts',
    maxMib: 10,
    held: { '4.10': ready(4, 20), '4.11': ready(4, undefined, { readyAgo: 90 }) },
    reserveMib: 3,
    outcome: { evicted: ['4.11'], newcomerMib: 3 },
  },
  {
    name: 'as many as needed, oldest first',
    maxMib: 10,
    held: { '4.10': ready(3, 40), '4.11': ready(3, 50), '4.12': ready(3, 30) },
    reserveMib: 6,
    outcome: { evicted: ['4.11', '4.10'], newcomerMib: 6 },
  },
  {
    name: 'unreferenced files go before any image',
    maxMib: 10,
    held: { '4.10': ready(4, 600) },
    orphans: { 'old-4.9.iso': 3 },
    reserveMib: 5,
    outcome: { evicted: ['file:old-4.9.iso'], newcomerMib: 5 },
  },
  {
    name: 'quarantined files count as unreferenced',
    maxMib: 10,
    held: { '4.10': ready(4, 600) },
    orphans: { [`${QUARANTINE_DIR_NAME}/4.10-x86_64.iso.bad`]: 4 },
    reserveMib: 5,
    outcome: { evicted: [`file:${QUARANTINE_DIR_NAME}/4.10-x86_64.iso.bad`], newcomerMib: 5 },
  },
  {
    name: 'an image served within the idle time is kept; an older one goes',
    maxMib: 10,
    held: { '4.10': ready(4, 1), '4.11': ready(4, 20) },
    reserveMib: 3,
    outcome: { evicted: ['4.11'], newcomerMib: 3 },
  },
  {
    name: 'every image served within the idle time: the newcomer waits until requested',
    maxMib: 10,
    held: { '4.10': ready(4, 1), '4.11': ready(4, 14) },
    reserveMib: 3,
    outcome: {
      error: 'on-demand',
      message:
        'not cached: IMAGE_CACHE_MAX_BYTES (10 MiB) is short by 1.0 MiB for 3.0 MiB, and images served in the last 15m00s are kept',
    },
  },
  {
    name: 'evicting would not make enough room: nothing is evicted',
    maxMib: 10,
    held: { '4.10': ready(4, 1), '4.11': ready(4, 60) },
    reserveMib: 7,
    outcome: {
      error: 'on-demand',
      message:
        'not cached: IMAGE_CACHE_MAX_BYTES (10 MiB) is short by 1.0 MiB for 7.0 MiB, and images served in the last 15m00s are kept',
    },
  },
  {
    name: 'an image used in place is never evicted (its bytes: its minimal ISO)',
    maxMib: 10,
    held: { '4.10': ready(4, 600, { inPlace: true }) },
    reserveMib: 7,
    outcome: {
      error: 'on-demand',
      message:
        'not cached: IMAGE_CACHE_MAX_BYTES (10 MiB) is short by 1.0 MiB for 7.0 MiB, and images served in the last 15m00s are kept',
    },
  },
  {
    name: 'an image being loaded is never evicted',
    maxMib: 10,
    held: { '4.10': ready(4, 600, { busy: true }), '4.11': ready(4, 300) },
    reserveMib: 3,
    outcome: { evicted: ['4.11'], newcomerMib: 3 },
  },
  {
    name: 'images not ready are never evicted',
    maxMib: 10,
    held: { '4.10': { state: 'pending', mib: 4 }, '4.11': { state: 'failed', mib: 4 } },
    reserveMib: 3,
    outcome: {
      error: 'on-demand',
      message:
        'not cached: IMAGE_CACHE_MAX_BYTES (10 MiB) is short by 1.0 MiB for 3.0 MiB, and images served in the last 15m00s are kept',
    },
  },
  {
    name: 'an image larger than the whole budget: never',
    maxMib: 10,
    held: { '4.10': ready(4, 600) },
    reserveMib: 11,
    outcome: { error: 'never', message: '4.13 x86_64 needs 11 MiB, more than IMAGE_CACHE_MAX_BYTES (10 MiB)' },
  },
  {
    name: 'what the newcomer already holds is not counted twice',
    maxMib: 10,
    held: { '4.10': ready(4, 600) },
    newcomerHoldsMib: 3,
    reserveMib: 6,
    outcome: { evicted: [], newcomerMib: 6 },
  },
  {
    name: 'asking for no more than it holds changes nothing, even over the budget',
    maxMib: 10,
    held: { '4.10': ready(8, 600) },
    newcomerHoldsMib: 6,
    reserveMib: 5,
    outcome: { evicted: [], newcomerMib: 6 },
  },
];

describe('CacheBudget.reserve: table', () => {
  const logger = createLogger('silent');
  let root: string;
  let manifest: LiveManifest;
  let n = 0;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-cache-budget-'));
    manifest = await parseLiveIso(FIXTURE);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  const exists = (file: string): Promise<boolean> =>
    stat(file).then(
      () => true,
      () => false,
    );

  it.each(ROWS.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const dir = path.join(root, `row-${++n}`);
    await mkdir(path.join(dir, QUARANTINE_DIR_NAME), { recursive: true });
    const config = parseOsImages(
      JSON.stringify(
        [...VERSIONS, NEWCOMER].map((v) => ({
          openshift_version: v,
          version: `${v}.0`,
          url: `https://mirror.example/${v}.iso`,
        })),
      ),
      'OS_IMAGES',
    );
    const catalog = new StoreCatalog(config.entries, [], { requested: () => undefined, served: () => undefined });
    const slots = catalog.slots.map((view) => newSlot(view, new CacheFiles(dir, cacheName(view.entry))));
    const byVersion = new Map(slots.map((s) => [s.view.entry.openshiftVersion, s]));
    const now = Date.now();
    const opened: BaseFile[] = [];
    for (const [version, held] of Object.entries(row.held) as [Version, Held][]) {
      const slot = byVersion.get(version)!;
      slot.diskBytes = held.mib * MiB;
      if (held.state === 'ready') {
        const base = await BaseFile.open(FIXTURE, `sha256:${version}`);
        opened.push(base);
        slot.record = newRecord(
          slot.view.entry,
          // each its own content-keyed file in the cache (the bytes served are the fixture's)
          {
            path: path.join(dir, contentIsoName(version.replace('.', '').padEnd(64, '0'))),
            size: base.size,
            mtimeMs: 0,
            sha256: version.replace('.', '').padEnd(64, '0'),
            manifest,
          },
          held.inPlace === true,
          new Date(now),
        );
        slot.readyAt = now - (held.readyAgo ?? 0) * MINUTE;
        if (held.servedAgo !== undefined) slot.view.lastServedAt = now - held.servedAgo * MINUTE;
        if (held.busy) slot.job = new Promise(() => undefined);
        catalog.setStatus(slot.view, {
          state: 'ready',
          image: { entry: slot.view.entry, base, manifest, minimalState: { state: 'absent' } },
        });
      } else {
        catalog.setStatus(
          slot.view,
          held.state === 'failed' ? { state: 'failed', reason: 'HTTP 503', retryAt: undefined } : { state: 'pending' },
        );
      }
    }
    const budget = new CacheBudget(slots, catalog, logger, {
      dir,
      maxBytes: row.maxMib === undefined ? undefined : row.maxMib * MiB,
      minIdleMs: MIN_IDLE_MS,
      retireGraceMs: 0,
    });
    const orphans = Object.entries(row.orphans ?? {});
    for (const [file] of orphans) await writeFile(path.join(dir, file), 'x');
    budget.quarantined(
      slots[0]!,
      0,
      orphans.map(([file, mib]) => ({ file, bytes: mib * MiB })),
    );
    const newcomer: ImageSlot = byVersion.get(NEWCOMER)!;
    newcomer.diskBytes = (row.newcomerHoldsMib ?? 0) * MiB;
    const statesBefore = catalog.slots.map((s) => s.status.state);
    const evictionOrder: string[] = [];
    catalog.subscribe(() => {
      for (const v of VERSIONS)
        if (byVersion.get(v)!.view.status.state === 'evicted' && !evictionOrder.includes(v)) evictionOrder.push(v);
    });

    try {
      let thrown: unknown;
      try {
        budget.reserve(newcomer, row.reserveMib * MiB);
      } catch (err) {
        thrown = err;
      }
      expect(newcomer.expectedBytes).toBe(row.reserveMib * MiB);
      if ('error' in row.outcome) {
        expect(thrown).toBeInstanceOf(ImageLoadError);
        expect({ retry: (thrown as ImageLoadError).retry, message: (thrown as Error).message }).toEqual({
          retry: row.outcome.error,
          message: row.outcome.message,
        });
        expect(catalog.slots.map((s) => s.status.state)).toEqual(statesBefore);
        expect(newcomer.diskBytes).toBe((row.newcomerHoldsMib ?? 0) * MiB);
        for (const [file] of orphans) expect(await exists(path.join(dir, file))).toBe(true);
        return;
      }
      expect(thrown).toBeUndefined();
      expect(newcomer.diskBytes).toBe(row.outcome.newcomerMib * MiB);
      expect(evictionOrder).toEqual(row.outcome.evicted.filter((v) => !v.startsWith('file:')));
      for (const v of VERSIONS.filter((version) => evictionOrder.includes(version))) {
        const slot = byVersion.get(v)!;
        expect(slot.view.status).toEqual({ state: 'evicted', reason: 'evicted to stay within IMAGE_CACHE_MAX_BYTES' });
        expect(slot.diskBytes).toBe(0);
        expect(slot.record).toBeUndefined();
      }
      for (const [file] of orphans) {
        const gone = row.outcome.evicted.includes(`file:${file}`);
        await vi.waitFor(async () => expect(await exists(path.join(dir, file))).toBe(!gone), { timeout: 10_000 });
      }
    } finally {
      budget.close();
      for (const base of opened) base.close();
    }
  });
});
