// The "Disconnected sites" walk-through on a plain Debian host (docs/operator/disconnected-sites.md)
// runs as written (issue 37: the section needed oras, podman and a release payload, which Debian
// does not have): its blocks marked `<!-- doc-test: disconnected-site -->`, in order, in one bash session (`set -euo pipefail`), in a directory set up like a
// checkout holding `rhcos-live.x86_64.iso` (the bootable fixture ISO), inside a network namespace
// of its own (`unshare -n`, root: loopback up, plus a veth pair with an address and a default route
// so bootsmith has an address to hand out, as a real host has) and a PID namespace (`-p -f`). The one substitution:
// MIRROR=localhost:5000, which the blocks read. Debian's docker-registry (TLS with the CA the block
// makes, htpasswd), umoci and skopeo push the ISO; `npx bootsmith serve` pulls it from there.
// Then what the blocks promise: /health shows the image ready, pulled from the mirror by digest,
// with the fixture's sha256; the files the blocks write exist. Everything started is stopped when
// the session ends: its EXIT trap stops the background jobs, and the kernel ends whatever they
// started in turn (`npx` does not pass its signal on to `bootsmith serve`) when the session, the
// PID namespace's first process, exits.
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_REGISTRY_TOOLS } from '../../src/images/fetch/oci/test-support/registry-lab.js';
import { REPO_ROOT } from '../support/probes.js';
import { toolWorks, unavailable } from '../support/requirements.js';
import { buildCli, type BuiltCli } from '../support/build-cli.js';
import { checkoutDir } from './support/checkout-dir.js';
import { blocksRunBy } from './support/doc-blocks.js';

/** tsc of the service, keys, a registry, a push, a first start with initdb and a pull on a loaded two-core machine. */
const SESSION_TIMEOUT_MS = 360_000;
const BUILD_TIMEOUT_MS = 300_000;
const ISO = path.join(REPO_ROOT, 'fixtures', 'iso', 'x86_64.iso');
/** Sets up the namespace, then sources each block; the trap stops what the blocks started in the background. */
const SESSION = [
  'ip link set lo up',
  // a veth pair with an address and a default route inside the namespace: an address to hand out
  'ip link add bs37a type veth peer name bs37b && ip addr add 10.99.37.1/24 dev bs37a',
  'ip link set bs37a up && ip link set bs37b up && ip route add default dev bs37a',
  "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT",
  'set -euo pipefail',
  'for f in "$@"; do printf "\\n::doc-test %s\\n" "${f##*/}"; . "$f"; done',
].join('\n');

const blocks = blocksRunBy('disconnected-site');

describe('"Disconnected sites" on a plain Debian host', () => {
  it('has the walk-through as marked shell blocks', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    expect(blocks.every((b) => b.lang === 'sh')).toBe(true);
  });
});

describe.skipIf(
  unavailable({
    ...HAVE_REGISTRY_TOOLS,
    curl: toolWorks('curl'),
    'unshare -n -p and ip (root)': toolWorks('unshare', ['-n', '-p', '-f', 'ip', 'link', 'set', 'lo', 'up']),
  }),
)('"Disconnected sites": the blocks run as written', () => {
  let built: BuiltCli;
  let dir: string;
  let code: number | null;
  let output = '';

  beforeAll(async () => {
    built = await buildCli();
    dir = await checkoutDir(built, 'bootsmith-disconnected-');
    copyFileSync(ISO, path.join(dir, 'rhcos-live.x86_64.iso')); // what the reader carried in
    await mkdir(path.join(dir, '.doc-test'));
    const files: string[] = [];
    for (const [i, b] of blocks.entries()) {
      const file = path.join(dir, '.doc-test', `disconnected-${i}-line-${b.line}.sh`);
      await writeFile(file, b.code);
      files.push(file);
    }
    const child = spawn('unshare', ['-n', '-p', '-f', 'bash', '-c', SESSION, 'doc-test', ...files], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, LANG: 'C.UTF-8', MIRROR: 'localhost:5000' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: SESSION_TIMEOUT_MS,
    });
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  }, SESSION_TIMEOUT_MS + BUILD_TIMEOUT_MS);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    await built?.remove();
  });

  it('every block exits 0', () => {
    const last = [...output.matchAll(/::doc-test (\S+)/g)].pop()?.[1];
    const log = (() => {
      try {
        return readFileSync(path.join(dir, 'bootsmith.log'), 'utf8').slice(-3000);
      } catch {
        return '(no bootsmith.log)';
      }
    })();
    expect(code, `stopped in ${last ?? '(no block)'}:\n${output.slice(-4000)}\n--- bootsmith.log:\n${log}`).toBe(0);
  });

  it('bootsmith took the ISO from the mirror, by digest, and verified it', () => {
    const digest = /^(sha256:[0-9a-f]{64})$/m.exec(output)?.[1];
    expect(digest, output.slice(-2000)).toBeDefined();
    const health = JSON.parse(output.slice(output.lastIndexOf('{"status"')).split('\n')[0]!) as {
      images: Array<Record<string, unknown>>;
    };
    const sha = createHash('sha256').update(readFileSync(ISO)).digest('hex');
    expect(health.images[0], JSON.stringify(health.images[0])).toMatchObject({
      state: 'ready',
      source: `oci://localhost:5000/ocp/rhcos-live@${digest}`,
      pulled_from: `localhost:5000/ocp/rhcos-live@${digest}`,
      sha256: sha,
    });
  });
});
