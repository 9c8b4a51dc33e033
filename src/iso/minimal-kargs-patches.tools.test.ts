import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FormatError, PayloadTooLargeError } from '../errors.js';
import { unavailable } from '../../test/support/requirements.js';
import { withIsoFs } from './iso9660.js';
import { parseLiveIso } from './live-layout.js';
import type { LiveManifest } from './manifest.js';
import {
  minimalKargsPatches,
  planMinimalKargs,
  type IsoPatch,
  type MinimalKargsPlan,
} from './minimal-kargs-patches.js';
import { minimalIsoDefaultKargs, minimalIsoKargs } from './minimal-kargs.js';
import { rebuildMinimalIso } from './miniso/miniso.js';
import { readEmbeddedKargs } from './read-embed-areas.js';
import {
  fixtureIndex,
  fixtureNames,
  FixtureSet,
  HAVE_FIXTURES,
  HAVE_XORRISO,
  HAVE_XZ,
  makeTempDir,
  REPO_ROOT,
  removeDir,
  xorrisoExtract,
} from './test-support/fixtures.js';

const URL = 'https://bootsmith.example.com/boot-artifacts/rootfs?arch=x86_64&version=4.14';
const OUR_FULL = path.join(REPO_ROOT, 'fixtures/iso/x86_64-miniso.iso');

/** Applies `patches` to a copy of `iso`; checks nothing outside them changed. */
function applyPatches(iso: string, patches: IsoPatch[], out: string): void {
  const before = readFileSync(iso);
  const after = Buffer.from(before);
  for (const p of patches) {
    expect(p.bytes.length).toBe(p.length);
    p.bytes.copy(after, p.offset);
  }
  let pos = 0;
  for (const p of patches) {
    expect(after.subarray(pos, p.offset).equals(before.subarray(pos, p.offset))).toBe(true);
    pos = p.offset + p.length;
  }
  expect(after.subarray(pos).equals(before.subarray(pos))).toBe(true);
  writeFileSync(out, after);
}

async function plan(iso: string, m: Pick<LiveManifest, 'kargs'>, url = URL): Promise<MinimalKargsPlan> {
  return withIsoFs(iso, (fs) => planMinimalKargs(fs, m, url));
}

/** What coreos-installer's `iso extract minimal-iso --rootfs-url` leaves: checked on the edited copy. */
async function checkEdited(edited: string, liveDefault: string, extra = ''): Promise<void> {
  const m = await parseLiveIso(edited);
  expect(m.kargs?.default).toBe(minimalIsoDefaultKargs(liveDefault));
  const kargs = await readEmbeddedKargs(edited, m);
  expect(kargs).toBe(`${minimalIsoKargs(liveDefault, URL)}${extra}`);
  expect(kargs).not.toMatch(/coreos\.liveiso=/);
  expect(kargs).toContain(`coreos.live.rootfs_url="${URL}"`);
}

