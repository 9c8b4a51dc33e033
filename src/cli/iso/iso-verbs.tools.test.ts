// The offline ISO and PXE verbs on every coreos-installer fixture ISO
// (../shared/fixtures/coreos-installer), run in this process through the command tree with
// captured standard streams (src/cli/test-support/captured-io.ts): embed → show → remove gives
// back the original bytes (in place, to a new file and to stdout), kargs modify/show/reset keep
// every area consistent, extract minimal-iso is byte-identical to the SHA-256 recorded in
// miniso.dat, and the exit codes and one-line errors of the failure cases. Then one smoke test
// per verb group (iso ignition, iso kargs, iso network, iso extract, iso customize, pxe) runs the
// built CLI as a child process, as a user does: the same commands through main.ts, real stdin,
// stdout, stderr and exit status.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildCli, type BuiltCli } from '../../../test/support/build-cli.js';
import { readEmbedArea } from '../../initrd/embed-archive.js';
import { parseLiveIso } from '../../iso/live-layout.js';
import { readMinisoData } from '../../iso/miniso/miniso.js';
import { readEmbeddedKargs } from '../../iso/read-embed-areas.js';
import { FixtureSet, fixtureNames, HAVE_FIXTURES, HAVE_XZ } from '../../iso/test-support/fixtures.js';
import { unavailable } from '../../../test/support/requirements.js';
import { runCaptured, type CapturedRun } from '../test-support/captured-io.js';

/** Decompressing the fixtures and ~60 verb runs in this process on a loaded two-core machine. */
const SUITE_TIMEOUT_MS = 180_000;
/** tsc of the whole service (the smoke tests run the built CLI) on a loaded two-core machine. */
const BUILD_TIMEOUT_MS = 300_000;
/** One child run of the CLI. */
const CHILD_TIMEOUT_MS = 60_000;

type Run = CapturedRun;

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const ignition = Buffer.from('{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/cli-test"}]}}\n');
const SMOKE_ISO = 'embed-areas-2023-07.x86_64.iso';

