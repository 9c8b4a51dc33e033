// `bootsmith images pull|list` (src/cli/images.ts) run in-process with captured output:
// plain lines when the output is not a terminal, bars when it is, exit codes, and what
// `list` reports for verified, partial and unreferenced files.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imagesCommand } from '../cli/images.js';
import { CacheFiles, cacheName } from './cache/cache-layout.js';
import { entry, fixtureBytes } from './test-support/images.js';
import { IsoServer } from './test-support/iso-server.js';

class Capture {
  text = '';
  constructor(readonly isTTY = false) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

describe('bootsmith images', () => {
  const iso = fixtureBytes();
  const server = new IsoServer();
  let dataDir: string;

  beforeAll(async () => {
    await server.start();
    server.serve('/good.iso', iso, { chunkBytes: 128 * 1024, delayMs: 5 });
    dataDir = await mkdtemp(path.join(tmpdir(), 'bootsmith-cli-'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const images = (list: object[]) => JSON.stringify(list.map((e) => ({ ...e })));
  const good = { openshift_version: '4.17', cpu_architecture: 'x86_64', version: '417.94.1', url: '' };
  const run = async (args: string[], env: Record<string, string>, tty = false) => {
    const stdout = new Capture(tty);
    const stderr = new Capture();
    const code = await imagesCommand(args, { env: { DATA_DIR: dataDir, ...env }, stdout, stderr });
    return { code, out: stdout.text, err: stderr.text };
  };

  it('pull prints plain lines per state change and exits 1 when an image fails', async () => {
    const { code, out } = await run(['pull'], {
      OS_IMAGES: images([
        { ...good, url: server.url('/good.iso') },
        { ...good, openshift_version: '4.16', url: `${server.url('/gone.iso')}?token=secret` },
      ]),
    });
    expect(code).toBe(1);
    const lines = out.trim().split('\n');
    expect(lines).toContain('4.17 x86_64  pending');
    expect(lines).toContainEqual(
      expect.stringMatching(/^4\.17 x86_64  downloading  [\d.]+ (B|KiB|MiB) \/ 1\.0 MiB  [\d.]+%/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^4\.17 x86_64  ready  1\.0 MiB  sha256:[0-9a-f]{12}…$/));
    expect(lines).toContainEqual(
      expect.stringMatching(/^4\.16 x86_64  failed  .*gone\.iso: the server answered HTTP 404  \(retrying at /),
    );
    expect(lines.at(-1)).toBe(`1 of 2 images ready in ${dataDir}`);
    expect(out).not.toContain('secret');
    expect(out).not.toContain('\x1b[');
  });

  it('pull draws progress bars on a terminal and exits 0 when everything is ready', async () => {
    server.serve('/other.iso', iso, { chunkBytes: 64 * 1024, delayMs: 30 });
    const { code, out } = await run(
      ['pull'],
      { OS_IMAGES: images([{ ...good, openshift_version: '4.18', url: server.url('/other.iso') }]) },
      true,
    );
    expect(code).toBe(0);
    expect(out).toMatch(
      /\r\x1b\[2K4\.18 x86_64  downloading +\[#+\.*\]  [\d.]+ (KiB|MiB) \/ 1\.0 MiB  [\d.]+%  [\d.]+ (KiB|MiB)\/s  ETA \d+s\n/,
    );
    expect(out).toMatch(/\x1b\[1A/); // redrawn in place
    expect(out.trim().split('\n').at(-1)).toBe(`1 of 1 images ready in ${dataDir}`);
  });

  it('list reports verified, partial and missing images and unreferenced files without touching the network', async () => {
    const partial = entry('4.19', server.url('/partial.iso'));
    const files = new CacheFiles(path.join(dataDir, 'images'), cacheName(partial));
    await mkdir(files.dir, { recursive: true });
    await writeFile(files.isoPart, iso.subarray(0, 300 * 1024));
    await writeFile(CacheFiles.partInfo(files.isoPart), JSON.stringify({ total: iso.length }));
    await writeFile(path.join(files.dir, 'stale-4.9.iso'), 'x'.repeat(2048));
    const hits = server.hits.length;
    const config = images([
      { ...good, url: server.url('/good.iso') },
      { ...good, openshift_version: '4.19', url: server.url('/partial.iso') },
      { ...good, openshift_version: '4.20', url: server.url('/never.iso') },
    ]);
    const { code, out } = await run(['list'], { OS_IMAGES: config });
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe(`cache: ${path.join(dataDir, 'images')}`);
    expect(lines[1]).toMatch(
      /^4\.17 x86_64  verified  1\.0 MiB  sha256:[0-9a-f]{12}…  http:\/\/127\.0\.0\.1:\d+\/good\.iso$/,
    );
    expect(lines[2]).toMatch(/^4\.19 x86_64  partial  300 KiB of 1\.0 MiB downloaded  /);
    expect(lines[3]).toMatch(/^4\.20 x86_64  missing  /);
    expect(lines).toContain('unreferenced  stale-4.9.iso  2.0 KiB');
    expect(server.hits.length).toBe(hits);

    const json = JSON.parse((await run(['list', '--json'], { OS_IMAGES: config })).out) as {
      items: Array<{ state: string }>;
    };
    expect(json.items.map((i) => i.state)).toEqual(['verified', 'partial', 'missing']);
  });

  it('refuses bad settings and usage with exit code 2', async () => {
    const bad = await run(['pull'], { IMAGE_DOWNLOAD_CONCURRENCY: '0' });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/IMAGE_DOWNLOAD_CONCURRENCY must be a whole number from 1 to 64/);
    expect((await run(['frobnicate'], {})).code).toBe(2);
  });
});
