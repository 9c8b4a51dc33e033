// The documentation's examples run as written (issue 24; issue 36: on any page). Every block
// marked `<!-- doc-test -->` in README.md or docs/**/*.md runs (test/docs/support/doc-blocks.ts
// finds them), one bash session per page section (variables carry from block to block, as in a
// reader's terminal), sections in page order (README.md first), with `set -euo pipefail`: each
// block must exit 0. Every shell block of README's "Try it" and of docs/reference/cli.md must be
// marked; a block marked `<!-- doc-test: NAME -->` is run by test/docs/NAME.test.ts instead (or
// NAME.<needs>.test.ts, the name of a real-parts test: docs/developer/testing.md), which must exist.
//
// Where they run: a fresh directory set up like a checkout after `npm ci && npm start` in a
// second terminal: the service started there as `npm start` starts it (the built CLI's `serve`,
// no configuration at all but a free LISTEN_PORT, so DATA_DIR is ./data, AUTH_TYPE local, the
// demo image, every address) under a pseudo-terminal (`script`), so its human start line is
// checked too; `fixtures/` of the checkout; a package.json with the checkout's name and `bin` and
// dist/ (the built CLI), so `npx bootsmith` finds the command as it does in a checkout, and nothing
// on PATH (`npm link` is not assumed: a bare `bootsmith` fails). The one substitution: BOOTSMITH_URL (which the
// blocks read, defaulting to port 8080) names the free port.
// Then what the blocks promise is checked where cheap: the start line, the download URL on the
// routable address, the files written, live.iso back to the demo image's bytes; and the refusal
// "Try it" describes, in a network namespace with nothing but loopback (`unshare -n`, as root).
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_IMAGE_PATH } from '../../src/package-root.js';
import { isLoopbackHost } from '../../src/startup/routable-address.js';
import { REPO_ROOT } from '../support/probes.js';
import { toolWorks, unavailable } from '../support/requirements.js';
import { buildCli, type BuiltCli } from '../support/build-cli.js';
import { freePort } from '../support/serve-child.js';
import { checkoutDir } from './support/checkout-dir.js';
import { allDocBlocks, type DocBlock, EXAMPLES_RUNNER } from './support/doc-blocks.js';

const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
/** Where every shell block must run: a page, or a page's section. */
const EVERY_SHELL_BLOCK_RUNS = [
  { page: 'README.md', section: 'Try it' },
  { page: 'docs/reference/cli.md', section: undefined },
];
/** tsc of the service, a first start with initdb, ~40 commands on a loaded two-core machine. */
const SUITE_TIMEOUT_MS = 600_000;
/** One section's blocks (Command line: ~35 commands, 31 through npx: ~1.5 s each quiet). */
const SESSION_TIMEOUT_MS = 360_000;
const START_TIMEOUT_MS = 90_000;

const blocks = allDocBlocks();
const sessionOf = (b: Pick<DocBlock, 'page' | 'section'>) => `${b.page} "${b.section}"`;
/** The sessions this test runs, in page order: each page section with marked blocks. */
const SESSIONS = [...new Set(blocks.filter((b) => b.runner === EXAMPLES_RUNNER).map(sessionOf))];
const TRY_IT = sessionOf({ page: 'README.md', section: 'Try it' });
const COMMAND_LINE = sessionOf({ page: 'docs/reference/cli.md', section: 'Command line' });

describe('documentation code blocks', () => {
  it('every shell block of "Try it" and the command-line reference is run by this test', () => {
    const checked = (b: DocBlock) =>
      EVERY_SHELL_BLOCK_RUNS.some((c) => c.page === b.page && (c.section === undefined || c.section === b.section));
    const unmarked = blocks.filter((b) => checked(b) && b.lang === 'sh' && b.runner !== EXAMPLES_RUNNER);
    expect(unmarked.map((b) => `${b.page}:${b.line}`)).toEqual([]);
    for (const session of [TRY_IT, COMMAND_LINE])
      expect(
        blocks.filter((b) => b.runner === EXAMPLES_RUNNER && sessionOf(b) === session).length,
        session,
      ).toBeGreaterThanOrEqual(3);
  });

  it('marks only shell blocks, each naming a doc test that exists', () => {
    const marked = blocks.filter((b) => b.runner !== undefined);
    expect(marked.filter((b) => b.lang !== 'sh').map((b) => `${b.page}:${b.line}`)).toEqual([]);
    const files = readdirSync(path.join(REPO_ROOT, 'test', 'docs'));
    const runs = (runner: string): boolean =>
      files.some((f) => new RegExp(`^${runner}(?:\\.[a-z]+)?\\.test\\.ts$`).test(f));
    const missing = marked.filter((b) => b.runner !== undefined && !runs(b.runner));
    expect(missing.map((b) => `${b.page}:${b.line} names ${b.runner}`)).toEqual([]);
  });
});

