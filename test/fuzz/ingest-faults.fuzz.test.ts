// Fuzz category ingest-faults (issue 15, findings 3 and 5): the real CLI (`bootsmith images
// pull`, `bootsmith serve`) as a child process, killed with SIGKILL part way through a download,
// then started again against a source that may have changed meanwhile — with a strong ETag, with
// Last-Modified only, or with neither validator. Afterwards the verified file must be exactly
// the version the source serves now: a file that matches neither version (a splice), or any
// file under the final name while the download was unfinished, counts as data lost.
// Then a download onto a full disk (an 8 MiB tmpfs): the pull fails naming the disk (refused
// before writing when the size is announced, ENOSPC when it is not), leaves no partial file, and
// the space is usable again. And the first `bootsmith serve` on a nearly full DATA_DIR (issue 23,
// item 7): the embedded PostgreSQL starts, the image that does not fit fails alone with its
// reason, the process keeps serving the API.
import { chmodSync, readFileSync } from 'node:fs';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IsoServer } from '../../src/images/test-support/iso-server.js';
import { requireTmpfs } from '../../src/images/test-support/tmpfs.js';
import { REPO_ROOT, makeTempDir, removeDir } from '../../src/iso/test-support/fixtures.js';
import { FUZZ_SEED, LONG } from './support/budget.js';
import { exitWithin, freePort, poll, startCli } from './support/children.js';
import { recordFigures } from './support/figures.js';

type Validator = 'etag' | 'last-modified' | 'none';
interface Round {
  runner: 'pull' | 'serve';
  validator: Validator;
  /** Whether the object changes between the kill and the restart. */
  changes: boolean;
}

const BASE_ROUNDS: Round[] = [
  { runner: 'pull', validator: 'none', changes: true },
  { runner: 'pull', validator: 'etag', changes: false },
  { runner: 'pull', validator: 'last-modified', changes: true },
  { runner: 'serve', validator: 'none', changes: true },
  { runner: 'pull', validator: 'etag', changes: true },
];
/**
 * A pull of a 1 MiB image from loopback takes seconds (a serve restart adds taking over the
 * orphaned PostgreSQL); past this the child counts as hung. Generous: a loaded two-core machine
 * once needed more than 60 s.
 */
const CHILD_BOUND_MS = 120_000;
const ROUNDS = LONG ? [...BASE_ROUNDS, ...BASE_ROUNDS, ...BASE_ROUNDS, ...BASE_ROUNDS] : BASE_ROUNDS;

/** Deterministic kill points (bytes sent) from the campaign seed, inside the first half of the image. */
function killPoint(round: number): number {
  const x = Math.imul(FUZZ_SEED ^ (round * 0x9e3779b1), 0x85ebca6b) >>> 0;
  return 120_000 + (x % 300_000);
}

