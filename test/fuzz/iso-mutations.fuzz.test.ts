// Fuzz category iso-mutations (issue 15): structure-aware mutations of real live ISOs — the
// bundled fixtures and the coreos-installer fixtures — aimed at the fields the parser reads:
// Primary Volume Descriptor fields, directory record fields, SUSP/Rock Ridge entries, the
// contents of coreos/igninfo.json and coreos/kargs.json, and file extents.
//
// Every case must end in a manifest whose every extent lies inside the file, or in a typed
// BootsmithError. Anything else thrown is a crash; a manifest pointing outside the file is a
// wrong acceptance; a case slower than HANG_MS is a hang.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootsmithError } from '../../src/errors.js';
import { SECTOR_SIZE, directoryRecords } from '../../src/iso/directory-record.js';
import { withIsoFs } from '../../src/iso/iso9660.js';
import { parseLiveIso } from '../../src/iso/live-layout.js';
import type { LiveManifest } from '../../src/iso/manifest.js';
import {
  FixtureSet,
  HAVE_FIXTURES,
  HAVE_XZ,
  REPO_ROOT,
  findAll,
  makeTempDir,
  removeDir,
} from '../../src/iso/test-support/fixtures.js';
import { fuzzParameters, fuzzRuns } from './support/budget.js';
import { recordFigures } from './support/figures.js';

/** A real parse takes milliseconds; anything near the parse time budget is a hang. */
const HANG_MS = 5_000;
const CI_CASES = 2_000;

interface Structure {
  name: string;
  bytes: Buffer;
  /** Absolute positions of directory records and their lengths. */
  records: Array<{ at: number; length: number; directory: boolean }>;
  /** Absolute positions of SUSP entry signatures inside directory extents. */
  susp: number[];
  /** Extents of the JSON files the parser reads. */
  json: Array<{ path: string; offset: number; length: number; text: string }>;
}

const INTERESTING_U32 = [
  0, 1, 2, 16, 17, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
];
const PVD_FIELDS = [80, 84, 120, 124, 128, 130, 156, 157, 158, 166, 181, 188];
const RECORD_FIELDS: Array<{ at: number; size: 1 | 4 }> = [
  { at: 0, size: 1 },
  { at: 1, size: 1 },
  { at: 2, size: 4 },
  { at: 10, size: 4 },
  { at: 25, size: 1 },
  { at: 26, size: 1 },
  { at: 32, size: 1 },
];
const SUSP_SIGNATURES = ['SP', 'CE', 'NM', 'PX', 'TF', 'SL', 'RR', 'ST', 'ER'];

async function structureOf(name: string, file: string): Promise<Structure> {
  const bytes = readFileSync(file);
  const s: Structure = { name, bytes, records: [], susp: [], json: [] };
  await withIsoFs(file, async (iso) => {
    const dirs = [iso.root()];
    for await (const { entry } of iso.walk()) if (entry.isDirectory) dirs.push(entry);
    for (const dir of dirs) {
      const extent = bytes.subarray(dir.offset, dir.offset + dir.length);
      for (const r of directoryRecords(extent))
        s.records.push({ at: dir.offset + r.position, length: r.identifier.length, directory: (r.flags & 2) !== 0 });
      for (const sig of SUSP_SIGNATURES) for (const p of findAll(extent, sig)) s.susp.push(dir.offset + p);
    }
    for (const p of ['coreos/igninfo.json', 'coreos/kargs.json', 'coreos/features.json']) {
      const e = await iso.lookup(p);
      if (e && !e.isDirectory)
        s.json.push({
          path: p,
          offset: e.offset,
          length: e.length,
          text: bytes.toString('utf8', e.offset, e.offset + e.length),
        });
    }
  });
  return s;
}

type Mutation =
  | { kind: 'pvd'; field: number; value: number; wide: boolean }
  | { kind: 'record'; pick: number; field: number; value: number }
  | { kind: 'susp'; pick: number; delta: number; value: number }
  | { kind: 'json'; pick: number; edit: 'replace' | 'number' | 'truncate'; json: unknown; value: unknown; cut: number }
  | { kind: 'extent'; pick: number; lba: number; length: number }
  | { kind: 'flip'; picks: Array<[number, number]> };

const u32 = fc.oneof(fc.constantFrom(...INTERESTING_U32), fc.nat({ max: 0xffffffff }));
const weird = fc.oneof(
  fc.constantFrom(
    -1,
    0,
    2 ** 53,
    1e308,
    0.5,
    '12',
    null,
    true,
    [],
    {},
    'images/../../etc/passwd',
    '',
    'x'.repeat(5000),
  ),
  fc.integer(),
  fc.string(),
);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant('pvd' as const),
    field: fc.constantFrom(...PVD_FIELDS),
    value: u32,
    wide: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('record' as const),
    pick: fc.nat(),
    field: fc.nat({ max: RECORD_FIELDS.length - 1 }),
    value: u32,
  }),
  fc.record({ kind: fc.constant('susp' as const), pick: fc.nat(), delta: fc.integer({ min: 2, max: 27 }), value: u32 }),
  fc.record({
    kind: fc.constant('json' as const),
    pick: fc.nat(),
    edit: fc.constantFrom('replace' as const, 'number' as const, 'truncate' as const),
    json: fc.json({ maxDepth: 2 }).map((t) => JSON.parse(t) as unknown),
    value: weird,
    cut: fc.nat(),
  }),
  fc.record({ kind: fc.constant('extent' as const), pick: fc.nat(), lba: u32, length: u32 }),
  fc.record({
    kind: fc.constant('flip' as const),
    picks: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 8 }),
  }),
);

function writeU(buf: Buffer, at: number, size: 1 | 4, value: number): void {
  if (at + size > buf.length) return;
  if (size === 1) buf[at] = value & 0xff;
  else buf.writeUInt32LE(value >>> 0, at);
}

