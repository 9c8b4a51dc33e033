// StoreCatalog (the image store's read side) as tables: each row an image state the write side
// published and a request (version, architecture), and what resolve() must answer — the image, or
// the typed error with its status, message and Retry-After — and which write-side hook it calls;
// then find()/images() per state, health() and subscriptions. The configuration goes through the
// real OS_IMAGES parser and the ready image is the committed fixture ISO, parsed and opened as
// the loader does. The clock is fixed (Retry-After of a failed image counts down to its retry).
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { headersForError, statusForError } from '../../error-status.js';
import { parseLiveIso } from '../../iso/live-layout.js';
import { BaseFile } from '../../splice/base-file.js';
import { parseOsImages } from '../os-images-config.js';
import { TransferProgress } from '../progress.js';
import type { ImageStatus } from './image-status.js';
import type { LiveImage } from './live-image.js';
import { type CatalogSlot, StoreCatalog } from './store-catalog.js';

const NOW = Date.parse('2026-02-01T08:00:00Z');
const FIXTURE = path.resolve(import.meta.dirname, '../../../fixtures/iso/x86_64.iso');

const CONFIG = parseOsImages(
  JSON.stringify([
    { openshift_version: '4.16', version: '416.94.202406251923-0', url: 'https://mirror.example/a.iso' },
    {
      openshift_version: '4.16',
      version: '416.94.202406251923-0',
      cpu_architecture: 'arm64',
      url: 'https://user:secret@mirror.example/b.iso?sig=x',
    },
    { openshift_version: '4.17', version: '417.94.1', url: 'https://mirror.example/c.iso' },
  ]),
  'OS_IMAGES',
);

let image: LiveImage;
let minimalImage: LiveImage;

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const manifest = await parseLiveIso(FIXTURE);
  const base = await BaseFile.open(FIXTURE, 'sha256:fixture');
  image = { entry: CONFIG.entries[0]!, base, manifest, minimalState: { state: 'absent' } };
  minimalImage = { ...image, minimal: { base, manifest }, minimalState: { state: 'ready' } };
});
afterAll(() => {
  vi.useRealTimers();
  image?.base.close();
});
beforeEach(() => {
  vi.setSystemTime(NOW);
});

type Hook = 'requested' | 'served';

function catalog(): { store: StoreCatalog; calls: Array<[Hook, string]> } {
  const calls: Array<[Hook, string]> = [];
  const store = new StoreCatalog(CONFIG.entries, ['OS_IMAGES: image #4: missing or empty "url"'], {
    requested: (slot) => calls.push(['requested', slot.key]),
    served: (slot) => calls.push(['served', slot.key]),
  });
  return { store, calls };
}

function progressAt(bytes: number, total: number | undefined): TransferProgress {
  const p = new TransferProgress(total, 0, () => NOW);
  p.add(bytes);
  return p;
}

/** The state of the first image (4.16 x86_64) in a row; the others stay pending. */
const STATES: Record<string, () => ImageStatus> = {
  pending: () => ({ state: 'pending' }),
  'downloading 42.5%': () => ({ state: 'downloading', progress: progressAt(425, 1000) }),
  'downloading, size unknown': () => ({ state: 'downloading', progress: progressAt(425, undefined) }),
  'extracting, no progress yet': () => ({ state: 'extracting', progress: undefined }),
  verifying: () => ({ state: 'verifying', progress: progressAt(1000, 1000) }),
  ready: () => ({ state: 'ready', image }),
  'ready with a minimal ISO': () => ({ state: 'ready', image: minimalImage }),
  evicted: () => ({ state: 'evicted', reason: 'evicted to stay within IMAGE_CACHE_MAX_BYTES' }),
  'failed, no retry scheduled': () => ({ state: 'failed', reason: 'sha256 mismatch', retryAt: undefined }),
  'failed, retry in 25.2 s': () => ({ state: 'failed', reason: 'HTTP 503', retryAt: NOW + 25_200 }),
  'failed, retry overdue': () => ({ state: 'failed', reason: 'HTTP 503', retryAt: NOW - 5_000 }),
  'failed, retry in two hours': () => ({ state: 'failed', reason: 'disk full', retryAt: NOW + 7_200_000 }),
};

type Answer = { image: 'full' | 'full+minimal' } | { status: number; message: string; retryAfter?: string };

interface ResolveRow {
  name: string;
  state: keyof typeof STATES;
  version: string | undefined;
  arch: string | undefined;
  answer: Answer;
  hooks: Array<[Hook, string]>;
}

const X86 = '4.16/x86_64';
const notReady = (detail: string): Answer => ({
  status: 503,
  message: `base image 4.16 x86_64 is not ready yet (${detail})`,
  retryAfter: '10',
});