describe('ingest-faults', () => {
  // the bundled demo live ISO (1 MiB)
  const v1 = readFileSync(path.join(REPO_ROOT, 'fixtures/iso/x86_64.iso'));
  const v2 = Buffer.from(v1);
  for (const at of [200_000, 495_000]) v2.fill(0x5a, at, at + 1000); // file data only: v2 is still a live ISO
  const server = new IsoServer();
  let dir: string;
  const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0, dataLost: 0 };
  const problems: string[] = [];
  const notes: string[] = [];

  beforeAll(async () => {
    await server.start();
    dir = makeTempDir('fuzz-ingest');
    chmodSync(dir, 0o711); // as root the embedded PostgreSQL runs unprivileged: DATA_DIR's parents must be searchable
  });
  afterAll(async () => {
    recordFigures({ category: 'ingest-faults', ...figures, notes: notes.join('; ') });
    await server.stop();
    removeDir(dir);
  });

  function serveVersion(route: string, body: Buffer, validator: Validator, version: number, slow: boolean): void {
    server.serve(route, body, {
      ...(slow ? { chunkBytes: 32 * 1024, delayMs: 25 } : {}),
      etag: validator === 'etag' ? `"v${version}"` : null,
      ...(validator === 'last-modified' ? { lastModified: new Date(Date.UTC(2026, 0, version)).toUTCString() } : {}),
    });
  }

  async function verifiedFiles(dataDir: string): Promise<string[]> {
    const images = path.join(dataDir, 'images');
    return (await readdir(images).catch(() => [])).filter((f) => f.endsWith('.iso')).map((f) => path.join(images, f));
  }

  /**
   * The embedded PostgreSQL a killed `bootsmith serve` leaves running (the next start adopts or
   * stops it; here nothing starts next): stopped before its directory is removed, or its last WAL
   * writes race the removal (ENOTEMPTY).
   */
  async function stopLeftPostgres(dataDir: string): Promise<void> {
    const pidText = await readFile(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').catch(() => '');
    const pid = Number.parseInt(pidText.split('\n')[0] ?? '', 10);
    if (!Number.isSafeInteger(pid) || pid <= 1) return;
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    if (!alive()) return;
    process.kill(pid, 'SIGQUIT'); // PostgreSQL's immediate shutdown
    const deadline = Date.now() + 10_000;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive()) process.kill(pid, 'SIGKILL');
  }

  it('kill -9 during a download, then a restart: the verified file is the current version, never a mix', async () => {
    for (const [i, round] of ROUNDS.entries()) {
      const route = `/round-${i}.iso`;
      const dataDir = path.join(dir, `round-${i}`);
      const port = await freePort();
      const images = [
        { openshift_version: '4.16', cpu_architecture: 'x86_64', url: server.url(route), version: '416.0.0' },
      ];
      const env = {
        DATA_DIR: dataDir,
        OS_IMAGES: JSON.stringify(images),
        LISTEN_PORT: String(port),
        LISTEN_ADDRESS: '127.0.0.1',
        LOG_LEVEL: 'warn',
      };
      const args = round.runner === 'pull' ? ['images', 'pull'] : ['serve'];
      figures.cases++;

      serveVersion(route, v1, round.validator, 1, true);
      const before = server.bytesSent;
      const first = startCli(args, env);
      const kill = killPoint(i);
      await poll(`round ${i}: ${kill} bytes sent`, CHILD_BOUND_MS, async () =>
        server.bytesSent - before >= kill ? true : undefined,
      );
      first.proc.kill('SIGKILL');
      await first.exited;
      if ((await verifiedFiles(dataDir)).length > 0) {
        figures.dataLost++;
        problems.push(`round ${i}: a file under the final name after the kill`);
      }

      const current = round.changes ? v2 : v1;
      serveVersion(route, current, round.validator, round.changes ? 2 : 1, false);
      const second = startCli(args, env);
      if (round.runner === 'pull') {
        const code = await exitWithin(second, CHILD_BOUND_MS);
        if (code === 'hung') figures.hangs++;
        if (code !== 0) {
          figures.crashes++;
          problems.push(`round ${i}: images pull exited ${String(code)}: ${second.output().slice(-1500)}`);
          continue;
        }
      } else {
        await poll(`round ${i}: the image ready`, CHILD_BOUND_MS, async () => {
          const res = await fetch(`http://127.0.0.1:${port}/health`);
          const body = (await res.json()) as { images: Array<{ state: string }> };
          return body.images[0]?.state === 'ready' ? true : undefined;
        }).catch((err: Error) => {
          throw new Error(`${err.message}; serve said:\n${second.output().slice(-3000)}`);
        });
        second.proc.kill('SIGKILL');
        await second.exited;
      }
      const files = await verifiedFiles(dataDir);
      const bytes = files.length === 1 ? await readFile(files[0]!) : undefined;
      const got = bytes === undefined ? 'nothing' : bytes.equals(v2) ? 'v2' : bytes.equals(v1) ? 'v1' : 'a mix';
      if (got !== (round.changes ? 'v2' : 'v1')) {
        figures.dataLost++;
        problems.push(`round ${i} (${JSON.stringify(round)}, killed after ${kill} bytes): verified file is ${got}`);
      }
      const hits = server.hitsFor(route);
      notes.push(
        `${round.runner}/${round.validator}${round.changes ? '/changed' : ''}: ${hits.length} requests, last ${hits.at(-1)?.range ?? 'whole object'} → ${got}`,
      );
      await stopLeftPostgres(dataDir);
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    }
    expect(problems).toEqual([]);
  });

  const tmpfs = requireTmpfs(8 * 1024 * 1024);
  it.skipIf('reason' in tmpfs)(
    `a pull onto a full disk leaves no partial file and the space is usable again${'reason' in tmpfs ? ` (skipped: ${tmpfs.reason})` : ''}`,
    async () => {
      if ('reason' in tmpfs) return;
      try {
        const big = Buffer.alloc(12 * 1024 * 1024, 0x42);
        server.serve('/big.iso', big, { chunkBytes: 256 * 1024 });
        const dataDir = path.join(tmpfs.dir, 'data');
        server.serve('/big-unsized.iso', big, { chunkBytes: 256 * 1024, chunked: true });
        const attempts = [
          { route: '/big.iso', expect: /the disk holding .*images is too full: the image needs 12 MiB more/ },
          { route: '/big-unsized.iso', expect: /the disk holding .*images is full \(ENOSPC\)/ },
        ];
        for (const [i, attempt] of attempts.entries()) {
          figures.cases++;
          const images = [
            {
              openshift_version: '4.17',
              cpu_architecture: 'x86_64',
              url: server.url(attempt.route),
              version: '417.0.0',
            },
          ];
          const child = startCli(['images', 'pull', '--json'], {
            DATA_DIR: dataDir,
            OS_IMAGES: JSON.stringify(images),
            LOG_LEVEL: 'warn',
          });
          const code = await exitWithin(child, CHILD_BOUND_MS);
          if (code === 'hung') figures.hangs++;
          if (code !== 1) problems.push(`full disk, attempt ${i + 1}: exit ${String(code)}`);
          if (!attempt.expect.test(child.output()))
            problems.push(`full disk, attempt ${i + 1}: no disk named in ${child.output().slice(-800)}`);
          const left = (await readdir(path.join(dataDir, 'images'))).filter((f) => f.includes('.part'));
          if (left.length > 0) {
            figures.dataLost++;
            problems.push(`full disk, attempt ${i + 1}: left ${left.join(', ')}`);
          }
          // what the database would need next: the space is there again
          await writeFile(path.join(tmpfs.dir, 'next-write'), Buffer.alloc(6 * 1024 * 1024));
          await rm(path.join(tmpfs.dir, 'next-write'));
        }
        notes.push(
          `full disk: 2 pulls (sized, unsized) onto an 8 MiB tmpfs, free afterwards ${Math.round(tmpfs.free() / 1024)} KiB`,
        );
        expect(problems).toEqual([]);
      } finally {
        tmpfs.unmount();
      }
    },
  );

  const startDisk = requireTmpfs(200 * 1024 * 1024);
  it.skipIf('reason' in startDisk)(
    `the first serve on a nearly full DATA_DIR starts the database and fails the image alone${'reason' in startDisk ? ` (skipped: ${startDisk.reason})` : ''}`,
    async () => {
      if ('reason' in startDisk) return;
      try {
        chmodSync(startDisk.dir, 0o711);
        // no size announced and no reserve: the download runs until the disk is full
        server.serve('/filler.iso', Buffer.alloc(190 * 1024 * 1024, 0x42), { chunked: true });
        const port = await freePort();
        figures.cases++;
        const child = startCli(['serve'], {
          DATA_DIR: path.join(startDisk.dir, 'data'),
          OS_IMAGES: JSON.stringify([
            {
              openshift_version: '4.17',
              cpu_architecture: 'x86_64',
              url: server.url('/filler.iso'),
              version: '417.0.0',
            },
          ]),
          IMAGE_DISK_RESERVE_BYTES: '0',
          LISTEN_PORT: String(port),
          LISTEN_ADDRESS: '127.0.0.1',
          AUTH_TYPE: 'none', // the default is local (issue 24); this case checks the API answers, not credentials
          LOG_LEVEL: 'warn',
        });
        type Health = { database: { state: string }; images: Array<{ state: string; reason?: string }> };
        const health = await poll('the image to fail alone', CHILD_BOUND_MS, async () => {
          if (child.proc.exitCode !== null) return 'exited' as const;
          const res = await fetch(`http://127.0.0.1:${port}/health`);
          const body = (await res.json()) as Health;
          return body.images[0]?.state === 'failed' ? body : undefined;
        }).catch(() => undefined);
        if (health === 'exited' || child.proc.exitCode !== null) {
          figures.crashes++;
          problems.push(`serve on a nearly full disk exited: ${child.output().slice(-1500)}`);
        } else if (!health) {
          figures.hangs++;
          problems.push(`serve on a nearly full disk: the image never failed: ${child.output().slice(-1500)}`);
        } else {
          if (health.database.state !== 'running')
            problems.push(`database ${health.database.state} on a nearly full disk`);
          if (!/is full \(ENOSPC\)/.test(health.images[0]!.reason ?? ''))
            problems.push(`the image's reason names no full disk: ${health.images[0]!.reason}`);
          const api = await fetch(`http://127.0.0.1:${port}/api/assisted-install/v2/infra-envs`);
          if (api.status !== 200) problems.push(`the API answered ${api.status} on a nearly full disk`);
          notes.push(`first serve on a 200 MiB tmpfs: database ${health.database.state}, image failed alone (ENOSPC)`);
        }
        child.proc.kill('SIGTERM');
        await exitWithin(child, CHILD_BOUND_MS);
        expect(problems).toEqual([]);
      } finally {
        startDisk.unmount();
      }
    },
  );
});
