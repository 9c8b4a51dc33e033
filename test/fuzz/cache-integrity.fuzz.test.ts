// Fuzz category cache-integrity (issue 23, item 4): the real `bootsmith serve` as a child process,
// its cached base ISO changed on disk at seeded offsets — between restarts (with the mtime put
// back by `touch -r`, as a careful intruder would) and while it serves. Every answer to the boot
// artifact routes (kernel, initrd, rootfs: plain slices of the cached file) must be the original
// bytes or a 503; the changed file must end up in the quarantine, the image fetched again and
// /health must name the mismatch. A body that differs from the original counts as a wrong
// acceptance; an image that never comes back, as a hang.
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync } from 'node:fs';
import { open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IsoServer } from '../../src/images/test-support/iso-server.js';
import { parseLiveIso } from '../../src/iso/live-layout.js';
import type { Extent } from '../../src/iso/manifest.js';
import { REPO_ROOT, makeTempDir, removeDir } from '../../src/iso/test-support/fixtures.js';
import { FUZZ_SEED, LONG } from './support/budget.js';
import { type CliChild, freePort, poll, startCli } from './support/children.js';
import { recordFigures } from './support/figures.js';

/** A serve start (embedded PostgreSQL included) and a 1 MiB fetch on a loaded two-core machine. */
const CHILD_BOUND_MS = 120_000;
const RESTART_ROUNDS = LONG ? 10 : 2;
const RUNNING_ROUNDS = LONG ? 10 : 2;
const ARTIFACTS = ['kernel', 'initrd', 'rootfs'] as const;

interface ImageHealth {
  state: string;
  integrity: {
    mismatches: number;
    last_mismatch?: { action: string; expected_sha256: string; actual_sha256?: string };
  };
}

/** Deterministic offsets from the campaign seed, inside one of the served artifacts. */
function flipPoint(round: number, extents: Extent[]): number {
  const x = Math.imul(FUZZ_SEED ^ (round * 0x9e3779b1), 0x85ebca6b) >>> 0;
  const extent = extents[x % extents.length]!;
  return extent.offset + (x % extent.length);
}