function apply(s: Structure, m: Mutation): Buffer {
  const b = Buffer.from(s.bytes);
  const pvd = 16 * SECTOR_SIZE;
  switch (m.kind) {
    case 'pvd':
      writeU(b, pvd + m.field, m.wide ? 4 : 1, m.value);
      break;
    case 'record': {
      const r = s.records[m.pick % s.records.length];
      const f = RECORD_FIELDS[m.field]!;
      if (r) writeU(b, r.at + f.at, f.size, m.value);
      break;
    }
    case 'susp': {
      const at = s.susp[m.pick % Math.max(1, s.susp.length)];
      if (at !== undefined) writeU(b, at + m.delta, m.delta >= 4 && m.delta <= 20 ? 4 : 1, m.value);
      break;
    }
    case 'json': {
      const j = s.json[m.pick % Math.max(1, s.json.length)];
      if (!j) break;
      let text: string;
      if (m.edit === 'replace') text = JSON.stringify(m.json);
      else if (m.edit === 'truncate') text = j.text.slice(0, m.cut % (j.text.length + 1));
      else {
        const parsed = JSON.parse(j.text) as Record<string, unknown>;
        const keys = Object.keys(parsed);
        const key = keys[m.cut % Math.max(1, keys.length)] ?? 'offset';
        text = JSON.stringify({ ...parsed, [key]: m.value });
      }
      const out = Buffer.alloc(j.length, 0x20);
      Buffer.from(text, 'utf8').copy(out, 0, 0, j.length);
      out.copy(b, j.offset);
      break;
    }
    case 'extent': {
      const files = s.records.filter((r) => !r.directory);
      const r = files[m.pick % Math.max(1, files.length)];
      if (r) {
        writeU(b, r.at + 2, 4, m.lba);
        writeU(b, r.at + 10, 4, m.length);
      }
      break;
    }
    case 'flip': {
      // byte flips inside the metadata: the descriptors and the directory extents
      const spots = [pvd, ...s.records.map((r) => r.at)];
      for (const [pick, value] of m.picks) {
        const base = spots[pick % spots.length]!;
        const at = base + (pick % 64);
        if (at < b.length) b[at] = value;
      }
      break;
    }
  }
  return b;
}

/** Why a manifest must not have been accepted, or undefined when it is consistent with the file. */
function inconsistency(m: LiveManifest, size: number): string | undefined {
  if (m.size !== size) return `size ${m.size} but the file is ${size}`;
  const extents: Array<[string, number, number]> = [['ignition', m.ignition.offset, m.ignition.length]];
  for (const [k, e] of Object.entries(m.files)) if (e) extents.push([k, e.offset, e.length]);
  for (const l of m.kargs?.locations ?? []) extents.push([`kargs ${l.file}`, l.offset, m.kargs?.size ?? 0]);
  for (const [what, offset, length] of extents) {
    if (
      !Number.isSafeInteger(offset) ||
      !Number.isSafeInteger(length) ||
      offset < 0 ||
      length < 0 ||
      offset + length > size
    ) {
      return `${what} extent ${offset}+${length} outside the ${size}-byte file`;
    }
  }
  if (m.ignition.length === 0) return 'empty Ignition area';
  return undefined;
}

describe('iso-mutations', () => {
  let dir: string;
  let fixtures: FixtureSet | undefined;
  const bases: Structure[] = [];

  beforeAll(async () => {
    dir = makeTempDir('fuzz-iso');
    for (const name of ['x86_64.iso', 's390x.iso', 'x86_64-miniso.iso'])
      bases.push(await structureOf(name, path.join(REPO_ROOT, 'fixtures/iso', name)));
    if (HAVE_FIXTURES && HAVE_XZ) {
      fixtures = FixtureSet.create('fuzz-iso');
      for (const name of fixtures.names()) bases.push(await structureOf(name, fixtures.path(name)));
    }
  });
  afterAll(() => {
    fixtures?.remove();
    removeDir(dir);
  });

  it('every mutated ISO yields a consistent manifest or a typed error, never a crash or a hang', async () => {
    const file = path.join(dir, 'case.iso');
    const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0, accepted: 0 };
    const examples: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.nat(), mutation, async (pick, m) => {
        const base = bases[pick % bases.length]!;
        const bytes = apply(base, m);
        writeFileSync(file, bytes);
        figures.cases++;
        const started = Date.now();
        try {
          const manifest = await parseLiveIso(file);
          figures.accepted++;
          const why = inconsistency(manifest, bytes.length);
          if (why) {
            figures.wrongAcceptances++;
            examples.push(`${base.name} ${JSON.stringify(m)}: accepted, ${why}`);
          }
        } catch (err) {
          if (!(err instanceof BootsmithError)) {
            figures.crashes++;
            examples.push(`${base.name} ${JSON.stringify(m).slice(0, 200)}: ${String(err)}`);
          }
        }
        if (Date.now() - started > HANG_MS) {
          figures.hangs++;
          examples.push(`${base.name} ${JSON.stringify(m).slice(0, 200)}: took ${Date.now() - started} ms`);
        }
      }),
      fuzzParameters(CI_CASES),
    );
    recordFigures({
      category: 'iso-mutations',
      cases: figures.cases,
      crashes: figures.crashes,
      hangs: figures.hangs,
      wrongAcceptances: figures.wrongAcceptances,
      dataLost: 0,
      notes: `${bases.length} base ISOs; ${figures.accepted} mutants still parsed (consistently); crash = anything but a BootsmithError, hang = over ${HANG_MS} ms`,
    });
    expect(figures.cases).toBe(fuzzRuns(CI_CASES));
    expect(examples).toEqual([]);
  });
});