const RESOLVE_ROWS: ResolveRow[] = [
  {
    name: 'ready: the image, and the write side hears it was served',
    state: 'ready',
    version: '4.16',
    arch: 'x86_64',
    answer: { image: 'full' },
    hooks: [['served', X86]],
  },
  {
    name: 'ready, by the RHCOS version',
    state: 'ready',
    version: '416.94.202406251923-0',
    arch: 'x86_64',
    answer: { image: 'full' },
    hooks: [['served', X86]],
  },
  {
    name: 'ready, no architecture: x86_64',
    state: 'ready',
    version: '4.16',
    arch: undefined,
    answer: { image: 'full' },
    hooks: [['served', X86]],
  },
  {
    name: 'ready, architecture alias amd64',
    state: 'ready',
    version: '4.16',
    arch: 'amd64',
    answer: { image: 'full' },
    hooks: [['served', X86]],
  },
  {
    name: 'ready, architecture in capitals',
    state: 'ready',
    version: '4.16',
    arch: 'X86_64',
    answer: { image: 'full' },
    hooks: [['served', X86]],
  },
  {
    name: 'ready with its minimal ISO',
    state: 'ready with a minimal ISO',
    version: '4.16',
    arch: 'x86_64',
    answer: { image: 'full+minimal' },
    hooks: [['served', X86]],
  },
  {
    name: 'no version',
    state: 'ready',
    version: undefined,
    arch: 'x86_64',
    answer: { status: 400, message: "'version' parameter required" },
    hooks: [],
  },
  {
    name: 'an empty version',
    state: 'ready',
    version: '',
    arch: 'x86_64',
    answer: { status: 400, message: "'version' parameter required" },
    hooks: [],
  },
  {
    name: 'an unknown architecture',
    state: 'ready',
    version: '4.16',
    arch: 'sparc',
    answer: {
      status: 400,
      message: 'unknown architecture "sparc"; known: x86_64 (amd64), aarch64 (arm64), ppc64le (ppc64el), s390x',
    },
    hooks: [],
  },
  {
    name: 'a version not configured',
    state: 'ready',
    version: '4.99',
    arch: 'x86_64',
    answer: {
      status: 404,
      message:
        'no base image for version "4.99" and architecture x86_64; configured: 4.16 x86_64, 4.16 aarch64, 4.17 x86_64',
    },
    hooks: [],
  },
  {
    name: 'a version configured for another architecture only',
    state: 'ready',
    version: '4.17',
    arch: 'aarch64',
    answer: {
      status: 404,
      message:
        'no base image for version "4.17" and architecture aarch64; configured: 4.16 x86_64, 4.16 aarch64, 4.17 x86_64',
    },
    hooks: [],
  },
  {
    name: "Debian's ppc64el spelling is ppc64le: not configured, named so",
    state: 'ready',
    version: '4.16',
    arch: 'ppc64el',
    answer: {
      status: 404,
      message:
        'no base image for version "4.16" and architecture ppc64le; configured: 4.16 x86_64, 4.16 aarch64, 4.17 x86_64',
    },
    hooks: [],
  },
  {
    name: 'another image of the same version is not ready (arm64 alias)',
    state: 'ready',
    version: '4.16',
    arch: 'arm64',
    answer: { status: 503, message: 'base image 4.16 aarch64 is not ready yet (pending)', retryAfter: '10' },
    hooks: [],
  },
  { name: 'pending', state: 'pending', version: '4.16', arch: 'x86_64', answer: notReady('pending'), hooks: [] },
  {
    name: 'downloading, with its percentage',
    state: 'downloading 42.5%',
    version: '4.16',
    arch: 'x86_64',
    answer: notReady('downloading 42.5%'),
    hooks: [],
  },
  {
    name: 'downloading, size unknown: no percentage',
    state: 'downloading, size unknown',
    version: '4.16',
    arch: 'x86_64',
    answer: notReady('downloading'),
    hooks: [],
  },
  {
    name: 'extracting before any progress',
    state: 'extracting, no progress yet',
    version: '4.16',
    arch: 'x86_64',
    answer: notReady('extracting'),
    hooks: [],
  },
  {
    name: 'verifying',
    state: 'verifying',
    version: '4.16',
    arch: 'x86_64',
    answer: notReady('verifying 100%'),
    hooks: [],
  },
  {
    name: 'evicted: 503, and the write side is asked to fetch it again',
    state: 'evicted',
    version: '4.16',
    arch: 'x86_64',
    answer: {
      status: 503,
      message: 'base image 4.16 x86_64 is not cached: evicted to stay within IMAGE_CACHE_MAX_BYTES; fetching it',
      retryAfter: '10',
    },
    hooks: [['requested', X86]],
  },
  {
    name: 'failed without a retry: Retry-After 300',
    state: 'failed, no retry scheduled',
    version: '4.16',
    arch: 'x86_64',
    answer: { status: 503, message: 'base image 4.16 x86_64 is unusable: sha256 mismatch', retryAfter: '300' },
    hooks: [],
  },
  {
    name: 'failed, retry in 25.2 s: Retry-After 26',
    state: 'failed, retry in 25.2 s',
    version: '4.16',
    arch: 'x86_64',
    answer: { status: 503, message: 'base image 4.16 x86_64 is unusable: HTTP 503', retryAfter: '26' },
    hooks: [],
  },
  {
    name: 'failed, retry overdue: Retry-After at least 10',
    state: 'failed, retry overdue',
    version: '4.16',
    arch: 'x86_64',
    answer: { status: 503, message: 'base image 4.16 x86_64 is unusable: HTTP 503', retryAfter: '10' },
    hooks: [],
  },
  {
    name: 'failed, retry in two hours: Retry-After at most an hour',
    state: 'failed, retry in two hours',
    version: '4.16',
    arch: 'x86_64',
    answer: { status: 503, message: 'base image 4.16 x86_64 is unusable: disk full', retryAfter: '3600' },
    hooks: [],
  },
];

