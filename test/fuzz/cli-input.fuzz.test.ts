// Fuzz category "cli-input" (issue 16): the offline CLI verbs under hostile input, run in-process
// through the verb runner with captured I/O (src/cli/test-support/captured-io.ts), plus a handful
// through the built binary. Seeded mutations of:
//   - ISO bytes: the embed area's archive header, the kargs areas, the primary volume descriptor,
//     random flips, truncation — then a random ISO verb (show, embed, remove, kargs, network,
//     customize, reset, inspect, extract) in place or with -o;
//   - inputs: Ignition configs, installer configs (YAML) and keyfiles given to `iso customize`
//     and `pxe customize`;
//   - argument vectors: known options and words shuffled, values missing or wrong.
// Every case must exit 0, 1 or 2; on 1 and 2 print exactly one `bootsmith: ` line that names the
// file or argument (an internal error would name neither: a crash), never a stack trace; leave
// the input unchanged on failure (else: data lost) and no temp file in the output directory (a
// crash); an output it wrote must read back with `iso inspect` (else: data lost). A mutated
// Ignition config without an `ignition.version`, or an installer config with an unknown key, that
// exits 0 is a wrong acceptance. A case slower than HANG_MS is a hang.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

import { INSTALLER_CONFIG_KEYS } from '../../src/cli/customize/installer-config.js';
import { runCaptured, type CapturedRun } from '../../src/cli/test-support/captured-io.js';
import { parseLiveIso } from '../../src/iso/live-layout.js';
import type { LiveManifest } from '../../src/iso/manifest.js';
import {
  FixtureSet,
  HAVE_FIXTURES,
  HAVE_XZ,
  REPO_ROOT,
  makeTempDir,
  removeDir,
} from '../../src/iso/test-support/fixtures.js';
import { fuzzParameters, fuzzRuns } from './support/budget.js';
import { builtCli } from './support/cli.js';
import { recordFigures } from './support/figures.js';

/** One verb on a 1 MiB ISO takes milliseconds; seconds mean a loop without a bound. */
const HANG_MS = 5_000;
const CI_ISO_CASES = 150;
const CI_INPUT_CASES = 120;
const CI_ARGV_CASES = 150;
const BINARY_CASES = 5;

interface Base {
  name: string;
  path: string;
  bytes: Buffer;
  manifest: LiveManifest;
}

const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0, dataLost: 0 };
const problems: string[] = [];
/** Exit codes seen, so the figures show the cases were not all refused (or all accepted). */
const exits = new Map<number, number>();
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

let dir: string;
let fixtures: FixtureSet | undefined;
const bases: Base[] = [];
let caseNo = 0;
let good: Record<string, string>;

function problem(kind: keyof typeof figures, what: string): void {
  figures[kind]++;
  if (problems.length < 20) problems.push(`${kind}: ${what}`);
}