describe.skipIf(unavailable({ xz: HAVE_XZ, xorriso: HAVE_XORRISO }))(
  'kargs of the minimal ISO rebuilt from our fixture',
  () => {
    let dir = '';
    let minimal = '';
    let m: LiveManifest;
    let liveDefault = '';

    beforeAll(async () => {
      dir = makeTempDir('minimal-kargs');
      minimal = path.join(dir, 'minimal.iso');
      const full = await parseLiveIso(OUR_FULL);
      liveDefault = full.kargs!.default;
      await rebuildMinimalIso(OUR_FULL, full, minimal);
      m = await parseLiveIso(minimal);
    });
    afterAll(() => removeDir(dir));

    it('rewrites every kargs area and kargs.json in place; the ISO keeps its size and layout', async () => {
      const p = await plan(minimal, m);
      const patches = minimalKargsPatches(p);
      expect(patches).toHaveLength(3);
      const edited = path.join(dir, 'edited.iso');
      applyPatches(minimal, patches, edited);
      await checkEdited(edited, liveDefault);
      const after = await parseLiveIso(edited);
      expect(after.kargs?.locations).toEqual(m.kargs?.locations);
      expect(after.size).toBe(m.size);
      const grub = xorrisoExtract(edited, 'EFI/fedora/grub.cfg', path.join(dir, 'x'))!.toString('utf8');
      expect(grub).toContain(
        `\tlinux /images/pxeboot/vmlinuz mitigations=auto,nosmt ignition.firstboot ignition.platform.id=metal coreos.live.rootfs_url="${URL}"\n####`,
      );
      const kargsJson = xorrisoExtract(edited, 'coreos/kargs.json', path.join(dir, 'x'))!.toString('utf8');
      expect(kargsJson).toMatch(
        /^\{\n {2}"default": "mitigations=auto,nosmt ignition.firstboot ignition.platform.id=metal",\n {2}"files": \[\n {4}\{\n {6}"path": "EFI\/fedora\/grub.cfg",\n {6}"offset": 325,/,
      );
      expect(kargsJson).toMatch(/\n}\s+$/);
    });

    it('appends extra kargs (an InfraEnv kernel_arguments) after the rootfs URL', async () => {
      const edited = path.join(dir, 'extra.iso');
      applyPatches(minimal, minimalKargsPatches(await plan(minimal, m), ['console=ttyS0', 'rd.debug']), edited);
      await checkEdited(edited, liveDefault, ' console=ttyS0 rd.debug');
    });

    it('throws PayloadTooLargeError when the URL does not fit the areas', async () => {
      const p = await plan(minimal, m, `https://h/${'x'.repeat(2000)}`);
      expect(() => minimalKargsPatches(p)).toThrow(PayloadTooLargeError);
    });

    it('refuses images without kargs areas, without kargs.json, or without coreos.liveiso=', async () => {
      await expect(plan(minimal, { kargs: undefined })).rejects.toThrow(/has no kernel-argument embed areas/);
      await expect(plan(minimal, { kargs: { ...m.kargs!, default: 'a b' } })).rejects.toThrow(
        /no coreos.liveiso= argument/,
      );
    });
  },
);

describe.skipIf(unavailable({ '../shared fixtures': HAVE_FIXTURES, xz: HAVE_XZ, xorriso: HAVE_XORRISO }))(
  'kargs of minimal ISOs rebuilt from the coreos-installer fixtures',
  () => {
    const index = HAVE_FIXTURES ? fixtureIndex() : new Map<string, string[]>();
    const withMiniso = fixtureNames().filter((n) => index.get(n)?.some((l) => l.startsWith('miniso.dat version 1')));
    let fx: FixtureSet;
    beforeAll(() => {
      fx = FixtureSet.create('minimal-kargs');
    });
    afterAll(() => fx?.remove());

    it.each(withMiniso)('%s: as coreos-installer iso extract minimal-iso --rootfs-url leaves it', async (name) => {
      const fullPath = fx.path(name);
      const full = await parseLiveIso(fullPath);
      const minimal = path.join(fx.dir, `${name}.minimal`);
      await rebuildMinimalIso(fullPath, full, minimal);
      const m = await parseLiveIso(minimal);
      if (full.kargs === undefined) {
        // s390x before 2023-07: coreos-installer does not support minimal ISOs there either
        await expect(plan(minimal, m)).rejects.toThrow(FormatError);
        return;
      }
      const original = xorrisoExtract(minimal, 'coreos/kargs.json', path.join(fx.dir, 'x'))!;
      const edited = path.join(fx.dir, `${name}.edited`);
      applyPatches(minimal, minimalKargsPatches(await plan(minimal, m)), edited);
      await checkEdited(edited, full.kargs.default);
      const rewritten = xorrisoExtract(edited, 'coreos/kargs.json', path.join(fx.dir, 'x'))!;
      expect(rewritten.length).toBe(original.length);
      const before = JSON.parse(original.toString('utf8')) as { files: object[]; size: number };
      const after = JSON.parse(rewritten.toString('utf8')) as { files: object[]; size: number };
      expect(after.files).toEqual(before.files); // pad/end stay absent where the original lacks them
      expect(after.size).toBe(before.size);
    });

    it('refuses an image whose kargs areas come only from the legacy coreKarg header (no kargs.json)', async () => {
      const iso = fx.path('embed-areas-2021-01.iso');
      const m = await parseLiveIso(iso);
      expect(m.kargs?.source).toBe('legacy-header');
      await expect(plan(iso, m)).rejects.toThrow(/has no coreos\/kargs.json \(only a legacy coreKarg header\)/);
    });
  },
);