function answerOf(store: StoreCatalog, version: string | undefined, arch: string | undefined): Answer {
  try {
    const live = store.resolve(version, arch);
    return { image: live.minimal ? 'full+minimal' : 'full' };
  } catch (err) {
    const retryAfter = headersForError(err)['Retry-After'];
    return {
      status: statusForError(err),
      message: (err as Error).message,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    };
  }
}

const first = (store: StoreCatalog): CatalogSlot => store.slots[0]!;

describe('StoreCatalog.resolve: table', () => {
  it.each(RESOLVE_ROWS.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const { store, calls } = catalog();
    store.setStatus(first(store), STATES[row.state]!());
    expect(answerOf(store, row.version, row.arch)).toEqual(row.answer);
    expect(calls).toEqual(row.hooks);
    expect(first(store).lastServedAt).toBe(row.hooks.some(([h]) => h === 'served') ? NOW : undefined);
  });
});

/** A state, the catalog state it maps to, and what of the image the core may use. */
const FIND_ROWS: Array<[keyof typeof STATES, 'pending' | 'ready' | 'failed', 'nothing' | 'full' | 'full+minimal']> = [
  ['pending', 'pending', 'nothing'],
  ['downloading 42.5%', 'pending', 'nothing'],
  ['verifying', 'pending', 'nothing'],
  ['evicted', 'pending', 'nothing'],
  ['failed, no retry scheduled', 'failed', 'nothing'],
  ['ready', 'ready', 'full'],
  ['ready with a minimal ISO', 'ready', 'full+minimal'],
];

describe('StoreCatalog.find and images: table', () => {
  it('reads the fixture’s embed and kargs areas (the rows below depend on them)', () => {
    expect(image.manifest.ignition.length).toBeGreaterThan(0);
    expect(image.manifest.kargs).toBeDefined();
  });

  it.each(FIND_ROWS)('%s: %s, core sees %s', (state, catalogState, usable) => {
    const { store, calls } = catalog();
    store.setStatus(first(store), STATES[state]!());
    const kargs = image.manifest.kargs!;
    const expected = {
      openshiftVersion: '4.16',
      version: '416.94.202406251923-0',
      cpuArchitecture: 'x86_64',
      embedAreaBytes: usable === 'nothing' ? undefined : image.manifest.ignition.length,
      kernelArgumentsBytes: usable === 'nothing' ? undefined : kargs.size - 1 - Buffer.byteLength(kargs.default),
      minimalIsoSupported: usable === 'full+minimal',
      state: catalogState,
    };
    expect(store.find('4.16', 'amd64')).toEqual(expected);
    expect(store.find('416.94.202406251923-0', 'x86_64')).toEqual(expected);
    expect(store.images()[0]).toEqual(expected);
    expect(calls).toEqual([]); // looking up never counts as serving, and never fetches
  });

  it('find answers undefined for an unknown version or architecture; images() lists every entry in order', () => {
    const { store } = catalog();
    expect(store.find('4.99', 'x86_64')).toBeUndefined();
    expect(store.find('4.16', 'sparc')).toBeUndefined();
    expect(store.images().map((i) => `${i.openshiftVersion}/${i.cpuArchitecture}`)).toEqual([
      '4.16/x86_64',
      '4.16/aarch64',
      '4.17/x86_64',
    ]);
  });
});

describe('StoreCatalog.health and subscribe', () => {
  it('is ready when one image is; sources lose their credentials; config problems pass through', () => {
    const { store } = catalog();
    expect(store.health().ready).toBe(false);
    store.setStatus(first(store), STATES.ready!());
    const health = store.health();
    expect(health.ready).toBe(true);
    expect(health.problems).toEqual(['OS_IMAGES: image #4: missing or empty "url"']);
    expect(health.images.map((i) => [i.state, i.source])).toEqual([
      ['ready', 'https://mirror.example/a.iso'],
      ['pending', 'https://mirror.example/b.iso'],
      ['pending', 'https://mirror.example/c.iso'],
    ]);
    expect(JSON.stringify(health)).not.toContain('secret');
  });

  it('tells every subscriber of each published change, until it unsubscribes', () => {
    const { store } = catalog();
    const heard: string[] = [];
    const stopA = store.subscribe(() => heard.push(`a:${first(store).status.state}`));
    store.subscribe(() => heard.push(`b:${first(store).status.state}`));
    store.setStatus(first(store), STATES.verifying!());
    stopA();
    store.setStatus(first(store), STATES.ready!());
    expect(heard).toEqual(['a:verifying', 'b:verifying', 'b:ready']);
  });
});
