// console/qr.js (the console's QR encoder) checked by an independent decoder: codes of every
// version it makes (1–10, byte mode, level M) are drawn into a PGM image and read back with
// zbarimg (zbar-tools); text longer than version 10 holds is refused.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../package-root.js';
import { toolWorks, unavailable } from '../../test/support/requirements.js';

const HAVE_ZBARIMG = toolWorks('zbarimg', ['--version']);
/** Pixels per module and the quiet zone (modules) of the test images. */
const SCALE = 4;
const QUIET = 4;
/** Byte capacity of versions 1–10 at level M: each length fills one version exactly. */
const CAPACITIES = [14, 26, 42, 62, 84, 106, 122, 152, 180, 213];

type Qr = { qrMatrix(text: string): boolean[][]; QrTooLongError: new () => Error };

describe.skipIf(unavailable({ zbarimg: HAVE_ZBARIMG }))('console QR encoder', () => {
  let qr: Qr;
  let dir: string;
  beforeAll(async () => {
    qr = (await import(pathToFileURL(path.join(PACKAGE_ROOT, 'console', 'qr.js')).href)) as Qr;
    dir = await mkdtemp(path.join(tmpdir(), 'console-qr-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  async function decode(matrix: boolean[][]): Promise<string> {
    const n = (matrix.length + 2 * QUIET) * SCALE;
    const pixels = Buffer.alloc(n * n, 255);
    matrix.forEach((row, y) =>
      row.forEach((dark, x) => {
        if (!dark) return;
        for (let i = 0; i < SCALE; i++)
          pixels.fill(
            0,
            ((y + QUIET) * SCALE + i) * n + (x + QUIET) * SCALE,
            ((y + QUIET) * SCALE + i) * n + (x + QUIET + 1) * SCALE,
          );
      }),
    );
    const file = path.join(dir, 'code.pgm');
    await writeFile(file, Buffer.concat([Buffer.from(`P5\n${n} ${n}\n255\n`), pixels]));
    return execFileSync('zbarimg', ['--raw', '-q', file], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString('utf8')
      .replace(/\n$/, '');
  }

  it('makes codes zbarimg reads back, one per version 1–10', async () => {
    for (const [i, length] of CAPACITIES.entries()) {
      const text = `http://10.0.0.1:8080/bytoken/${'Ab0-_'.repeat(60)}`.slice(0, length);
      const matrix = qr.qrMatrix(text);
      expect(matrix.length, `length ${length}`).toBe(21 + 4 * i);
      expect(await decode(matrix), `length ${length}`).toBe(text);
    }
  });

  it('reads back a real download URL and non-ASCII text', async () => {
    const url = 'https://bootsmith.example.com:8443/bytoken/ilKHIeN-HyqmyKBkcirzNT5OC-ohKDIC/4.17/x86_64/full.iso';
    expect(await decode(qr.qrMatrix(url))).toBe(url);
    expect(await decode(qr.qrMatrix('größe ✓'))).toBe('größe ✓');
  });

  it('refuses text longer than a version 10 code holds', () => {
    expect(() => qr.qrMatrix('x'.repeat(214))).toThrow(qr.QrTooLongError);
    expect(qr.qrMatrix('x'.repeat(213)).length).toBe(57);
  });
});
