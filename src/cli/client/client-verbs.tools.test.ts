// The client verbs against a real running service (`bootsmith serve --role all` as a child, on
// loopback, embedded PostgreSQL in a temp DATA_DIR), run as the built CLI: infraenv create / list /
// show / download (also resuming a cut-off download) / delete, events, errors; `hosts list` with
// the hostname an agent reported in its inventory; and
// `hosts list --watch` in a real terminal (tmux), whose screen is printed into the test log.
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildCli, type BuiltCli } from '../../../test/support/build-cli.js';
import { inventory } from '../../core/test-support/harness.js';
import { startServe, type ServeChild } from '../../../test/support/serve-child.js';
import { toolWorks, unavailable } from '../../../test/support/requirements.js';
import { startTmuxSession } from '../test-support/tmux-session.js';

const SUITE_TIMEOUT_MS = 300_000;
const HAVE_TMUX = toolWorks('tmux', ['-V']);
/** How long the watched table may take to show a new host (refresh every 0.5 s). */
const SCREEN_WAIT_MS = 30_000;
const PULL_SECRET = '{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe.skipIf(unavailable({ tmux: HAVE_TMUX }))(
  'client verbs against a running service',
  () => {
    let built: BuiltCli;
    let serve: ServeChild;
    let dir: string;

    const run = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> =>
      new Promise((resolve) => {
        execFile(
          process.execPath,
          [built.cli, ...args],
          {
            env: { PATH: process.env.PATH, BOOTSMITH_URL: serve.url, ...env },
            timeout: 60_000,
            maxBuffer: 64 * 1024 * 1024,
          },
          (err, stdout, stderr) =>
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
        );
      });
    const ok = async (args: string[]): Promise<string> => {
      const r = await run(args);
      expect(r.code, `bootsmith ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    const create = async (name: string): Promise<string> =>
      (
        await ok([
          'infraenv',
          'create',
          '--name',
          name,
          '--openshift-version',
          '4.17',
          '--cpu-architecture',
          'x86_64',
          '--pull-secret',
          PULL_SECRET,
        ])
      ).trim();

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-client-'));
      chmodSync(dir, 0o711); // the embedded PostgreSQL (an unprivileged user when run as root) must reach DATA_DIR
      built = await buildCli();
      serve = await startServe(built.cli, path.join(dir, 'data'), {}, ['--role', 'all']);
    }, SUITE_TIMEOUT_MS);
    afterAll(async () => {
      serve?.child.kill('SIGTERM');
      await serve?.exited;
      await built?.remove();
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    });

    it('infraenv create / list / show / delete, events, and errors as one line', async () => {
      const secretFile = path.join(dir, 'pull-secret.json');
      writeFileSync(secretFile, `${PULL_SECRET}\n`);
      const id = (
        await ok([
          'infraenv',
          'create',
          '--name',
          'lab',
          '--openshift-version',
          '4.17',
          '--pull-secret',
          `@${secretFile}`,
          '--image-type',
          'full-iso',
        ])
      ).trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const list = await ok(['infraenv', 'list']);
      expect(list.split('\n')[0]).toMatch(/^ID\s+NAME\s+VERSION\s+ARCH\s+IMAGE TYPE$/);
      expect(list).toMatch(new RegExp(`${id}\\s+lab\\s+4\\.17\\s+x86_64\\s+full-iso`));
      const shown = JSON.parse(await ok(['infraenv', 'show', id])) as Record<string, unknown>;
      expect(shown.id).toBe(id);
      expect(shown).not.toHaveProperty('pull_secret');
      expect(JSON.stringify(shown)).not.toContain('dXNlcjpwYXNz');

      const events = await ok(['events', '--infra-env', id]);
      expect(events.trim().split('\n').length).toBeGreaterThan(0);
      const followed = await ok(['events', '--infra-env', id, '--follow', '--count', '2', '--interval', '0.2']);
      expect(followed).toBe(events); // the second round printed nothing new

      await ok(['infraenv', 'delete', id]);
      expect(await ok(['infraenv', 'list'])).not.toContain(id);
      const missing = await run(['infraenv', 'show', id]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(
        new RegExp(
          `^bootsmith: ${serve.url.replaceAll('.', '\\.')}: GET /api/assisted-install/v2/infra-envs/${id}: 404 .+\\n$`,
        ),
      );
      const down = await run(['infraenv', 'list'], { BOOTSMITH_URL: 'http://127.0.0.1:1' });
      expect(down.code).toBe(1);
      expect(down.stderr.split('\n')).toHaveLength(2);
      expect((await run(['infraenv', 'create', '--name', 'x'])).code).toBe(1);
      expect((await run(['infraenv', 'show'])).code).toBe(2);
    });

    it('infraenv download writes the ISO, checks its size, and resumes a cut-off download', async () => {
      const id = await create('download');
      const out = path.join(dir, 'full.iso');
      const r = await run(['infraenv', 'download', id, '--type', 'full', '-o', out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/full\.iso: done \(/);
      const whole = readFileSync(out);
      const url = `${serve.url}/images/${id}?version=4.17&arch=x86_64&type=full-iso`;
      const head = await fetch(url, { method: 'HEAD' });
      expect(whole.length).toBe(Number(head.headers.get('content-length')));
      expect(whole.equals(Buffer.from(await (await fetch(url)).arrayBuffer()))).toBe(true);

      // A download cut off halfway: the .part and its ETag are there; the rerun fetches the rest.
      const again = path.join(dir, 'again.iso');
      writeFileSync(`${again}.part`, whole.subarray(0, Math.floor(whole.length / 2)));
      writeFileSync(`${again}.part.etag`, head.headers.get('etag') ?? '');
      const resumed = await run(['infraenv', 'download', id, '-q', '-o', again]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toBe('');
      expect(readFileSync(again).equals(whole)).toBe(true);
    });

    it('hosts list names an agent-registered host by the hostname of its inventory', async () => {
      const id = await create('named');
      const hostId = crypto.randomUUID();
      const post = (p: string, body: unknown) =>
        fetch(`${serve.api}/infra-envs/${id}/hosts${p}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await post('', { host_id: hostId })).status).toBe(201);
      const before = await ok(['hosts', 'list', id]);
      expect(before).toMatch(new RegExp(`${hostId}\\s+${id}\\s+discovering`)); // no name yet: an empty column
      const reply = await post(`/${hostId}/instructions`, {
        step_type: 'inventory',
        exit_code: 0,
        output: JSON.stringify(inventory({ hostname: 'worker-3.lab.example' })),
      });
      expect(reply.status).toBeLessThan(300);
      const after = await ok(['hosts', 'list', id]);
      expect(after.split('\n')[0]).toMatch(/^HOST\s+INFRAENV\s+HOSTNAME\s+STATUS\s+INFO$/);
      expect(after).toMatch(new RegExp(`${hostId}\\s+${id}\\s+worker-3\\.lab\\.example\\s+`));
      expect(await ok(['hosts', 'list'])).toContain('worker-3.lab.example');
    });

    it('hosts list --watch redraws a live table in a real terminal (tmux)', async () => {
      const id = await create('watch');
      const session = `bootsmith-watch-${process.pid}`;
      const command = [
        process.execPath,
        built.cli,
        'hosts',
        'list',
        id,
        '--watch',
        '--interval',
        '0.5',
        '--url',
        serve.url,
      ]
        .map((w) => `'${w}'`)
        .join(' ');
      const terminal = startTmuxSession(session, { columns: 160, rows: 20 }, command, {
        waitMs: SCREEN_WAIT_MS,
        stepMs: 200,
      });
      try {
        const empty = await terminal.screenWith(/HOST\s+INFRAENV\s+HOSTNAME\s+STATUS/);
        console.log(`hosts list --watch, before any host registered:\n${empty}`);
        const hostId = crypto.randomUUID();
        const reg = await fetch(`${serve.api}/infra-envs/${id}/hosts`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ host_id: hostId }),
        });
        expect(reg.status).toBe(201);
        const screen = await terminal.screenWith(new RegExp(`${hostId}\\s+${id}\\s+.*discovering`));
        console.log(`hosts list --watch, after a host registered:\n${screen}`);
        expect(screen.split('\n')[0]).toMatch(/^hosts at \d\d:\d\d:\d\d \(Ctrl-C to stop\)$/);
        expect(screen.match(/HOST\s+INFRAENV/g)).toHaveLength(1); // redrawn in place, not scrolled
        terminal.sendKeys('C-c');
        const ended = await terminal.screenWith(/exit \d+/);
        expect(ended).toContain('exit 0');
      } finally {
        terminal.kill();
      }
    });
  },
  SUITE_TIMEOUT_MS,
);
