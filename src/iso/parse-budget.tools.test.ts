// The parsing budgets against crafted images (issue 15, finding 2): each bomb is refused with a
// BudgetExceededError naming its budget (or a FormatError for shapes that are simply invalid),
// and real images stay well inside every budget.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatError } from '../errors.js';
import { unavailable } from '../../test/support/requirements.js';
import { SECTOR_SIZE } from './directory-record.js';
import { withIsoFs } from './iso9660.js';
import { parseLiveIso } from './live-layout.js';
import { BudgetExceededError, type BudgetName, type ParseBudgetLimits } from './parse-budget.js';
import {
  CraftedIso,
  ceEntry,
  deepDirectoryBomb,
  directoryRecord,
  hugeExtentIso,
  nmEntry,
  rockRidgeChainBomb,
  spEntry,
  wideSuspIso,
} from './test-support/crafted-iso.js';
import { FixtureSet, HAVE_FIXTURES, HAVE_XZ, REPO_ROOT, makeTempDir, removeDir } from './test-support/fixtures.js';

let dir: string;
beforeAll(() => {
  dir = makeTempDir('budget');
});
afterAll(() => removeDir(dir));

function write(name: string, bytes: Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

async function budgetOf(file: string, limits: Partial<ParseBudgetLimits> = {}): Promise<BudgetName> {
  const err = await parseLiveIso(file, limits).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BudgetExceededError);
  expect((err as Error).message).toContain(file);
  return (err as BudgetExceededError).budget;
}

/** `count` records whose CE entries all point at one small continuation area holding a short name. */
function sharedShortChain(count: number): Buffer {
  const iso = new CraftedIso();
  const area = iso.allocate(SECTOR_SIZE);
  iso.put(area, nmEntry('shared-name', false));
  const records = Array.from({ length: count }, (_, i) =>
    directoryRecord({ name: `F${i};1`, lba: area, length: 0, systemUse: ceEntry(area, 0, 16) }),
  );
  const root = iso.allocate(CraftedIso.directoryExtent(records).length + 2 * SECTOR_SIZE);
  return iso.build(root, iso.putDirectory(root, records, { selfSystemUse: spEntry() }));
}

describe('parsing budgets', () => {
  it('refuses the continuation bomb of issue 15 (30,000 records sharing a 32-area chain)', async () => {
    const file = write(
      'chain-bomb.iso',
      rockRidgeChainBomb({ records: 30_000, chainLength: 32, areaBytes: SECTOR_SIZE }),
    );
    expect(['rock-ridge-name-bytes', 'continuation-area-revisited']).toContain(await budgetOf(file));
  });

  it('refuses a continuation area referenced by a second record', async () => {
    const file = write('shared.iso', sharedShortChain(3));
    expect(await budgetOf(file)).toBe('continuation-area-revisited');
  });

  it('reads a single record with a continuation area normally', async () => {
    const file = write('single.iso', sharedShortChain(1));
    const names = await withIsoFs(file, async (iso) => (await iso.list('/')).map((e) => e.name));
    expect(names).toEqual(['shared-name']);
  });

  it('refuses a Rock Ridge name longer than the name budget', async () => {
    const file = write('giant-name.iso', rockRidgeChainBomb({ records: 1, chainLength: 4, areaBytes: SECTOR_SIZE }));
    expect(await budgetOf(file)).toBe('rock-ridge-name-bytes');
  });

  it('refuses continuation areas that do not fit in one block (the 64 KiB areas of the original bomb)', async () => {
    const file = write('big-area.iso', rockRidgeChainBomb({ records: 2, chainLength: 2, areaBytes: 64 * 1024 }));
    await expect(parseLiveIso(file)).rejects.toThrow(/does not fit in one 2048-byte block/);
  });

  it('refuses more SUSP bytes in one directory than the per-directory budget', async () => {
    const file = write('wide.iso', wideSuspIso(12_000, 205));
    expect(await budgetOf(file)).toBe('susp-bytes-per-directory');
  });

  it('counts SUSP bytes across directories for the per-image budget', async () => {
    const file = write('wide-small.iso', wideSuspIso(100, 205));
    expect(await budgetOf(file, { suspBytesPerImage: 10_000 })).toBe('susp-bytes-per-image');
  });

  it('bounds directory records and directory bytes per image', async () => {
    const file = write('records.iso', wideSuspIso(500, 20));
    expect(await budgetOf(file, { directoryRecordsPerImage: 100 })).toBe('directory-records-per-image');
    expect(await budgetOf(file, { directoryBytesPerImage: SECTOR_SIZE })).toBe('directory-bytes-per-image');
  });

  it('has a time budget', async () => {
    const file = write('slow.iso', wideSuspIso(10, 20));
    expect(await budgetOf(file, { timeMs: -1 })).toBe('parse-time');
  });

  it('refuses a directory tree deeper than the walk allows, and a directory loop', async () => {
    const deep = write('deep.iso', deepDirectoryBomb(200));
    await expect(
      withIsoFs(deep, async (iso) => {
        for await (const _ of iso.walk()) void _;
      }),
    ).rejects.toThrow(/deeper than 64 levels/);
    const loop = write('loop.iso', deepDirectoryBomb(3, true));
    await expect(
      withIsoFs(loop, async (iso) => {
        for await (const _ of iso.walk()) void _;
      }),
    ).rejects.toThrow(/directory loop/);
    await expect(parseLiveIso(deep)).rejects.toThrow(FormatError);
  });

  it('refuses extents beyond the image (64-bit offsets)', async () => {
    const file = write('huge-extent.iso', hugeExtentIso(0xffffffff, 1000));
    await expect(parseLiveIso(file)).rejects.toThrow(
      /extent 8796093020160\+1000 ends beyond the end of the .*-byte file/,
    );
    const long = write('huge-length.iso', hugeExtentIso(18, 0xffffffff));
    await expect(parseLiveIso(long)).rejects.toThrow(/4294967295 bytes, more than the 1048576 expected/);
  });

  it('parses the bundled fixture images well within the default budgets', async () => {
    for (const name of ['x86_64.iso', 's390x.iso', 'x86_64-miniso.iso']) {
      const manifest = await parseLiveIso(path.join(REPO_ROOT, 'fixtures/iso', name));
      expect(manifest.ignition.length).toBeGreaterThan(0);
    }
  });

  describe.skipIf(unavailable({ '../shared fixtures': HAVE_FIXTURES, xz: HAVE_XZ }))(
    'coreos-installer fixtures',
    () => {
      let fixtures: FixtureSet;
      beforeAll(() => {
        fixtures = FixtureSet.create('budget');
      });
      afterAll(() => fixtures.remove());

      it('each one walks completely under budgets a tenth of the defaults', async () => {
        const tight = {
          suspBytesPerImage: 800 * 1024,
          suspBytesPerDirectory: 200 * 1024,
          directoryRecordsPerImage: 20_000,
        };
        for (const name of fixtures.names()) {
          await withIsoFs(
            fixtures.path(name),
            async (iso) => {
              let n = 0;
              for await (const _ of iso.walk()) n++;
              expect(n).toBeGreaterThan(0);
            },
            tight,
          );
        }
      });
    },
  );
});
