import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { unavailable } from '../../../test/support/requirements.js';
import { parseMultipart, useServeHarness } from './test-support/serve-harness.js';
import { DATA, testRep } from './test-support/test-representations.js';

// serveRepresentation() as curl sees it: whole downloads, -r single and multiple ranges, -I,
// and resuming with -C -.

const execFileAsync = promisify(execFile);
const harness = useServeHarness();
const { mount } = harness;

const CURL = findCurl();

function findCurl(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'curl'))) return join(dir, 'curl');
  }
  return undefined;
}

/** Runs curl; returns the response headers it dumped (status line first). */
async function curl(args: string[]): Promise<{ headers: string; stdout: Buffer }> {
  const dir = await mkdtemp(join(tmpdir(), 'range-curl-'));
  try {
    const headerFile = join(dir, 'headers');
    const { stdout } = await execFileAsync(CURL as string, ['-s', '-S', '-D', headerFile, ...args], {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    return { headers: await readFile(headerFile, 'latin1'), stdout };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function headerValue(dump: string, name: string): string | undefined {
  for (const line of dump.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return undefined;
}

describe.skipIf(unavailable({ curl: CURL !== undefined }))('serveRepresentation with curl', () => {
  it('downloads the whole representation', async () => {
    const { path } = mount(testRep(DATA));
    const { headers, stdout } = await curl([`http://127.0.0.1:${harness.port}${path}`]);
    expect(headers).toMatch(/^HTTP\/1\.1 200 /);
    expect(headerValue(headers, 'transfer-encoding')).toBeUndefined();
    expect(stdout.equals(DATA)).toBe(true);
  });

  it('fetches a single range with -r', async () => {
    const { path } = mount(testRep(DATA));
    const { headers, stdout } = await curl(['-r', '1000-1999', `http://127.0.0.1:${harness.port}${path}`]);
    expect(headers).toMatch(/^HTTP\/1\.1 206 /);
    expect(headerValue(headers, 'content-range')).toBe(`bytes 1000-1999/${DATA.length}`);
    expect(stdout.equals(DATA.subarray(1000, 2000))).toBe(true);
  });

  it('fetches several ranges as a multipart body', async () => {
    const { path } = mount(testRep(DATA));
    const { headers, stdout } = await curl(['-r', '0-9,100-109,-20', `http://127.0.0.1:${harness.port}${path}`]);
    expect(headers).toMatch(/^HTTP\/1\.1 206 /);
    expect(headerValue(headers, 'content-length')).toBe(String(stdout.length));
    const parts = parseMultipart(stdout, headerValue(headers, 'content-type') ?? '');
    expect(parts.map((p) => [p.start, p.end])).toEqual([
      [0, 9],
      [100, 109],
      [DATA.length - 20, DATA.length - 1],
    ]);
    for (const part of parts) expect(part.data.equals(DATA.subarray(part.start, part.end + 1))).toBe(true);
  });

  it('answers curl -I like the GET', async () => {
    const { path } = mount(testRep(DATA, { filename: 'discovery.iso' }));
    const { headers } = await curl(['-I', `http://127.0.0.1:${harness.port}${path}`]);
    expect(headers).toMatch(/^HTTP\/1\.1 200 /);
    expect(headerValue(headers, 'content-length')).toBe(String(DATA.length));
    expect(headerValue(headers, 'accept-ranges')).toBe('bytes');
    expect(headerValue(headers, 'content-disposition')).toBe('attachment; filename="discovery.iso"');
  });

  it('resumes an interrupted download with -C -', async () => {
    const { path } = mount(testRep(DATA));
    const dir = await mkdtemp(join(tmpdir(), 'range-resume-'));
    try {
      const file = join(dir, 'partial.iso');
      await writeFile(file, DATA.subarray(0, 12_345));
      const { headers } = await curl(['-C', '-', '-o', file, `http://127.0.0.1:${harness.port}${path}`]);
      expect(headers).toMatch(/^HTTP\/1\.1 206 /);
      expect((await readFile(file)).equals(DATA)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