describe('cache-integrity', () => {
  const iso = readFileSync(path.join(REPO_ROOT, 'fixtures/iso/x86_64.iso'));
  const server = new IsoServer();
  let dir: string;
  let extents: Record<(typeof ARTIFACTS)[number], Extent>;
  const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0, dataLost: 0 };
  const problems: string[] = [];
  const notes: string[] = [];

  beforeAll(async () => {
    await server.start();
    server.serve('/base.iso', iso);
    dir = makeTempDir('fuzz-integrity');
    chmodSync(dir, 0o711); // as root the embedded PostgreSQL runs unprivileged: DATA_DIR's parents must be searchable
    const manifest = await parseLiveIso(path.join(REPO_ROOT, 'fixtures/iso/x86_64.iso'));
    extents = { kernel: manifest.files.kernel!, initrd: manifest.files.initrd!, rootfs: manifest.files.rootfs! };
  });
  afterAll(async () => {
    recordFigures({ category: 'cache-integrity', ...figures, notes: notes.join('; ') });
    await server.stop();
    removeDir(dir);
  });

  async function serve(dataDir: string, port: number): Promise<CliChild> {
    return startCli(['serve'], {
      DATA_DIR: dataDir,
      OS_IMAGES: JSON.stringify([
        { openshift_version: '4.16', cpu_architecture: 'x86_64', url: server.url('/base.iso'), version: '416.0.0' },
      ]),
      LISTEN_PORT: String(port),
      LISTEN_ADDRESS: '127.0.0.1',
      LOG_LEVEL: 'warn',
    });
  }

  async function health(port: number): Promise<ImageHealth> {
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    return ((await res.json()) as { images: ImageHealth[] }).images[0]!;
  }

  /** Asks for every artifact once: each answer must be the original bytes or a 503. Returns how many were 200. */
  async function checkServed(port: number, label: string): Promise<number> {
    let ok = 0;
    for (const name of ARTIFACTS) {
      const res = await fetch(`http://127.0.0.1:${port}/boot-artifacts/${name}?version=4.16&arch=x86_64`).catch(
        () => undefined,
      );
      if (!res) continue; // a stream cut when serving was held
      const body = Buffer.from(await res.arrayBuffer().catch(() => new ArrayBuffer(0)));
      if (res.status === 503) continue;
      const { offset, length } = extents[name];
      if (res.status === 200 && body.equals(iso.subarray(offset, offset + length))) {
        ok++;
        continue;
      }
      if (res.status === 200 && body.length < length) continue; // cut short when serving was held: no complete body
      figures.wrongAcceptances++;
      problems.push(`${label}: ${name} answered ${res.status} with ${body.length} bytes that are not the original`);
    }
    return ok;
  }

  /** Waits for the image to be served again after `mismatches` mismatches, checking every answer meanwhile. */
  async function untilRecovered(port: number, child: CliChild, mismatches: number, label: string): Promise<void> {
    await poll(`${label}: the image fetched again`, CHILD_BOUND_MS, async () => {
      if (child.proc.exitCode !== null) throw new Error('the service exited');
      const served = await checkServed(port, label);
      const h = await health(port);
      return h.state === 'ready' && h.integrity.mismatches >= mismatches && served === ARTIFACTS.length ? h : undefined;
    }).catch((err: Error) => {
      if (child.proc.exitCode !== null) figures.crashes++;
      else figures.hangs++;
      problems.push(`${label}: ${err.message}; serve said: ${child.output().slice(-1500)}`);
    });
  }

  async function cachedIso(dataDir: string): Promise<string> {
    const images = path.join(dataDir, 'images');
    return path.join(
      images,
      (await readdir(images)).find((f) => f.endsWith('.iso'))!,
    );
  }

  async function flip(file: string, at: number, keepTimes: boolean): Promise<void> {
    if (keepTimes) execFileSync('touch', ['-r', file, `${file}.times`]);
    const handle = await open(file, 'r+');
    await handle.write(Buffer.from([iso[at]! ^ 0xa5]), 0, 1, at);
    await handle.close();
    if (keepTimes) {
      execFileSync('touch', ['-r', `${file}.times`, file]);
      await rm(`${file}.times`);
    }
  }

  it('bytes flipped in the cached ISO between restarts and while serving: never served, quarantined, fetched again', async () => {
    const dataDir = path.join(dir, 'data');
    const port = await freePort();
    let child = await serve(dataDir, port);
    /** Mismatches the running process has seen (/health counts since the process started). */
    let mismatches = 0;
    let total = 0;
    await untilRecovered(port, child, 0, 'first start');

    for (let round = 0; round < RESTART_ROUNDS; round++) {
      figures.cases++;
      const label = `restart round ${round}`;
      child.proc.kill('SIGKILL');
      await child.exited;
      const hits = server.hitsFor('/base.iso').length;
      await flip(await cachedIso(dataDir), flipPoint(round, Object.values(extents)), true);
      child = await serve(dataDir, port);
      mismatches = 1;
      total++;
      await untilRecovered(port, child, mismatches, label);
      if (server.hitsFor('/base.iso').length !== hits + 1)
        problems.push(`${label}: ${server.hitsFor('/base.iso').length - hits} downloads, expected 1`);
    }

    // readers asking for the artifacts all along, so flips land while responses stream
    let hammering = true;
    let hammered = 0;
    const hammer = (async () => {
      while (hammering) hammered += await checkServed(port, 'a reader during the running rounds');
    })();
    for (let round = 0; round < RUNNING_ROUNDS; round++) {
      figures.cases++;
      const label = `running round ${round}`;
      const hits = server.hitsFor('/base.iso').length;
      await flip(await cachedIso(dataDir), flipPoint(100 + round, Object.values(extents)), round % 2 === 1);
      mismatches++;
      total++;
      await untilRecovered(port, child, mismatches, label);
      if (server.hitsFor('/base.iso').length !== hits + 1)
        problems.push(`${label}: ${server.hitsFor('/base.iso').length - hits} downloads, expected 1`);
    }

    hammering = false;
    await hammer;
    const last = await health(port).catch(() => undefined);
    if (last?.integrity.last_mismatch?.action !== 'quarantined')
      problems.push(`last mismatch not quarantined: ${JSON.stringify(last?.integrity)}`);
    const quarantined = (await readdir(path.join(dataDir, 'images', 'quarantine')).catch(() => [])).filter(
      (f) => !f.endsWith('.json'),
    );
    notes.push(
      `${RESTART_ROUNDS} flips between restarts and ${RUNNING_ROUNDS} while serving → ${total} mismatches, ` +
        `${quarantined.length} files kept in quarantine; ${hammered} complete original answers to a concurrent reader`,
    );
    child.proc.kill('SIGKILL');
    await child.exited;
    expect(problems).toEqual([]);
  });
});
