// A real `bootsmith serve` (built CLI, child process) refuses to start on a setting it cannot use,
// with one line that names the setting, its value and the fix, and exit code 2 (issue 37: these
// said `listen EADDRINUSE`, `ENOENT: mkdir`, `database unavailable (ECONNREFUSED); retry shortly`,
// or started with no image at all): a port in use, an address not on this host, a DATABASE_URL
// nothing answers at, a DATA_DIR below a file or on a read-only file system (tmpfs; skipped where
// mount is not allowed), an OS_IMAGES typo, a missing OS_IMAGES_FILE. An entry refused beside a
// usable one starts the service and shows in /health's warnings.
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, buildCli, type BuiltCli } from '../../test/support/build-cli.js';
import { freePort, postgresProcesses, spawnServe, startServe } from '../../test/support/serve-child.js';

let built: BuiltCli;
let dir: string;
const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(async () => {
  built = await buildCli();
  dir = await mkdtemp(path.join(os.tmpdir(), 'bootsmith-refusals-'));
  await chmod(dir, 0o711); // as root, the embedded PostgreSQL's user must pass through
}, 300_000);
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  for (const pid of await postgresProcesses(path.join(dir, 'mixed'))) process.kill(pid, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
  await built?.remove();
});

/** Starts `bootsmith serve` with `env` and expects it to exit 2 at once; returns what it printed. */
async function refused(env: NodeJS.ProcessEnv, args: string[] = ['--role', 'core']): Promise<string> {
  const s = await spawnServe(built.cli, path.join(dir, 'data'), env, args);
  const code = await s.exited;
  expect(code, s.output()).toBe(2);
  const lines = s.output().trim().split('\n');
  return lines[lines.length - 1]!;
}

const good = { openshift_version: '4.17', cpu_architecture: 'x86_64', version: '417.1' };

describe('bootsmith serve refuses a setting it cannot use, naming it', () => {
  it('a port in use: LISTEN_PORT', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => void taken.close());
    const port = (taken.address() as net.AddressInfo).port;
    expect(await refused({ LISTEN_PORT: String(port) })).toBe(
      `bootsmith: configuration error: LISTEN_PORT ${port} is already in use on 127.0.0.1 (another process listens there): stop that process or set LISTEN_PORT to a free port`,
    );
  });

  it('an address not on this host: LISTEN_ADDRESS', async () => {
    expect(await refused({ LISTEN_ADDRESS: '203.0.113.77' })).toMatch(
      /^bootsmith: configuration error: LISTEN_ADDRESS 203\.0\.113\.77 is not an address of this host \(this host has .*127\.0\.0\.1.*\): set LISTEN_ADDRESS to one of them, or to 0\.0\.0\.0 for every address$/,
    );
  });

  it('a DATABASE_URL nothing answers at: DATABASE_URL, never its password', async () => {
    const port = await freePort();
    const line = await refused({ DATABASE_URL: `postgres://bootsmith:s3cret-pw@127.0.0.1:${port}/inventory` });
    expect(line).toBe(
      `bootsmith: configuration error: DATABASE_URL (bootsmith@127.0.0.1:${port}/inventory): no PostgreSQL answers there (ECONNREFUSED): start the server, or fix the host and port in DATABASE_URL (unset it to use the embedded PostgreSQL in DATA_DIR)`,
    );
    expect(line).not.toContain('s3cret-pw');
  });

  it('a DATA_DIR that cannot be created: DATA_DIR, the path and the cause', async () => {
    const file = path.join(dir, 'a-file');
    await writeFile(file, '');
    const dataDir = path.join(file, 'data');
    expect(await refused({ DATA_DIR: dataDir })).toMatch(
      new RegExp(
        `^bootsmith: configuration error: DATA_DIR ${dataDir} cannot be used: looking at ${dataDir}: a part of the path is a file, not a directory \\(ENOTDIR\\): set DATA_DIR to a directory the user bootsmith runs as \\(uid \\d+\\) may write on a writable file system, or create this one and give that user write access$`,
      ),
    );
  });

  it('a DATA_DIR on a read-only file system: not ENOENT but what it is', async (ctx) => {
    const ro = path.join(dir, 'ro');
    execFileSync('mkdir', ['-p', ro]);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,ro', 'tmpfs', ro], { stdio: 'ignore' });
    } catch {
      ctx.skip('cannot mount tmpfs here (needs root)');
    }
    cleanups.push(() => void execFileSync('umount', ['-l', ro], { stdio: 'ignore' }));
    expect(await refused({ DATA_DIR: path.join(ro, 'data') })).toMatch(
      /^bootsmith: configuration error: DATA_DIR \S+\/ro\/data cannot be created: making \S+\/ro\/data: the file system is read-only \(EROFS\): set DATA_DIR/,
    );
    expect(await refused({ DATA_DIR: ro })).toMatch(
      /^bootsmith: configuration error: DATA_DIR \S+\/ro is not writable: the file system is read-only \(EROFS\)/,
    );
  });

  it('an OS_IMAGES typo, a missing OS_IMAGES_FILE, a list with no usable entry', async () => {
    expect(await refused({ OS_IMAGES: `[{openshift_version: "4.17"}]` })).toMatch(
      /^bootsmith: configuration error: OS_IMAGES is not valid JSON \(.*\): it must be a list of images, each with openshift_version, cpu_architecture, version and url or release_image \(docs\/operator\/base-images\.md\)$/,
    );
    const missing = path.join(dir, 'images.yaml');
    expect(await refused({ OS_IMAGES_FILE: missing })).toMatch(
      new RegExp(`^bootsmith: configuration error: OS_IMAGES_FILE ${missing} cannot be read \\(.*ENOENT.*\\)`),
    );
    expect(await refused({ OS_IMAGES: JSON.stringify([{ ...good, ur: '/isos/a.iso' }]) })).toMatch(
      /^bootsmith: configuration error: OS_IMAGES holds no usable image: image #0 \(4\.17 x86_64\): /,
    );
  });

  it('an entry refused beside a usable one: the service starts and /health names the entry', async () => {
    const s = await startServe(
      built.cli,
      path.join(dir, 'mixed'),
      {
        OS_IMAGES: JSON.stringify([
          { ...good, url: path.join(REPO_ROOT, 'fixtures', 'iso', 'x86_64.iso') },
          { ...good, openshift_version: '4.18', url: 'ftp://mirror.example/x.iso' },
        ]),
      },
      ['--role', 'all'],
    );
    cleanups.push(async () => {
      s.child.kill('SIGTERM');
      await s.exited;
    });
    const health = (await (await fetch(`${s.url}/health`)).json()) as { warnings: string[] };
    expect(health.warnings).toContainEqual(expect.stringMatching(/^OS_IMAGES: image #1 \(4\.18 x86_64\): /));
  });
});