/** The checks every case gets; `names` are the files/arguments an error may name. */
async function check(
  label: string,
  run: () => Promise<CapturedRun>,
  opts: { input?: string; outDir: string; names: string[]; output?: string; mustRefuse?: string },
): Promise<CapturedRun | undefined> {
  figures.cases++;
  const before = opts.input !== undefined && existsSync(opts.input) ? sha(readFileSync(opts.input)) : undefined;
  const started = Date.now();
  let r: CapturedRun;
  try {
    r = await run();
  } catch (err) {
    problem('crashes', `${label}: threw ${(err as Error).stack?.split('\n')[0]}`);
    return undefined;
  }
  exits.set(r.code, (exits.get(r.code) ?? 0) + 1);
  if (Date.now() - started > HANG_MS) problem('hangs', `${label}: ${Date.now() - started} ms`);
  if (![0, 1, 2].includes(r.code)) problem('crashes', `${label}: exit ${r.code}`);
  if (/\n\s+at /.test(r.stderr)) problem('crashes', `${label}: stack trace on stderr`);
  if (r.code !== 0) {
    const errorLines = r.stderr.split('\n').filter((l) => l.startsWith('bootsmith: '));
    if (errorLines.length !== 1)
      problem('crashes', `${label}: ${errorLines.length} error lines: ${JSON.stringify(r.stderr)}`);
    const line = errorLines[0] ?? '';
    const named =
      opts.names.some((n) => line.includes(n)) ||
      line.startsWith('bootsmith: "": ') ||
      /bootsmith (iso|pxe)\b/.test(line) ||
      / --?[a-z]/.test(line) ||
      line.includes('stdin');
    if (!named) problem('crashes', `${label}: error names no file or argument: ${line}`);
    if (r.code === 1 && r.stderr.split('\n').filter(Boolean).length !== 1)
      problem('crashes', `${label}: more than one line on stderr: ${JSON.stringify(r.stderr)}`);
    if (before !== undefined && sha(readFileSync(opts.input!)) !== before)
      problem('dataLost', `${label}: input changed on failure`);
  } else if (opts.mustRefuse !== undefined) {
    problem('wrongAcceptances', `${label}: accepted ${opts.mustRefuse}`);
  }
  const temps = readdirSync(opts.outDir).filter((f) => f.endsWith('.tmp'));
  if (temps.length > 0) {
    problem('crashes', `${label}: temp files left: ${temps.join(', ')}`);
    for (const t of temps) rmSync(path.join(opts.outDir, t));
  }
  if (r.code === 0 && opts.output !== undefined && existsSync(opts.output) && opts.output.endsWith('.iso')) {
    const inspect = await runCaptured(['iso', 'inspect', opts.output]);
    if (inspect.code !== 0) problem('dataLost', `${label}: output unreadable: ${inspect.stderr.trim()}`);
  }
  return r;
}

// ------------------------------------------------------------------ ISO mutations
type IsoMutation =
  | { kind: 'embed'; at: number; bytes: number[] }
  | { kind: 'kargs'; at: number; text: string }
  | { kind: 'pvd'; field: number; value: number }
  | { kind: 'flip'; picks: Array<[number, number]> }
  | { kind: 'truncate'; keep: number };

const isoMutation: fc.Arbitrary<IsoMutation> = fc.oneof(
  fc.record({
    kind: fc.constant('embed' as const),
    at: fc.nat({ max: 64 }),
    bytes: fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 16 }),
  }),
  fc.record({ kind: fc.constant('kargs' as const), at: fc.nat(), text: fc.string({ maxLength: 40 }) }),
  fc.record({
    kind: fc.constant('pvd' as const),
    field: fc.constantFrom(80, 84, 120, 128, 132, 140, 156, 158, 166),
    value: fc.constantFrom(0, 1, 0xff, 0xffff, 0x7fffffff, 0xffffffff),
  }),
  fc.record({
    kind: fc.constant('flip' as const),
    picks: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 8 }),
  }),
  fc.record({ kind: fc.constant('truncate' as const), keep: fc.nat() }),
);

function mutateIso(base: Base, m: IsoMutation): Buffer {
  const b = Buffer.from(base.bytes);
  switch (m.kind) {
    case 'embed':
      Buffer.from(m.bytes).copy(b, base.manifest.ignition.offset + m.at);
      break;
    case 'kargs': {
      const areas = base.manifest.kargs;
      if (!areas) break;
      const loc = areas.locations[m.at % areas.locations.length]!;
      Buffer.from(m.text, 'utf8').copy(b, loc.offset + (m.at % areas.size), 0, areas.size);
      break;
    }
    case 'pvd':
      b.writeUInt32LE(m.value, 16 * 2048 + m.field);
      break;
    case 'flip': {
      const spots = [
        16 * 2048,
        base.manifest.ignition.offset,
        ...(base.manifest.kargs?.locations.map((l) => l.offset) ?? []),
      ];
      for (const [pick, value] of m.picks) {
        const at = spots[pick % spots.length]! + (pick % 256);
        if (at < b.length) b[at] = value;
      }
      break;
    }
    case 'truncate':
      return b.subarray(0, m.keep % b.length);
  }
  return b;
}

