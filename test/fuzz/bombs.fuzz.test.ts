// Fuzz category bombs (issue 15, finding 2): crafted ISOs built to exhaust a parser — Rock Ridge
// continuation chains shared by many records, giant names, wide SUSP areas, deep and looping
// directories, huge extents — generated with random sizes. Each must be refused with a typed
// error within its budget (a crash is anything else thrown, a hang a case over HANG_MS, a wrong
// acceptance a bomb parsed as a live ISO); the worst ones must be refused inside a worker with a
// small heap, not by running out of it. Then the real service, as a child process with bombs
// in OS_IMAGES next to a good image, must mark every bomb failed (never retried), keep
// answering /live and the API, serve the good image, and do it again after a restart.
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootsmithError } from '../../src/errors.js';
import { ImageLoadError } from '../../src/images/load-failure/load-error.js';
import { parseLiveIsoInWorker } from '../../src/images/fetch/parse-worker.js';
import { SECTOR_SIZE } from '../../src/iso/directory-record.js';
import { parseLiveIso } from '../../src/iso/live-layout.js';
import { PARSE_TIME_BUDGET_MS } from '../../src/iso/parse-budget.js';
import {
  deepDirectoryBomb,
  hugeExtentIso,
  rockRidgeChainBomb,
  wideSuspIso,
} from '../../src/iso/test-support/crafted-iso.js';
import { REPO_ROOT, makeTempDir, removeDir } from '../../src/iso/test-support/fixtures.js';
import { fuzzParameters, fuzzRuns } from './support/budget.js';
import { type CliChild, freePort, poll, startCli } from './support/children.js';
import { recordFigures } from './support/figures.js';

const HANG_MS = 5_000;
/** Heap of the worker that must refuse the worst bombs (the parser alone needs a few MB). */
const SMALL_HEAP_MB = 48;

type Bomb =
  | { kind: 'chain'; records: number; chainLength: number; areaBytes: number }
  | { kind: 'deep'; depth: number; loop: boolean }
  | { kind: 'extent'; lba: number; length: number }
  | { kind: 'wide'; count: number; suBytes: number };

const bomb: fc.Arbitrary<Bomb> = fc.oneof(
  fc.record({
    kind: fc.constant('chain' as const),
    records: fc.integer({ min: 1, max: 20_000 }),
    chainLength: fc.integer({ min: 1, max: 40 }),
    areaBytes: fc.constantFrom(512, 1024, SECTOR_SIZE, 4096, 65_536),
  }),
  fc.record({ kind: fc.constant('deep' as const), depth: fc.integer({ min: 1, max: 400 }), loop: fc.boolean() }),
  fc.record({
    kind: fc.constant('extent' as const),
    lba: fc.nat({ max: 0xffffffff }),
    length: fc.nat({ max: 0xffffffff }),
  }),
  fc.record({
    kind: fc.constant('wide' as const),
    count: fc.integer({ min: 1, max: 15_000 }),
    suBytes: fc.integer({ min: 10, max: 205 }),
  }),
);

function build(b: Bomb): Buffer {
  switch (b.kind) {
    case 'chain':
      return rockRidgeChainBomb(b);
    case 'deep':
      return deepDirectoryBomb(b.depth, b.loop);
    case 'extent':
      return hugeExtentIso(b.lba, b.length);
    case 'wide':
      return wideSuspIso(b.count, b.suBytes);
  }
}