interface Session {
  code: number | null;
  output: string;
}

describe.skipIf(unavailable({ curl: toolWorks('curl'), 'script (util-linux)': toolWorks('script', ['-V']) }))(
  'documentation examples against a started service',
  () => {
    let built: BuiltCli;
    let dir: string;
    let port: number;
    let service: ChildProcess;
    let serviceOutput = '';
    const sessions = new Map<string, Session>();

    async function runSession(session: string): Promise<Session> {
      const files: string[] = [];
      for (const [i, b] of blocks.filter((x) => x.runner === EXAMPLES_RUNNER && sessionOf(x) === session).entries()) {
        const file = path.join(dir, '.doc-test', `${session.replace(/\W+/g, '-')}-${i}-line-${b.line}.sh`);
        await writeFile(file, b.code);
        files.push(file);
      }
      const child = spawn(
        'bash',
        [
          '-c',
          'set -euo pipefail; for f in "$@"; do printf "\\n::doc-test %s\\n" "${f##*/}"; . "$f"; done',
          'doc-test',
          ...files,
        ],
        {
          cwd: dir,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: dir,
            LANG: 'C.UTF-8',
            BOOTSMITH_URL: `http://127.0.0.1:${port}`,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: SESSION_TIMEOUT_MS,
        },
      );
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      return { code, output };
    }

    beforeAll(async () => {
      built = await buildCli();
      // What a checkout offers the reader: fixtures/, and `npx bootsmith` resolving the package's
      // own bin (package.json's name and bin, dist/ compiled), nothing linked onto PATH.
      dir = await checkoutDir(built, 'bootsmith-docs-');
      await mkdir(path.join(dir, '.doc-test'));

      // `npm start` with no configuration, on a terminal (script gives it a pseudo-terminal).
      port = await freePort();
      service = spawn('script', ['-qfec', `'${process.execPath}' '${built.cli}' serve`, '/dev/null'], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, LISTEN_PORT: String(port), TERM: 'dumb' },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
      service.stdout!.on('data', (d: Buffer) => (serviceOutput += d.toString()));
      service.stderr!.on('data', (d: Buffer) => (serviceOutput += d.toString()));
      for (const deadline = Date.now() + START_TIMEOUT_MS; ;) {
        if (service.exitCode !== null) throw new Error(`bootsmith serve exited at start:\n${serviceOutput}`);
        const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok && existsSync(path.join(dir, 'data', 'auth', 'admin-token'))) break;
        if (Date.now() > deadline) throw new Error(`bootsmith serve not ready:\n${serviceOutput}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      for (const session of SESSIONS) sessions.set(session, await runSession(session));
    }, SUITE_TIMEOUT_MS);

    afterAll(async () => {
      if (service?.pid !== undefined && service.exitCode === null) {
        const exited = new Promise((resolve) => service.once('exit', resolve));
        process.kill(-service.pid, 'SIGTERM'); // serve drains and stops its PostgreSQL
        const kill = setTimeout(() => process.kill(-service.pid!, 'SIGKILL'), 20_000);
        await exited;
        clearTimeout(kill);
      }
      await built?.remove();
      if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    }, 60_000);

    const startLine = () => serviceOutput.split(/\r?\n/)[0] ?? '';

    it('npm start on a terminal says where it serves, before its log, on a routable address', () => {
      const m =
        /^bootsmith \d+\.\d+\.\d+ serving on http:\/\/(\S+):(\d+) — console http:\/\/\1:\2\/, API http:\/\/\1:\2\/api\/assisted-install\/v2, admin token in (\S+)$/.exec(
          startLine(),
        );
      expect(m, serviceOutput.slice(0, 2000)).not.toBeNull();
      expect(Number(m![2])).toBe(port);
      expect(isLoopbackHost(m![1]!)).toBe(false);
      expect(m![3]).toBe(path.join(dir, 'data', 'auth', 'admin-token'));
      expect(serviceOutput).toContain(
        'note: OS_IMAGES is not set: serving the bundled demo image (openshift_version 4.17',
      );
      expect(serviceOutput).not.toContain('warning:');
      expect(serviceOutput).not.toContain(readFileSync(m![3]!, 'utf8').trim()); // the path, never the token
      // then the log, as lines to read on a terminal (JSON only when stdout is not one)
      expect(serviceOutput).toMatch(/^\d\d:\d\d:\d\d INFO {2}bootsmith listening url=http:\/\/\S+ /m);
      expect(serviceOutput).not.toMatch(/^\{"level"/m);
    });

    for (const session of SESSIONS) {
      it(`${session}: every block exits 0`, () => {
        const s = sessions.get(session)!;
        const last = [...s.output.matchAll(/::doc-test (\S+)/g)].pop()?.[1];
        expect(s.code, `${session} stopped in ${last ?? '(no block)'}:\n${s.output.slice(-4000)}`).toBe(0);
      });
    }

    it('"Try it": the download URL is on the routable address and the ISO carries the InfraEnv', () => {
      const { output } = sessions.get(TRY_IT)!;
      const host = /serving on http:\/\/(\S+):\d+/.exec(startLine())?.[1];
      expect(output).toMatch(
        new RegExp(
          `^http://${host?.replace(/[.[\]]/g, '\\$&')}:${port}/bytoken/[A-Za-z0-9_-]+/4\\.17/x86_64/full\\.iso$`,
          'm',
        ),
      );
      expect(statSync(path.join(dir, 'discovery.iso')).size).toBe(statSync(DEMO_IMAGE_PATH).size);
      expect(output).toContain('lab@example'); // iso ignition show: the SSH key is in the Ignition
      expect(output).toMatch(/ignition\.platform\.id=metal console=ttyS0$/m); // iso kargs show
      expect(output).toMatch(/^#!ipxe$/m);
    });

    it('"Try it": with no address to hand out, npm start refuses, naming what to set', (t) => {
      if (unavailable({ 'unshare -n (root)': toolWorks('unshare', ['-n', 'true']) })) return t.skip();
      const r = spawnSync('unshare', ['-n', process.execPath, built.cli, 'serve'], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, LISTEN_PORT: '8080' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        "bootsmith: configuration error: LISTEN_ADDRESS is 0.0.0.0 (every address) but this host has no address other than loopback and link-local ones: set IMAGE_SERVICE_BASE_URL and SERVICE_BASE_URL to the URL BMCs and booted hosts reach this service on (e.g. http://<this host's address>:8080), or set LISTEN_ADDRESS to that address\n",
      );
      expect(README).toContain('it refuses to start and says');
    });

    it('"Command line": the files the blocks promise, and live.iso back to the demo image', () => {
      const { output } = sessions.get(COMMAND_LINE)!;
      for (const f of [
        'layout.json',
        'pristine.iso',
        'net/eth0.nmconnection',
        'tftp/live-vmlinuz',
        'tftp/live-initrd.img',
        'tftp/live-rootfs.img',
        'min.iso',
        'lab.iso',
        'plain.iso',
        'custom-initrd.img',
        'ignition.img',
        'net.img',
        'net-nmstate.img',
        'rack-2.iso',
      ])
        expect(existsSync(path.join(dir, f)), f).toBe(true);
      expect(readFileSync(path.join(dir, 'live.iso')).equals(readFileSync(DEMO_IMAGE_PATH))).toBe(true);
      expect(output).toContain('{"ignition":{"version":"3.4.0"}}');
      expect(output).toMatch(
        /^mitigations=auto,nosmt coreos\.liveiso=\S+ ignition\.firstboot ignition\.platform\.id=metal$/m,
      );
      expect(output).toMatch(/ignition\.platform\.id=metal console=ttyS0$/m);
      expect(output).toContain('# eth0-525400123456.nmconnection');
      expect(output).toMatch(/^ID\s+NAME\s+VERSION\s+ARCH\s+IMAGE TYPE$/m);
      expect(output).toMatch(/"name": ?"rack-2"/);
      expect(output).toMatch(/^HOST\s+INFRAENV\s+HOSTNAME\s+STATUS\s+INFO$/m);
      expect(JSON.parse(readFileSync(path.join(dir, 'layout.json'), 'utf8'))).toMatchObject({
        ignition: { file: 'images/ignition.img' },
      });
      execFileSync('cmp', [path.join(dir, 'plain.iso'), DEMO_IMAGE_PATH]); // iso reset undid iso customize
    });
  },
  SUITE_TIMEOUT_MS,
);
