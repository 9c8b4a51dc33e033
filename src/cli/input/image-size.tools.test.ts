// Block devices as ISOs: the size logic (dev_t decoding, sysfs, the ISO 9660 volume size) on real
// files, and, where `losetup` works (root, loop devices present), in-place `iso ignition embed /
// show / remove` and `iso kargs modify / reset` on a loop device backed by a fixture ISO: only the
// embed and kargs areas are written, and remove/reset give back the original bytes.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseLiveIso } from '../../iso/live-layout.js';
import { REPO_ROOT } from '../../../test/support/probes.js';
import { runCaptured } from '../test-support/captured-io.js';
import { deviceNumbers, imageSize, iso9660VolumeSize, sysfsBlockDeviceSize } from './image-size.js';

const FIXTURE = path.join(REPO_ROOT, 'fixtures/iso/x86_64.iso');

/** glibc's makedev, to build dev_t values the way the kernel reports them. */
function makedev(major: number, minor: number): number {
  const low = ((minor & 0xff) | ((major & 0xfff) << 8) | ((minor & ~0xff) << 12)) >>> 0;
  const high = major & ~0xfff;
  return high * 2 ** 32 + low;
}

function loopDevicesWork(): boolean {
  if (process.getuid?.() !== 0) return false;
  return spawnSync('losetup', ['-f'], { stdio: 'ignore' }).status === 0;
}

describe('image sizes', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-image-size-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('decodes dev_t into major:minor like glibc', () => {
    expect(deviceNumbers(makedev(7, 0))).toEqual({ major: 7, minor: 0 });
    expect(deviceNumbers(makedev(259, 3))).toEqual({ major: 259, minor: 3 });
    expect(deviceNumbers(makedev(8, 300))).toEqual({ major: 8, minor: 300 });
    expect(deviceNumbers(makedev(4100, 70000))).toEqual({ major: 4100, minor: 70000 });
  });

  it('reads a size in 512-byte sectors from a sysfs tree, and nothing from a missing entry', async () => {
    mkdirSync(path.join(dir, 'dev/block/7:3'), { recursive: true });
    writeFileSync(path.join(dir, 'dev/block/7:3/size'), '2048\n');
    expect(await sysfsBlockDeviceSize(makedev(7, 3), dir)).toBe(2048 * 512);
    expect(await sysfsBlockDeviceSize(makedev(7, 4), dir)).toBeUndefined();
  });

  it('a regular file: its length; the ISO 9660 volume size of a fixture is its length too', async () => {
    const fh = await open(FIXTURE, 'r');
    try {
      expect(await imageSize(fh, FIXTURE)).toBe(statSync(FIXTURE).size);
      expect(await iso9660VolumeSize(fh, FIXTURE)).toBe((await parseLiveIso(FIXTURE)).size);
    } finally {
      await fh.close();
    }
    const notIso = path.join(dir, 'zeros');
    writeFileSync(notIso, Buffer.alloc(40_000));
    const z = await open(notIso, 'r');
    try {
      await expect(iso9660VolumeSize(z, notIso)).rejects.toThrow(`${notIso}: no ISO 9660 primary volume descriptor`);
    } finally {
      await z.close();
    }
  });

  it('refuses what is neither a file nor a block device', async () => {
    const fh = await open(dir, 'r');
    try {
      await expect(imageSize(fh, dir)).rejects.toThrow(`${dir}: not a regular file or block device`);
    } finally {
      await fh.close();
    }
  });
});

describe.runIf(loopDevicesWork())('in-place edits of a block device (loop device)', () => {
  let dir: string;
  let backing: string;
  let device: string;
  let original: Buffer;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-loop-'));
    backing = path.join(dir, 'disk.img');
    original = readFileSync(FIXTURE);
    // A device larger than the ISO, as a USB stick is: sizes come from the device, not the ISO.
    writeFileSync(backing, Buffer.concat([original, Buffer.alloc(1024 * 1024)]));
    device = execFileSync('losetup', ['-f', '--show', backing], { encoding: 'utf8' }).trim();
  });
  afterAll(() => {
    if (device) spawnSync('losetup', ['-d', device]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('ignition embed / show / remove and kargs modify / reset write only the areas', async () => {
    const manifest = await parseLiveIso(FIXTURE);
    const config = path.join(dir, 'c.ign');
    const ignition = Buffer.from('{"ignition":{"version":"3.4.0"}}\n');
    writeFileSync(config, ignition);
    const embed = await runCaptured(['iso', 'ignition', 'embed', '-i', config, device]);
    expect(embed.stderr).toBe('');
    expect(embed.code).toBe(0);
    expect((await runCaptured(['iso', 'ignition', 'show', device])).stdout.equals(ignition)).toBe(true);
    expect((await runCaptured(['iso', 'kargs', 'modify', '-a', 'loop.test=1', device])).code).toBe(0);
    expect((await runCaptured(['iso', 'kargs', 'show', device])).stdout.toString()).toMatch(/ loop\.test=1\n$/);
    execFileSync('sync');
    const edited = readFileSync(backing);
    // Outside the embed and kargs areas, nothing changed.
    const areas = [
      manifest.ignition,
      ...(manifest.kargs?.locations ?? []).map((l) => ({ offset: l.offset, length: manifest.kargs!.size })),
    ];
    const masked = (b: Buffer): Buffer => {
      const copy = Buffer.from(b);
      for (const a of areas) copy.fill(0, a.offset, a.offset + a.length);
      return copy;
    };
    expect(edited.equals(Buffer.concat([original, Buffer.alloc(1024 * 1024)]))).toBe(false);
    expect(masked(edited).equals(masked(Buffer.concat([original, Buffer.alloc(1024 * 1024)])))).toBe(true);

    expect((await runCaptured(['iso', 'reset', device])).code).toBe(0);
    execFileSync('sync');
    expect(readFileSync(backing).equals(Buffer.concat([original, Buffer.alloc(1024 * 1024)]))).toBe(true);
  });
});