const ISO_VERBS: Array<(iso: string, out: string) => string[]> = [
  (iso) => ['iso', 'ignition', 'show', iso],
  (iso) => ['iso', 'ignition', 'embed', '-f', '-i', good.ignition!, iso],
  (iso) => ['iso', 'ignition', 'remove', iso],
  (iso, out) => ['iso', 'ignition', 'remove', '-o', out, iso],
  (iso) => ['iso', 'kargs', 'show', iso],
  (iso) => ['iso', 'kargs', 'modify', '-a', 'fuzz=1', iso],
  (iso) => ['iso', 'kargs', 'reset', iso],
  (iso) => ['iso', 'network', 'extract', iso],
  (iso) => ['iso', 'network', 'embed', '-f', '-k', good.keyfile!, iso],
  (iso, out) => [
    'iso',
    'customize',
    '-q',
    '-f',
    '--dest-device',
    '/dev/vda',
    '--dest-ignition',
    good.ignition!,
    '-o',
    out,
    iso,
  ],
  (iso) => ['iso', 'customize', '-q', '-f', '--live-karg-append', 'fuzz=2', '--installer-config', good.installer!, iso],
  (iso, out) => ['iso', 'reset', '-q', '-o', out, iso],
  (iso) => ['iso', 'reset', iso],
  (iso) => ['iso', 'inspect', iso],
  (iso, out) => ['iso', 'extract', 'minimal-iso', '-q', iso, out],
];

// ------------------------------------------------------------------ argv mutations
const WORDS = [
  '--dest-device',
  '--dest-ignition',
  '--dest-console',
  '--dest-karg-append',
  '--dest-karg-delete',
  '--pre-install',
  '--post-install',
  '--installer-config',
  '--ignition-ca',
  '--network-keyfile',
  '--network-nmstate',
  '--mac-map',
  '--live-ignition',
  '--live-karg-append',
  '--live-karg-delete',
  '--live-karg-replace',
  '-f',
  '-o',
  '-q',
  '-i',
  '-a',
  '-d',
  '-r',
  '-k',
  '--',
  '-',
  '--output=',
  '--force=1',
  '/dev/vda',
  'vda',
  'ttyS0,115200n8',
  'console=ttyS0',
  'a=b=c',
  '',
  ' ',
  '\u0000',
  'nosuchfile',
];

