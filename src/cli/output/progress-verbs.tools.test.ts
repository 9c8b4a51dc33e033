// Progress of the writing verbs: `iso extract minimal-iso` (sized from miniso.dat's xz index) and
// `iso customize -o` print plain lines at each tenth when stderr is not a terminal, a bar redrawn
// in place when it is, nothing with -q; and, in a real terminal (tmux), `iso customize -o -`
// on a 9 MiB ISO, its stdout drained slowly so the bar is seen moving; the screens are printed
// into the test log.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildCli, type BuiltCli } from '../../../test/support/build-cli.js';
import { xzUncompressedSize } from '../../iso/miniso/xz-size.js';
import { FixtureSet, HAVE_FIXTURES, HAVE_XORRISO, HAVE_XZ } from '../../iso/test-support/fixtures.js';
import { REPO_ROOT } from '../../../test/support/probes.js';
import { toolWorks, unavailable } from '../../../test/support/requirements.js';
import { runCaptured } from '../test-support/captured-io.js';
import { startTmuxSession } from '../test-support/tmux-session.js';
import { formatBytes } from './progress-meter.js';

const HAVE_TMUX = toolWorks('tmux', ['-V']);
/** tsc of the whole service plus an ISO build on a loaded two-core machine. */
const SUITE_TIMEOUT_MS = 300_000;
const SCREEN_WAIT_MS = 60_000;
const MINISO_FIXTURE = 'embed-areas-2023-07.x86_64.iso';

describe.skipIf(unavailable({ xz: HAVE_XZ }))('xzUncompressedSize', () => {
  it('reads the size from the index of single- and multi-block streams, and refuses non-xz bytes', () => {
    const data = Buffer.alloc(300_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 251;
    const one = execFileSync('xz', ['-c', '--check=crc32'], { input: data });
    const many = execFileSync('xz', ['-c', '--block-size=65536'], { input: data });
    expect(xzUncompressedSize(one)).toBe(300_000);
    expect(xzUncompressedSize(many)).toBe(300_000);
    expect(xzUncompressedSize(Buffer.concat([many, Buffer.alloc(8)]))).toBe(300_000);
    expect(xzUncompressedSize(Buffer.from('not xz at all, not at all'))).toBeUndefined();
    expect(xzUncompressedSize(many.subarray(0, many.length - 1))).toBeUndefined();
  });
});

describe.skipIf(unavailable({ fixtures: HAVE_FIXTURES, xz: HAVE_XZ }))('progress output of writing verbs', () => {
  let fixtures: FixtureSet;
  beforeAll(() => {
    fixtures = FixtureSet.create('progress');
  });
  afterAll(() => fixtures?.remove());

  it('extract minimal-iso: plain lines up to "done (size)", a redrawn bar on a terminal, nothing with -q', async () => {
    const iso = fixtures.path(MINISO_FIXTURE);
    const out = path.join(fixtures.dir, 'minimal.iso');
    const plain = await runCaptured(['iso', 'extract', 'minimal-iso', iso, out]);
    expect(plain.code).toBe(0);
    const size = statSync(out).size;
    const lines = plain.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(`${out}: done (${formatBytes(size)})`);
    // The fixture's minimal ISO is written in chunks, each counted against the xz-index total.
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines.slice(0, -1))
      expect(line).toMatch(new RegExp(`^${out}: [1-9]0% \\(.* of ${formatBytes(size).replace('.', '\\.')}\\)$`));

    const quiet = await runCaptured(['iso', 'extract', 'minimal-iso', '-q', iso, `${out}.q`]);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(readFileSync(`${out}.q`).equals(readFileSync(out))).toBe(true);

    const tty = await runCaptured(['iso', 'extract', 'minimal-iso', iso, `${out}.t`], { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr.endsWith(`\r${out}.t [${'#'.repeat(30)}] 100% ${formatBytes(size)}\x1b[K\n`)).toBe(true);
  });

  it('customize -o: plain lines, nothing with -q', async () => {
    const iso = fixtures.path(MINISO_FIXTURE);
    const out = path.join(fixtures.dir, 'custom.iso');
    const r = await runCaptured(['iso', 'customize', '--live-karg-append', 'a=1', '-o', out, iso]);
    expect(r.code).toBe(0);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(`${out}: done (${formatBytes(statSync(out).size)})`);
    const q = await runCaptured(['iso', 'customize', '-q', '--live-karg-append', 'a=1', '-o', `${out}.q`, iso]);
    expect(q.stderr).toBe('');
  });
});

describe.skipIf(unavailable({ tmux: HAVE_TMUX, xorriso: HAVE_XORRISO }))(
  'the progress bar in a real terminal (tmux)',
  () => {
    let built: BuiltCli;
    let dir: string;
    let iso: string;
    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-progress-'));
      iso = path.join(dir, 'padded.iso');
      // 8 MiB of padding: the copy runs in nine 1 MiB chunks, so the bar has steps to show.
      execFileSync('bash', [path.join(REPO_ROOT, 'fixtures/build-live-iso.sh'), '--size-pad', '8', '--out', iso], {
        stdio: 'ignore',
      });
      built = await buildCli();
    }, SUITE_TIMEOUT_MS);
    afterAll(async () => {
      await built?.remove();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('iso customize -o - shows a bar redrawn in place while the copy runs', async () => {
      const session = `bootsmith-progress-${process.pid}`;
      const drained = path.join(dir, 'drained.bytes');
      // stdout goes to a reader that takes 64 KiB every 30 ms (about 0.5 s per MiB).
      const slow = `while [ "$(dd bs=65536 count=1 iflag=fullblock status=none | tee -a '${drained}' | wc -c)" -gt 0 ]; do sleep 0.03; done`;
      const command = `'${process.execPath}' '${built.cli}' iso customize --live-karg-append progress=1 -o - '${iso}' | { ${slow}; }`;
      writeFileSync(drained, '');
      const terminal = startTmuxSession(session, { columns: 120, rows: 10 }, command, {
        waitMs: SCREEN_WAIT_MS,
        stepMs: 50,
      });
      try {
        const midway = await terminal.screenWith(/^stdout \[#+-+\]\s+\d{1,2}% \d/m);
        console.log(`iso customize -o -, mid-copy:\n${midway}`);
        const done = await terminal.screenWith(/exit \d+/);
        console.log(`iso customize -o -, finished:\n${done}`);
        expect(done).toContain('exit 0');
        expect(done).toMatch(
          new RegExp(`^stdout \\[#{30}\\] 100% ${formatBytes(statSync(iso).size).replace('.', '\\.')}$`, 'm'),
        );
        // Redrawn in place: one bar line on the screen, not one per step.
        expect(done.match(/^stdout \[/gm)).toHaveLength(1);
        expect(statSync(drained).size).toBe(statSync(iso).size);
      } finally {
        terminal.kill();
      }
    });
  },
  SUITE_TIMEOUT_MS,
);