describe('bombs', () => {
  let dir: string;
  const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0 };
  const examples: string[] = [];
  const refusals: Record<string, number> = {};

  beforeAll(() => {
    dir = makeTempDir('fuzz-bombs');
    chmodSync(dir, 0o711); // as root the embedded PostgreSQL runs unprivileged: DATA_DIR's parents must be searchable
  });
  afterAll(() => {
    recordFigures({
      category: 'bombs',
      ...figures,
      dataLost: 0,
      notes: `refused by: ${Object.entries(refusals)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}; crash = anything but a typed error, a worker out of heap or a service death`,
    });
    removeDir(dir);
  });

  it('every generated bomb is refused with a typed error, quickly', async () => {
    const file = path.join(dir, 'bomb.iso');
    await fc.assert(
      fc.asyncProperty(bomb, async (b) => {
        writeFileSync(file, build(b));
        figures.cases++;
        const started = Date.now();
        try {
          await parseLiveIso(file);
          figures.wrongAcceptances++;
          examples.push(`${JSON.stringify(b)}: parsed as a live ISO`);
        } catch (err) {
          if (err instanceof BootsmithError) {
            const budget = (err.context as { budget?: string }).budget ?? 'format';
            refusals[budget] = (refusals[budget] ?? 0) + 1;
          } else {
            figures.crashes++;
            examples.push(`${JSON.stringify(b)}: ${String(err)}`);
          }
        }
        if (Date.now() - started > HANG_MS) {
          figures.hangs++;
          examples.push(`${JSON.stringify(b)}: took ${Date.now() - started} ms`);
        }
      }),
      fuzzParameters(150),
    );
    expect(figures.cases).toBe(fuzzRuns(150));
    expect(examples).toEqual([]);
  });

  it(`the worst bombs are refused inside a ${SMALL_HEAP_MB} MB worker heap, by budget and not by running out of it`, async () => {
    const worst: Bomb[] = [
      { kind: 'chain', records: 30_000, chainLength: 32, areaBytes: SECTOR_SIZE },
      { kind: 'chain', records: 30_000, chainLength: 32, areaBytes: 65_536 },
      { kind: 'wide', count: 15_000, suBytes: 205 },
      { kind: 'deep', depth: 400, loop: false },
    ];
    for (const [i, b] of worst.entries()) {
      const file = path.join(dir, `worst-${i}.iso`);
      writeFileSync(file, build(b));
      figures.cases++;
      const started = Date.now();
      const err = await parseLiveIsoInWorker(file, { heapMb: SMALL_HEAP_MB }).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (err === undefined) figures.wrongAcceptances++;
      else if (err instanceof ImageLoadError || !(err instanceof BootsmithError)) {
        figures.crashes++;
        examples.push(`${JSON.stringify(b)} in a worker: ${String(err)}`);
      }
      if (Date.now() - started > PARSE_TIME_BUDGET_MS) figures.hangs++;
    }
    expect(examples).toEqual([]);
  });

  describe('the service with bombs in OS_IMAGES', () => {
    let dataDir: string;
    let port: number;
    let child: CliChild | undefined;
    let env: Record<string, string>;
    const bombs: Bomb[] = [
      { kind: 'chain', records: 30_000, chainLength: 32, areaBytes: SECTOR_SIZE },
      { kind: 'wide', count: 15_000, suBytes: 205 },
      { kind: 'deep', depth: 300, loop: true },
    ];

    beforeAll(async () => {
      dataDir = path.join(dir, 'data');
      port = await freePort();
      const images = bombs.map((b, i) => {
        const file = path.join(dir, `service-bomb-${i}.iso`);
        writeFileSync(file, build(b));
        return {
          openshift_version: `4.${i + 1}`,
          cpu_architecture: 'x86_64',
          url: `file://${file}`,
          version: `4${i + 1}.0.0`,
        };
      });
      images.push({
        openshift_version: '4.16',
        cpu_architecture: 'x86_64',
        url: `file://${path.join(REPO_ROOT, 'fixtures/iso/x86_64.iso')}`,
        version: '416.0.0',
      });
      env = {
        LISTEN_PORT: String(port),
        LISTEN_ADDRESS: '127.0.0.1',
        DATA_DIR: dataDir,
        AUTH_TYPE: 'none',
        OS_IMAGES: JSON.stringify(images),
        LOG_LEVEL: 'warn',
        IMAGE_DOWNLOAD_CONCURRENCY: String(images.length),
      };
    });
    afterAll(async () => {
      if (child && child.proc.exitCode === null) {
        child.proc.kill('SIGKILL');
        await child.exited;
      }
    });

    const base = () => `http://127.0.0.1:${port}`;

    async function checkRound(round: number): Promise<void> {
      child = startCli(['serve'], env);
      const health = await poll('every image to settle', 90_000, async () => {
        const res = await fetch(`${base()}/health`);
        const body = (await res.json()) as {
          images: Array<{ openshift_version: string; state: string; reason?: string; retry_at?: string }>;
        };
        return body.images.every((i) => i.state === 'ready' || i.state === 'failed') ? body : undefined;
      });
      figures.cases += bombs.length;
      for (const image of health.images) {
        if (image.openshift_version === '4.16') {
          if (image.state !== 'ready')
            examples.push(`round ${round}: the good image is ${image.state}: ${image.reason}`);
          continue;
        }
        if (image.state !== 'failed') figures.wrongAcceptances++;
        if (image.retry_at !== undefined)
          examples.push(`round ${round}: ${image.openshift_version} is retried at ${image.retry_at}`);
        if (!/not a usable CoreOS live ISO/.test(image.reason ?? ''))
          examples.push(`round ${round}: ${image.openshift_version}: ${image.reason}`);
      }
      expect((await fetch(`${base()}/live`)).status).toBe(200);
      const list = await fetch(`${base()}/api/assisted-install/v2/infra-envs`);
      expect(list.status).toBe(200);
      const iso = await fetch(`${base()}/boot-artifacts/kernel?version=4.16&arch=x86_64`);
      expect(iso.status).toBe(200);
      await iso.arrayBuffer();
      const bombed = await fetch(`${base()}/boot-artifacts/kernel?version=4.1&arch=x86_64`);
      expect(bombed.status).toBe(503);
      await bombed.arrayBuffer();
      if (child.proc.exitCode !== null) {
        figures.crashes++;
        examples.push(`round ${round}: the service exited: ${child.output().slice(-2000)}`);
      }
      child.proc.kill('SIGKILL');
      await child.exited;
    }

    it('marks every bomb failed for good, keeps answering, and does so again after a restart', async () => {
      for (let round = 1; round <= (fuzzRuns(1) > 1 ? 3 : 2); round++) await checkRound(round);
      expect(examples).toEqual([]);
    });
  });
});