describe('cli-input', () => {
  beforeAll(async () => {
    dir = makeTempDir('fuzz-cli');
    const add = async (name: string, file: string): Promise<void> => {
      bases.push({ name, path: file, bytes: readFileSync(file), manifest: await parseLiveIso(file) });
    };
    await add('x86_64.iso', path.join(REPO_ROOT, 'fixtures/iso/x86_64.iso'));
    await add('x86_64-miniso.iso', path.join(REPO_ROOT, 'fixtures/iso/x86_64-miniso.iso'));
    if (HAVE_FIXTURES && HAVE_XZ) {
      fixtures = FixtureSet.create('fuzz-cli');
      for (const name of ['embed-areas-2023-07.x86_64.iso', 'embed-areas-2021-12.iso', 'embed-areas-2023-07.s390x.iso'])
        await add(name, fixtures.path(name));
    }
    good = {
      ignition: path.join(dir, 'good.ign'),
      installer: path.join(dir, 'good.yaml'),
      keyfile: path.join(dir, 'eth0.nmconnection'),
      script: path.join(dir, 'post.sh'),
    };
    writeFileSync(good.ignition!, '{"ignition":{"version":"3.4.0"}}');
    writeFileSync(good.installer!, 'offline: true\n');
    writeFileSync(good.keyfile!, '[connection]\nid=eth0\ntype=ethernet\n');
    writeFileSync(good.script!, '#!/bin/sh\ntrue\n');
    // Bases with an embedded config, so the embed-area mutations hit a real archive header.
    for (const base of [...bases]) {
      const copy = path.join(dir, `embedded-${base.name}`);
      copyFileSync(base.path, copy);
      const r = await runCaptured(['iso', 'ignition', 'embed', '-i', good.ignition!, copy]);
      if (r.code === 0) await add(`embedded-${base.name}`, copy);
    }
  }, 120_000);
  afterAll(() => {
    recordFigures({
      category: 'cli-input',
      ...figures,
      notes:
        'offline verbs in-process (captured io) + built binary; ISO byte mutations, Ignition/installer-config/keyfile mutations, argv mutations; ' +
        'crash = exit not 0/1/2, stack trace, not exactly one error line naming a file/argument, temp file left; ' +
        'data lost = input changed on failure or unreadable output; wrong acceptance = invalid Ignition/installer config accepted; ' +
        `exits: ${[...exits]
          .sort(([a], [b]) => a - b)
          .map(([c, n]) => `${c}×${n}`)
          .join(' ')}` +
        (problems.length > 0 ? `; first problems: ${problems.join(' | ')}` : ''),
    });
    fixtures?.remove();
    removeDir(dir);
  });

  it('mutated ISOs through every ISO verb', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), isoMutation, fc.nat({ max: ISO_VERBS.length - 1 }), async (pick, m, verb) => {
        const base = bases[pick % bases.length]!;
        const caseDir = path.join(dir, `iso-${caseNo++}`);
        mkdirSync(caseDir);
        const iso = path.join(caseDir, 'in.iso');
        writeFileSync(iso, mutateIso(base, m));
        const out = path.join(caseDir, 'out.iso');
        const argv = ISO_VERBS[verb]!(iso, out);
        await check(`${argv.slice(0, 3).join(' ')} on ${base.name} ${m.kind}`, () => runCaptured(argv), {
          input: iso,
          outDir: caseDir,
          names: [iso, out, good.ignition!, good.keyfile!, good.installer!],
          output: out,
        });
        rmSync(caseDir, { recursive: true, force: true });
      }),
      fuzzParameters(CI_ISO_CASES),
    );
    expect(problems).toEqual([]);
  });

  it('mutated Ignition configs, installer configs and keyfiles through iso/pxe customize', async () => {
    const base = bases[0]!;
    const kinds = ['dest-ignition', 'live-ignition', 'installer-config', 'network-keyfile', 'pre-install'] as const;
    const text = fc.oneof(
      fc.json({ maxDepth: 3 }),
      fc.string({ maxLength: 200 }),
      fc.constantFrom(
        '{"ignition":{"version":"3.4.0"}}',
        '{"ignition":{"version":3}}',
        '{"ignition":{}}',
        '[]',
        'null',
        'dest-device: /dev/sda\n',
        'dest-device: [1, 2]\n',
        'frobnicate: true\n',
        'append-karg: quiet\n',
        'a: &a [*a]\n',
        '---\na: 1\n---\nb: 2\n',
        '[connection]\nid=x\n',
        '',
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...kinds),
        text,
        fc.nat({ max: 40 }),
        fc.boolean(),
        async (kind, body, cut, pxe) => {
          const caseDir = path.join(dir, `input-${caseNo++}`);
          mkdirSync(caseDir);
          const content = cut === 0 ? body : body.slice(0, Math.max(0, body.length - cut));
          const file = path.join(
            caseDir,
            kind === 'network-keyfile'
              ? 'eth0.nmconnection'
              : kind === 'pre-install'
                ? 'pre.sh'
                : `input.${kind === 'installer-config' ? 'yaml' : 'ign'}`,
          );
          writeFileSync(file, content);
          let mustRefuse: string | undefined;
          if (kind === 'dest-ignition' || kind === 'live-ignition') {
            let v: unknown;
            try {
              v = (JSON.parse(content) as { ignition?: { version?: unknown } } | null)?.ignition?.version;
            } catch {
              v = undefined;
            }
            if (typeof v !== 'string') mustRefuse = 'an Ignition config without ignition.version';
          } else if (kind === 'installer-config') {
            let doc: unknown;
            try {
              doc = parseYaml(content);
            } catch {
              doc = undefined;
            }
            if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
              mustRefuse = 'an installer config that is no YAML mapping';
            else if (Object.keys(doc).some((k) => !INSTALLER_CONFIG_KEYS.has(k)))
              mustRefuse = 'an installer config with an unknown key';
          }
          const iso = path.join(caseDir, 'in.iso');
          copyFileSync(base.path, iso);
          const input = pxe ? path.join(caseDir, 'initrd.img') : iso;
          if (pxe) {
            const ex = await runCaptured(['iso', 'extract', 'pxe', '-q', '-o', caseDir, iso]);
            expect(ex.code).toBe(0);
            copyFileSync(path.join(caseDir, 'in-initrd.img'), input);
            for (const f of ['in-vmlinuz', 'in-initrd.img', 'in-rootfs.img']) rmSync(path.join(caseDir, f));
          }
          const out = path.join(caseDir, pxe ? 'out.img' : 'out.iso');
          const argv = [
            pxe ? 'pxe' : 'iso',
            'customize',
            '-q',
            `--${kind}`,
            file,
            '--dest-device',
            '/dev/vda',
            '-o',
            out,
            input,
          ];
          await check(`${pxe ? 'pxe' : 'iso'} customize --${kind}`, () => runCaptured(argv), {
            input,
            outDir: caseDir,
            names: [file, input, out],
            output: out,
            ...(mustRefuse !== undefined ? { mustRefuse } : {}),
          });
          rmSync(caseDir, { recursive: true, force: true });
        },
      ),
      fuzzParameters(CI_INPUT_CASES),
    );
    expect(problems).toEqual([]);
  });

  it('mutated argument vectors', async () => {
    const base = bases[0]!;
    const prefixes = [
      ['iso', 'customize'],
      ['pxe', 'customize'],
      ['iso', 'ignition', 'embed'],
      ['iso', 'kargs', 'modify'],
      ['iso', 'reset'],
      ['iso', 'network', 'embed'],
      ['iso', 'extract', 'minimal-iso'],
      ['iso', 'frobnicate'],
      ['pxe'],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...prefixes),
        fc.array(
          fc.oneof(fc.constantFrom(...WORDS), fc.constantFrom('ISO', 'FILE', 'OUT'), fc.string({ maxLength: 8 })),
          { maxLength: 8 },
        ),
        async (prefix, words) => {
          const caseDir = path.join(dir, `argv-${caseNo++}`);
          mkdirSync(caseDir);
          const iso = path.join(caseDir, 'in.iso');
          copyFileSync(base.path, iso);
          const out = path.join(caseDir, 'out.iso');
          const argv = [
            ...prefix,
            ...words.map((w) => (w === 'ISO' ? iso : w === 'FILE' ? good.ignition! : w === 'OUT' ? out : w)),
          ];
          // `-` reads stdin: the captured io gives an empty one, never the test runner's.
          await check(`argv ${JSON.stringify(argv.slice(0, 6))}`, () => runCaptured(argv), {
            input: iso,
            outDir: caseDir,
            names: [iso, out, good.ignition!, ...words.filter((w) => w.length > 0)],
            output: out,
          });
          rmSync(caseDir, { recursive: true, force: true });
        },
      ),
      fuzzParameters(CI_ARGV_CASES),
    );
    expect(problems).toEqual([]);
  });

  it('a handful through the built binary: exit codes and one error line, no stack trace', async () => {
    const cli = builtCli();
    const caseDir = path.join(dir, 'binary');
    mkdirSync(caseDir);
    const iso = path.join(caseDir, 'in.iso');
    copyFileSync(bases[0]!.path, iso);
    const truncated = path.join(caseDir, 'short.iso');
    copyFileSync(bases[0]!.path, truncated);
    truncateSync(truncated, 40_000);
    const badIgn = path.join(caseDir, 'bad.ign');
    writeFileSync(badIgn, '{"ignition":{}}');
    const argvs: Array<[string[], number]> = [
      [['iso', 'customize', '-q', '--dest-device', '/dev/vda', '-o', path.join(caseDir, 'o.iso'), iso], 0],
      [['iso', 'customize', '--dest-ignition', badIgn, iso], 1],
      [['iso', 'ignition', 'show', truncated], 1],
      [['iso', 'customize', '--no-such-option', iso], 2],
      [['pxe', 'customize', iso], 2],
    ].slice(0, fuzzRuns(BINARY_CASES)) as Array<[string[], number]>;
    for (const [argv, expected] of argvs) {
      const r = await check(
        `binary ${argv.slice(0, 3).join(' ')}`,
        () =>
          new Promise<CapturedRun>((resolve) => {
            execFile(
              process.execPath,
              [cli, ...argv],
              { encoding: 'buffer', timeout: 30_000 },
              (err, stdout, stderr) => {
                const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
                resolve({ code, stdout, stderr: stderr.toString('utf8') });
              },
            );
          }),
        {
          input: iso,
          outDir: caseDir,
          names: [iso, truncated, badIgn, '--no-such-option', 'bootsmith pxe customize'],
          output: path.join(caseDir, 'o.iso'),
        },
      );
      expect(r?.code, argv.join(' ')).toBe(expected);
    }
    expect(problems).toEqual([]);
  });
});
