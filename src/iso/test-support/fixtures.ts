// Test support for src/iso: the shared coreos-installer fixture ISOs (decompressed into a temp
// dir), independent views of an image through xorriso, tiny ISOs built with xorriso, and
// byte-patching helpers. Used only by *.test.ts; never imported by production code.
//
// Does: decompress the ../shared fixtures (probes.ts says whether they are there), run xz/xorriso, patch copies in temp dirs.
// Does NOT: touch the shared fixtures themselves (they are read-only inputs).

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { FIXTURE_DIR, HAVE_FIXTURES } from '../../../test/support/probes.js';

// The probes live in one module (test/support/probes.ts); re-exported for the iso suites.
export {
  FIXTURE_DIR,
  HAVE_FIXTURES,
  HAVE_XORRISO,
  HAVE_XZ,
  REPO_ROOT,
  SHARED_DIR,
} from '../../../test/support/probes.js';

export function makeTempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `bootsmith-iso-${prefix}-`));
}

export function removeDir(dir: string | undefined): void {
  // Retries ENOTEMPTY/EBUSY: a store closing in the background may still be writing a record.
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** Names (`embed-areas-2021-09.iso`, ...) of every `*.iso.xz` fixture. */
export function fixtureNames(): string[] {
  if (!HAVE_FIXTURES) return [];
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.iso.xz'))
    .map((f) => f.slice(0, -'.xz'.length))
    .sort();
}

/** Decompresses every fixture into `dir`; returns name -> path. */
function decompressFixtures(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of fixtureNames()) {
    const dst = path.join(dir, name);
    writeFileSync(
      dst,
      execFileSync('xz', ['-dc', path.join(FIXTURE_DIR, `${name}.xz`)], { maxBuffer: 256 * 1024 * 1024 }),
    );
    out.set(name, dst);
  }
  return out;
}

/** Every fixture decompressed into a fresh temp dir, which also serves as scratch space. */
export class FixtureSet {
  private constructor(
    readonly dir: string,
    private readonly paths: Map<string, string>,
  ) {}

  static create(prefix: string): FixtureSet {
    const dir = makeTempDir(prefix);
    return new FixtureSet(dir, decompressFixtures(dir));
  }

  /** Path of the decompressed fixture `name` (e.g. `synthetic.iso`). */
  path(name: string): string {
    const p = this.paths.get(name);
    if (p === undefined) throw new Error(`fixture ${name} missing`);
    return p;
  }

  names(): string[] {
    return [...this.paths.keys()];
  }

  /** Writes a copy of fixture `name` changed by `patch`; returns its path. */
  patched(name: string, label: string, patch: (buf: Buffer) => void): string {
    const buf = readFileSync(this.path(name));
    patch(buf);
    const file = path.join(this.dir, `${label}-${name}`);
    writeFileSync(file, buf);
    return file;
  }

  remove(): void {
    removeDir(this.dir);
  }
}

/** INDEX: fixture name -> the indented description lines under it. */
export function fixtureIndex(): Map<string, string[]> {
  const index = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of readFileSync(path.join(FIXTURE_DIR, 'INDEX'), 'utf8').split('\n')) {
    if (/^\S+\.iso\.xz\s*$/.test(line)) {
      current = [];
      index.set(line.trim().slice(0, -'.xz'.length), current);
    } else if (current !== undefined && /^\s+\S/.test(line)) {
      current.push(line.trim());
    }
  }
  return index;
}

export interface XorrisoFile {
  lba: number;
  size: number;
}