describe.skipIf(unavailable({ fixtures: HAVE_FIXTURES, xz: HAVE_XZ }))(
  'bootsmith iso/pxe verbs on coreos-installer fixtures',
  () => {
    let fixtures: FixtureSet;
    let n = 0;

    const run = (args: string[], stdin?: Buffer): Promise<Run> =>
      runCaptured(args, stdin === undefined ? {} : { stdin });
    const ok = async (args: string[], stdin?: Buffer): Promise<Run> => {
      const r = await run(args, stdin);
      expect(r.stderr, `bootsmith ${args.join(' ')}`).toBe('');
      expect(r.code, `bootsmith ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r;
    };
    const copy = (name: string): string => {
      const dest = path.join(fixtures.dir, `work-${n++}-${name}`);
      copyFileSync(fixtures.path(name), dest);
      return dest;
    };

    beforeAll(() => {
      fixtures = FixtureSet.create('cli');
    }, SUITE_TIMEOUT_MS);
    afterAll(() => {
      fixtures?.remove();
    });

    const names = fixtureNames().filter((name) => name.startsWith('embed-areas-')); // synthetic.iso is no live ISO

    it.each(names)(
      '%s: embed → show → remove gives back the original bytes, in place, -o FILE and -o -',
      async (name) => {
        const original = readFileSync(fixtures.path(name));
        const iso = copy(name);
        const config = path.join(fixtures.dir, `config-${name}.ign`);
        writeFileSync(config, ignition);

        const none = await run(['iso', 'ignition', 'show', iso]);
        expect(none.code).toBe(1);
        expect(none.stderr).toBe(`bootsmith: ${iso}: no embedded Ignition config\n`);

        await ok(['iso', 'ignition', 'embed', '-i', config, iso]);
        expect((await ok(['iso', 'ignition', 'show', iso])).stdout.equals(ignition)).toBe(true);
        const edited = readFileSync(iso);
        expect(edited.length).toBe(original.length);
        // In place only the embed area changed.
        const { ignition: area } = await parseLiveIso(fixtures.path(name));
        expect(edited.subarray(0, area.offset).equals(original.subarray(0, area.offset))).toBe(true);
        expect(edited.subarray(area.offset + area.length).equals(original.subarray(area.offset + area.length))).toBe(
          true,
        );
        expect(
          (await readEmbedArea(edited.subarray(area.offset, area.offset + area.length))).ignition?.equals(ignition),
        ).toBe(true);

        const refused = await run(['iso', 'ignition', 'embed', '-i', config, iso]);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('already has an embedded Ignition config; use -f to force');
        expect(readFileSync(iso).equals(edited)).toBe(true);
        await ok(['iso', 'ignition', 'embed', '-f', '-q', iso], Buffer.from('{"ignition":{"version":"3.4.0"}}'));
        expect((await ok(['iso', 'ignition', 'show', iso])).stdout.toString()).toBe('{"ignition":{"version":"3.4.0"}}');

        const out = path.join(fixtures.dir, `out-${name}`);
        await ok(['iso', 'ignition', 'remove', '-q', '-o', out, iso]);
        expect(readFileSync(out).equals(original)).toBe(true);
        const piped = await ok(['iso', 'ignition', 'remove', '-q', '-o', '-', iso]);
        expect(piped.stdout.equals(original)).toBe(true);
        await ok(['iso', 'ignition', 'remove', iso]);
        expect(readFileSync(iso).equals(original)).toBe(true);
        expect(readdirSync(fixtures.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      },
    );

    it.each(names)('%s: kargs modify / show / reset keep every area consistent', async (name) => {
      const original = readFileSync(fixtures.path(name));
      const manifest = await parseLiveIso(fixtures.path(name));
      const iso = copy(name);
      if (manifest.kargs === undefined) {
        const r = await run(['iso', 'kargs', 'show', iso]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('no kargs embed areas');
        return;
      }
      const defaults = manifest.kargs.default;
      expect((await ok(['iso', 'kargs', 'show', iso])).stdout.toString()).toBe(`${defaults}\n`);
      const first = defaults.split(' ')[0]!;
      await ok([
        'iso',
        'kargs',
        'modify',
        '-a',
        'console=ttyS0',
        '-a',
        'foo=bar',
        '-d',
        first,
        '-r',
        'foo=bar=baz',
        iso,
      ]);
      const expected = [...defaults.split(' ').filter((w) => w !== first), 'console=ttyS0', 'foo=baz'].join(' ');
      expect((await ok(['iso', 'kargs', 'show', iso])).stdout.toString()).toBe(`${expected}\n`);
      expect((await ok(['iso', 'kargs', 'show', '--default', iso])).stdout.toString()).toBe(`${defaults}\n`);
      // Independent check: every area decodes to the same kargs (readEmbeddedKargs throws otherwise).
      expect(await readEmbeddedKargs(iso, manifest)).toBe(expected);

      const tooLong = `x=${'y'.repeat(manifest.kargs.size)}`;
      const refused = await run(['iso', 'kargs', 'modify', '-a', tooLong, iso]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        new RegExp(`the kargs areas hold ${manifest.kargs.size - 1}; \\d+ bytes too many`),
      );
      const missing = await run(['iso', 'kargs', 'modify', '-d', 'no-such-karg', iso]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('"no-such-karg" is not present');

      await ok(['iso', 'kargs', 'reset', iso]);
      expect(readFileSync(iso).equals(original)).toBe(true);
    });

    it.each(names)('%s: extract minimal-iso is byte-identical to the recorded SHA-256', async (name) => {
      const manifest = await parseLiveIso(fixtures.path(name));
      const out = path.join(fixtures.dir, `minimal-${name}`);
      if (manifest.files.minisoData === undefined) {
        const r = await run(['iso', 'extract', 'minimal-iso', fixtures.path(name), out]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('has no coreos/miniso.dat');
        return;
      }
      const fh = await open(fixtures.path(name), 'r');
      const data = await readMinisoData({ fh, path: fixtures.path(name), size: manifest.size }, manifest).finally(() =>
        fh.close(),
      );
      await ok(['iso', 'extract', 'minimal-iso', '-q', fixtures.path(name), out]);
      expect(sha256(readFileSync(out))).toBe(data.digest.toString('hex'));
      const piped = await ok(['iso', 'extract', 'minimal-iso', '-q', fixtures.path(name)]);
      expect(sha256(piped.stdout)).toBe(data.digest.toString('hex'));
    });

    it('extract pxe writes kernel, initrd (with the embedded config appended) and rootfs', async () => {
      const name = SMOKE_ISO;
      const manifest = await parseLiveIso(fixtures.path(name));
      const original = readFileSync(fixtures.path(name));
      const iso = copy(name);
      const dir = path.join(fixtures.dir, 'pxe', 'tftp'); // not there yet: created as coreos-installer does
      await ok(['iso', 'ignition', 'embed', iso], ignition);
      const r = await run(['iso', 'extract', 'pxe', '-o', dir, iso]);
      expect(r.code).toBe(0);
      const stem = path.basename(iso, '.iso');
      const slice = (e: { offset: number; length: number }): Buffer => original.subarray(e.offset, e.offset + e.length);
      expect(readFileSync(path.join(dir, `${stem}-vmlinuz`)).equals(slice(manifest.files.kernel!))).toBe(true);
      expect(readFileSync(path.join(dir, `${stem}-rootfs.img`)).equals(slice(manifest.files.rootfs!))).toBe(true);
      const initrd = readFileSync(path.join(dir, `${stem}-initrd.img`));
      const baseInitrd = slice(manifest.files.initrd!);
      expect(initrd.subarray(0, baseInitrd.length).equals(baseInitrd)).toBe(true);
      const tail = initrd.subarray(baseInitrd.length + ((4 - (baseInitrd.length % 4)) % 4));
      expect((await readEmbedArea(tail)).ignition?.equals(ignition)).toBe(true);
      // Not a TTY: plain progress lines, ending with "done".
      expect(r.stderr).toMatch(/-rootfs\.img: done \(\d+ B\)\n$/);
    });

    it('network embed / extract / remove beside the Ignition config; customize in one pass', async () => {
      const name = SMOKE_ISO;
      const original = readFileSync(fixtures.path(name));
      const iso = copy(name);
      const keyfile = path.join(fixtures.dir, 'eth0.nmconnection');
      writeFileSync(keyfile, '[connection]\nid=eth0\ntype=ethernet\n');
      await ok(['iso', 'ignition', 'embed', iso], ignition);
      await ok(['iso', 'network', 'embed', '-k', keyfile, iso]);
      expect((await run(['iso', 'network', 'embed', '-k', keyfile, iso])).code).toBe(1);
      expect((await ok(['iso', 'network', 'extract', iso])).stdout.toString()).toBe(
        '# eth0.nmconnection\n[connection]\nid=eth0\ntype=ethernet\n',
      );
      const netDir = path.join(fixtures.dir, 'net'); // not there yet: created as coreos-installer does
      expect((await ok(['iso', 'network', 'extract', '-C', netDir, iso])).stdout.toString()).toBe(
        `${path.join(netDir, 'eth0.nmconnection')}\n`,
      );
      expect(readFileSync(path.join(netDir, 'eth0.nmconnection'), 'utf8')).toBe(
        '[connection]\nid=eth0\ntype=ethernet\n',
      );
      expect((await ok(['iso', 'ignition', 'show', iso])).stdout.equals(ignition)).toBe(true);
      await ok(['iso', 'ignition', 'remove', iso]);
      expect((await ok(['iso', 'network', 'extract', iso])).stdout.toString()).toContain('id=eth0');
      await ok(['iso', 'network', 'remove', iso]);
      expect(readFileSync(iso).equals(original)).toBe(true);

      const config = path.join(fixtures.dir, 'customize.ign');
      writeFileSync(config, ignition);
      const out = path.join(fixtures.dir, 'customized.iso');
      await ok([
        'iso',
        'customize',
        '-q',
        '--live-ignition',
        config,
        '--live-karg-append',
        'console=ttyS0',
        '--network-keyfile',
        keyfile,
        '-o',
        out,
        iso,
      ]);
      // --live-ignition is merged at boot, as coreos-installer does: the live config lists it.
      const live = JSON.parse((await ok(['iso', 'ignition', 'show', out])).stdout.toString()) as {
        ignition: { version: string; config: { merge: Array<{ source: string }> } };
      };
      expect(live.ignition.version).toBe('3.3.0');
      const merged = live.ignition.config.merge[0]!.source.replace('data:;base64,', '');
      expect(gunzipSync(Buffer.from(merged, 'base64')).equals(ignition)).toBe(true);
      expect((await ok(['iso', 'kargs', 'show', out])).stdout.toString()).toMatch(/ console=ttyS0\n$/);
      expect((await ok(['iso', 'network', 'extract', out])).stdout.toString()).toContain('id=eth0');
      const again = await run([
        'iso',
        'customize',
        '--live-ignition',
        config,
        '-o',
        path.join(fixtures.dir, 'x.iso'),
        out,
      ]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('use -f');
    });

    it('network embed --nmstate converts nmstate YAML through src/network/nmstate, bound to the NIC by --mac-map', async () => {
      const iso = copy(SMOKE_ISO);
      const yaml = path.join(fixtures.dir, 'net.yaml');
      writeFileSync(
        yaml,
        [
          'interfaces:',
          '  - name: eth0',
          '    type: ethernet',
          '    state: up',
          '    ipv4: {enabled: true, dhcp: false, address: [{ip: 192.0.2.10, prefix-length: 24}]}',
          'routes:',
          '  config: [{destination: 0.0.0.0/0, next-hop-address: 192.0.2.1, next-hop-interface: eth0}]',
          '',
        ].join('\n'),
      );
      await ok(['iso', 'network', 'embed', '--nmstate', yaml, '--mac-map', 'eth0=52:54:00:12:34:56', iso]);
      const shown = (await ok(['iso', 'network', 'extract', iso])).stdout.toString();
      expect(shown).toMatch(/^# eth0-525400123456\.nmconnection\n/);
      expect(shown).toContain('mac-address=52:54:00:12:34:56');
      expect(shown).toContain('address1=192.0.2.10/24,192.0.2.1');
      expect((await run(['pxe', 'network', 'wrap', '--nmstate', yaml])).code).toBe(2); // no --mac-map
      expect(
        (await run(['pxe', 'network', 'wrap', '--nmstate', yaml, '-k', yaml, '--mac-map', 'eth0=52:54:00:12:34:56']))
          .code,
      ).toBe(2);
      const bad = await run(['pxe', 'network', 'wrap', '--nmstate', yaml, '--mac-map', 'eth0=not-a-mac']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain(`${yaml}: `);
      expect(bad.stderr).toContain('is not a MAC address');
    });

    it('pxe ignition wrap / unwrap, also of a PXE initrd with the config appended', async () => {
      const wrapped = (await ok(['pxe', 'ignition', 'wrap'], ignition)).stdout;
      const file = path.join(fixtures.dir, 'wrapped.img');
      writeFileSync(file, wrapped);
      expect((await ok(['pxe', 'ignition', 'unwrap', file])).stdout.equals(ignition)).toBe(true);
      const initrd = Buffer.concat([Buffer.from('0707010000'), Buffer.alloc(0)]);
      expect((await run(['pxe', 'ignition', 'unwrap', '-'], initrd)).code).toBe(1);
      const keyfile = path.join(fixtures.dir, 'br0.nmconnection');
      writeFileSync(keyfile, '[connection]\nid=br0\n');
      const net = (await ok(['pxe', 'network', 'wrap', '-k', keyfile])).stdout;
      const contents = await readEmbedArea(net);
      expect(contents.networkKeyfiles.map((k) => k.name)).toEqual(['br0.nmconnection']);
    });

    it('usage errors exit 2, --help exits 0 on every verb, bad input exits 1 with one line', async () => {
      const verbs = [
        ['iso', 'ignition', 'embed'],
        ['iso', 'ignition', 'show'],
        ['iso', 'ignition', 'remove'],
        ['iso', 'kargs', 'modify'],
        ['iso', 'kargs', 'show'],
        ['iso', 'kargs', 'reset'],
        ['iso', 'network', 'embed'],
        ['iso', 'network', 'extract'],
        ['iso', 'network', 'remove'],
        ['iso', 'extract', 'pxe'],
        ['iso', 'extract', 'minimal-iso'],
        ['iso', 'customize'],
        ['iso', 'inspect'],
        ['pxe', 'ignition', 'wrap'],
        ['pxe', 'ignition', 'unwrap'],
        ['pxe', 'network', 'wrap'],
      ];
      for (const verb of verbs) {
        const help = await ok([...verb, '--help']);
        expect(help.stdout.toString()).toContain(`usage: bootsmith ${verb.join(' ')}`);
        const bad = await run([...verb, '--no-such-option']);
        expect(bad.code, verb.join(' ')).toBe(2);
      }
      expect((await run(['iso', 'ignition', 'show'])).code).toBe(2);
      expect((await run(['iso', 'frobnicate'])).code).toBe(2);
      const notIso = path.join(fixtures.dir, 'not.iso');
      writeFileSync(notIso, Buffer.alloc(70_000, 1));
      const r = await run(['iso', 'ignition', 'show', notIso]);
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr).toContain(notIso);
      const badConfig = path.join(fixtures.dir, 'bad.ign');
      writeFileSync(badConfig, 'not json');
      const iso = copy(SMOKE_ISO);
      const before = readFileSync(iso);
      const b = await run(['iso', 'ignition', 'embed', '-i', badConfig, iso]);
      expect(b.code).toBe(1);
      expect(b.stderr).toContain(`${badConfig}: not a valid Ignition config`);
      expect(readFileSync(iso).equals(before)).toBe(true);
    });

    describe('smoke: one child-process run of the built CLI per verb group', () => {
      let built: BuiltCli;
      const child = (args: string[], stdin?: Buffer): Promise<Run> =>
        new Promise((resolve) => {
          const proc = execFile(
            process.execPath,
            [built.cli, ...args],
            { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: CHILD_TIMEOUT_MS },
            (err, stdout, stderr) => {
              const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
              resolve({ code, stdout, stderr: stderr.toString('utf8') });
            },
          );
          proc.stdin!.end(stdin ?? Buffer.alloc(0));
        });
      const childOk = async (args: string[], stdin?: Buffer): Promise<Run> => {
        const r = await child(args, stdin);
        expect(r.stderr, `bootsmith ${args.join(' ')}`).toBe('');
        expect(r.code, `bootsmith ${args.join(' ')}: ${r.stderr}`).toBe(0);
        return r;
      };

      beforeAll(async () => {
        built = await buildCli();
      }, BUILD_TIMEOUT_MS);
      afterAll(async () => {
        await built?.remove();
      });

      it('iso ignition: show without a config exits 1 with one line; embed from stdin, show, remove', async () => {
        const original = readFileSync(fixtures.path(SMOKE_ISO));
        const iso = copy(SMOKE_ISO);
        const none = await child(['iso', 'ignition', 'show', iso]);
        expect(none.code).toBe(1);
        expect(none.stderr).toBe(`bootsmith: ${iso}: no embedded Ignition config\n`);
        await childOk(['iso', 'ignition', 'embed', iso], ignition);
        expect((await childOk(['iso', 'ignition', 'show', iso])).stdout.equals(ignition)).toBe(true);
        await childOk(['iso', 'ignition', 'remove', iso]);
        expect(readFileSync(iso).equals(original)).toBe(true);
      });

      it('iso kargs: modify, show, reset', async () => {
        const original = readFileSync(fixtures.path(SMOKE_ISO));
        const defaults = (await parseLiveIso(fixtures.path(SMOKE_ISO))).kargs!.default;
        const iso = copy(SMOKE_ISO);
        await childOk(['iso', 'kargs', 'modify', '-a', 'console=ttyS0', iso]);
        expect((await childOk(['iso', 'kargs', 'show', iso])).stdout.toString()).toBe(`${defaults} console=ttyS0\n`);
        await childOk(['iso', 'kargs', 'reset', iso]);
        expect(readFileSync(iso).equals(original)).toBe(true);
      });

      it('iso network: embed a keyfile, extract it', async () => {
        const iso = copy(SMOKE_ISO);
        const keyfile = path.join(fixtures.dir, 'smoke-eth0.nmconnection');
        writeFileSync(keyfile, '[connection]\nid=eth0\ntype=ethernet\n');
        await childOk(['iso', 'network', 'embed', '-k', keyfile, iso]);
        expect((await childOk(['iso', 'network', 'extract', iso])).stdout.toString()).toBe(
          '# smoke-eth0.nmconnection\n[connection]\nid=eth0\ntype=ethernet\n',
        );
      });

      it('iso extract: minimal-iso to stdout through a pipe, byte-identical to the recorded SHA-256', async () => {
        const manifest = await parseLiveIso(fixtures.path(SMOKE_ISO));
        const fh = await open(fixtures.path(SMOKE_ISO), 'r');
        const data = await readMinisoData(
          { fh, path: fixtures.path(SMOKE_ISO), size: manifest.size },
          manifest,
        ).finally(() => fh.close());
        const piped = await childOk(['iso', 'extract', 'minimal-iso', '-q', fixtures.path(SMOKE_ISO)]);
        expect(sha256(piped.stdout)).toBe(data.digest.toString('hex'));
      });

      it('iso customize: live kargs and Ignition in one pass to a new file', async () => {
        const config = path.join(fixtures.dir, 'smoke-customize.ign');
        writeFileSync(config, ignition);
        const out = path.join(fixtures.dir, 'smoke-customized.iso');
        await childOk([
          'iso',
          'customize',
          '-q',
          '--live-ignition',
          config,
          '--live-karg-append',
          'console=ttyS0',
          '-o',
          out,
          fixtures.path(SMOKE_ISO),
        ]);
        expect((await childOk(['iso', 'kargs', 'show', out])).stdout.toString()).toMatch(/ console=ttyS0\n$/);
      });

      it('pxe: ignition wrap from stdin, unwrap; --help exits 0; an unknown option exits 2', async () => {
        const file = path.join(fixtures.dir, 'smoke-wrapped.img');
        writeFileSync(file, (await childOk(['pxe', 'ignition', 'wrap'], ignition)).stdout);
        expect((await childOk(['pxe', 'ignition', 'unwrap', file])).stdout.equals(ignition)).toBe(true);
        expect((await childOk(['pxe', 'ignition', 'wrap', '--help'])).stdout.toString()).toContain(
          'usage: bootsmith pxe ignition wrap',
        );
        expect((await child(['pxe', 'ignition', 'wrap', '--no-such-option'])).code).toBe(2);
      });
    });
  },
  SUITE_TIMEOUT_MS,
);
