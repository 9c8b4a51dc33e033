// Parsing in a worker (issue 15, finding 2): the same manifest as in-process parsing, bombs
// refused inside a small heap, and a worker that runs out of heap or time fails its image with a
// clear `never` reason while this process carries on.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError } from '../../errors.js';
import { parseLiveIso } from '../../iso/live-layout.js';
import { BudgetExceededError } from '../../iso/parse-budget.js';
import { rockRidgeChainBomb } from '../../iso/test-support/crafted-iso.js';
import { REPO_ROOT, makeTempDir, removeDir } from '../../iso/test-support/fixtures.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { parseLiveIsoInWorker } from './parse-worker.js';
import { retryClassOf } from '../load-failure/retry-policy.js';
import { parseAsLiveIso } from './verify-iso.js';

const FIXTURE = path.join(REPO_ROOT, 'fixtures/iso/x86_64.iso');
/**
 * No budget at all: the parser as it was before issue 15, without its wall-clock budget either, so
 * only the heap can stop it (on a loaded machine the heap fills later than 20 s: issue 37).
 */
const UNBOUNDED = {
  nameBytes: Number.MAX_SAFE_INTEGER,
  suspBytesPerDirectory: Number.MAX_SAFE_INTEGER,
  suspBytesPerImage: Number.MAX_SAFE_INTEGER,
  directoryBytesPerImage: Number.MAX_SAFE_INTEGER,
  directoryRecordsPerImage: Number.MAX_SAFE_INTEGER,
  visitsPerContinuationArea: Number.MAX_SAFE_INTEGER,
  timeMs: Number.MAX_SAFE_INTEGER,
};
/** The worker's own clock, far past any machine's time to fill a 32 MB heap (3.8 s quiet). */
const HEAP_FILL_BOUND_MS = 300_000;

describe('parseLiveIsoInWorker', () => {
  let dir: string;
  let bomb: string;
  let sharedBomb: string;
  beforeAll(() => {
    dir = makeTempDir('worker');
    bomb = path.join(dir, 'bomb.iso');
    writeFileSync(bomb, rockRidgeChainBomb({ records: 30_000, chainLength: 32, areaBytes: 2048 }));
    sharedBomb = path.join(dir, 'shared.iso');
  });
  afterAll(() => removeDir(dir));

  it('returns the same manifest as parsing in-process', async () => {
    expect(await parseLiveIsoInWorker(FIXTURE)).toEqual(await parseLiveIso(FIXTURE));
  });

  it('refuses the Rock Ridge bomb with a budget error inside a 32 MB heap', async () => {
    const err = await parseLiveIsoInWorker(bomb, { heapMb: 32 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect((err as BudgetExceededError).budget).toBe('rock-ridge-name-bytes');
    expect((err as Error).message).toContain(bomb);
    expect(retryClassOf(err)).toBe('never');
  });

  it(
    'a parse that exhausts its heap fails its image (never retried) and this process carries on',
    async () => {
      const err = await parseLiveIsoInWorker(bomb, {
        heapMb: 32,
        limits: UNBOUNDED,
        timeoutMs: HEAP_FILL_BOUND_MS,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImageLoadError);
      expect((err as Error).message).toMatch(/ran out of its \d+ MB heap/);
      expect(retryClassOf(err)).toBe('never');
      expect(await parseLiveIsoInWorker(FIXTURE)).toMatchObject({ volumeId: expect.any(String) });
    },
    HEAP_FILL_BOUND_MS + 60_000,
  );

  it('a parse that overruns its wall-clock time is stopped', async () => {
    const err = await parseLiveIsoInWorker(FIXTURE, { timeoutMs: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageLoadError);
    expect((err as Error).message).toMatch(/did not finish within 1 ms/);
    expect(retryClassOf(err)).toBe('never');
  });

  it('passes FormatErrors through, and verify turns them into never-retried load errors', async () => {
    writeFileSync(sharedBomb, Buffer.alloc(64 * 1024));
    await expect(parseLiveIsoInWorker(sharedBomb)).rejects.toBeInstanceOf(FormatError);
    const err = await parseAsLiveIso(bomb, '4.17 x86_64').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageLoadError);
    expect((err as Error).message).toMatch(
      /^4\.17 x86_64: not a usable CoreOS live ISO: .*budget rock-ridge-name-bytes exceeded/,
    );
    expect(retryClassOf(err)).toBe('never');
  });

  it('stops the worker when the caller aborts', async () => {
    const controller = new AbortController();
    const parsing = parseLiveIsoInWorker(FIXTURE, { signal: controller.signal });
    controller.abort(new Error('stopping'));
    await expect(parsing).rejects.toThrow('stopping');
  });
});