/** `xorriso -find / -exec report_lba`: ISO path (no leading slash) -> start LBA and size. */
export function xorrisoReportLba(iso: string): Map<string, XorrisoFile> {
  const out = execFileSync('xorriso', ['-indev', iso, '-find', '/', '-exec', 'report_lba', '--'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const files = new Map<string, XorrisoFile>();
  for (const line of out.split('\n')) {
    const m = /^File data lba:\s*\d+\s*,\s*(\d+)\s*,\s*\d+\s*,\s*(\d+)\s*,\s*'\/(.*)'$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined && m[3] !== undefined) {
      // xorriso quotes like a shell: a ' inside the name is written as '"'"'
      files.set(m[3].replaceAll(`'"'"'`, `'`), { lba: Number(m[1]), size: Number(m[2]) });
    }
  }
  return files;
}

/** The PVD volume id as xorriso reports it. */
export function xorrisoVolumeId(iso: string): string {
  const out = execFileSync('xorriso', ['-indev', iso, '-pvd_info'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const m = /^Volume Id\s*:\s?(.*)$/m.exec(out);
  if (m?.[1] === undefined) throw new Error(`no Volume Id in xorriso output for ${iso}`);
  return m[1].trimEnd();
}

/** Extracts one file with xorriso; undefined when the image does not have it. */
export function xorrisoExtract(iso: string, isoPath: string, scratch: string): Buffer | undefined {
  mkdirSync(scratch, { recursive: true });
  const dst = path.join(scratch, `x-${Math.random().toString(36).slice(2)}`);
  const res = spawnSync('xorriso', ['-osirrox', 'on', '-indev', iso, '-extract', `/${isoPath}`, dst], {
    stdio: 'ignore',
  });
  if (res.status !== 0 || !existsSync(dst)) return undefined;
  const data = readFileSync(dst);
  rmSync(dst, { force: true });
  return data;
}

/** Ways xorriso can name files, each needing a different name-matching rule. */
export const XORRISO_FLAVORS: Record<string, string[]> = {
  // full-length, lower-case ISO 9660 names and no Rock Ridge
  relaxed: [
    '-rockridge',
    'off',
    '-joliet',
    'off',
    '-compliance',
    'iso_9660_level=3:untranslated_names:lowercase:no_force_dots:omit_version',
  ],
  // strict 8.3 upper-case names and no Rock Ridge: only the 8.3 rule can find long names
  level1: ['-rockridge', 'off', '-joliet', 'off', '-compliance', 'iso_9660_level=1'],
  // xorriso defaults: Rock Ridge names over upper-case ISO names
  rockridge: [],
};

/** Writes `files` under `dir`/src and builds `dir`/<flavor>.iso for every XORRISO_FLAVORS entry. */
export function buildFlavors(dir: string, files: Record<string, string | Buffer>): void {
  writeTree(path.join(dir, 'src'), files);
  for (const [flavor, settings] of Object.entries(XORRISO_FLAVORS)) {
    buildIso(path.join(dir, 'src'), path.join(dir, `${flavor}.iso`), settings);
  }
}

/** Builds an ISO from a directory tree; `settings` are xorriso commands placed before -map. */
export function buildIso(srcDir: string, out: string, settings: string[]): void {
  execFileSync('xorriso', ['-outdev', out, ...settings, '-map', srcDir, '/'], { stdio: 'ignore' });
}

/** Writes `files` (relative path -> contents) under `dir`. */
export function writeTree(dir: string, files: Record<string, string | Buffer>): void {
  for (const [rel, contents] of Object.entries(files)) {
    const dst = path.join(dir, rel);
    mkdirSync(path.dirname(dst), { recursive: true });
    writeFileSync(dst, contents);
  }
}

/** Every position of `needle` in `haystack`. */
export function findAll(haystack: Buffer, needle: Buffer | string): number[] {
  const n = typeof needle === 'string' ? Buffer.from(needle, 'latin1') : needle;
  const out: number[] = [];
  for (let i = haystack.indexOf(n); i >= 0; i = haystack.indexOf(n, i + 1)) out.push(i);
  return out;
}

/** Replaces the single occurrence of `from` by the same-length `to`; throws unless exactly one. */
export function replaceOnce(buf: Buffer, from: string, to: string): void {
  if (from.length !== to.length) throw new Error('replacement must keep the length');
  const hits = findAll(buf, from);
  const [at] = hits;
  if (at === undefined || hits.length !== 1)
    throw new Error(`expected one ${JSON.stringify(from)}, found ${hits.length}`);
  buf.write(to, at, 'latin1');
}

/**
 * Renames a directory entry in place: its ISO 9660 identifier (`NAME.EXT;1`) and, when present,
 * its Rock Ridge NM entry. Names must keep their length.
 */
export function renameEntry(
  buf: Buffer,
  isoName: string,
  newIsoName: string,
  rrName?: string,
  newRrName?: string,
): void {
  replaceOnce(buf, `${isoName};1`, `${newIsoName};1`);
  if (rrName === undefined || newRrName === undefined) return;
  const nm = Buffer.concat([Buffer.from([0x4e, 0x4d, 5 + rrName.length, 1, 0]), Buffer.from(rrName, 'latin1')]);
  const hits = findAll(buf, nm);
  const [at] = hits;
  if (at === undefined || hits.length !== 1) throw new Error(`expected one NM entry ${rrName}, found ${hits.length}`);
  buf.write(newRrName, at + 5, 'latin1');
}
