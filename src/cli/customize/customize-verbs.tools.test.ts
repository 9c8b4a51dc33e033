// `iso customize` with the installer options, `iso reset` and `pxe customize`, run in-process on
// every coreos-installer fixture whose features.json allows installer configs: the embed area
// holds the live Ignition with the installer files (read back with `iso ignition show`), the
// kargs areas the live kargs, and `iso reset` gives back the original bytes (to a new file and in
// place). Bad inputs exit 1 with one line naming the file and leave the ISO unchanged.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readInitrd } from '../../initrd/initrd.js';
import { FixtureSet, fixtureIndex, fixtureNames, HAVE_FIXTURES, HAVE_XZ } from '../../iso/test-support/fixtures.js';
import { parseLiveIso } from '../../iso/live-layout.js';
import { REPO_ROOT } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import { formatBytes } from '../output/progress-meter.js';
import { runCaptured } from '../test-support/captured-io.js';
import { decodeResource } from '../test-support/ignition-resource.js';

interface LiveConfig {
  ignition: { version: string; config?: { merge: Array<{ source: string; compression: string }> } };
  storage?: { files: Array<{ path: string; mode: number; contents: { source: string; compression: string } }> };
  systemd?: { units: Array<{ name: string }> };
}

function liveFiles(config: LiveConfig): Map<string, string> {
  return new Map((config.storage?.files ?? []).map((f) => [f.path, decodeResource(f.contents).toString('utf8')]));
}

describe.skipIf(unavailable({ fixtures: HAVE_FIXTURES, xz: HAVE_XZ }))(
  'iso customize (installer options), iso reset, pxe customize',
  () => {
    let fixtures: FixtureSet;
    let n = 0;
    const input: Record<string, string> = {};
    const dest = Buffer.from('{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/dest-marker"}]}}\n');
    const live = Buffer.from('{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/live-marker"}]}}\n');
    const script = Buffer.from('#!/bin/sh\necho post-install ran\n');

    beforeAll(() => {
      fixtures = FixtureSet.create('customize');
      const write = (name: string, data: string | Buffer): void => {
        input[name] = path.join(fixtures.dir, name);
        writeFileSync(input[name], data);
      };
      write('dest.ign', dest);
      write('live.ign', live);
      write('post.sh', script);
      write('install.yaml', 'offline: true\nappend-karg: [nosmt]\n');
      write('eth0.nmconnection', '[connection]\nid=eth0\ntype=ethernet\n');
    });
    afterAll(() => fixtures?.remove());

    const index = HAVE_FIXTURES ? fixtureIndex() : new Map<string, string[]>();
    const names = fixtureNames().filter((name) => (index.get(name) ?? []).some((l) => l.includes('installer-config')));

    it('covers the fixtures with installer-config support', () => {
      expect(names.length).toBeGreaterThanOrEqual(6);
    });

    it.each(names)(
      '%s: customize → ignition show shows the installer files → iso reset gives the original bytes',
      async (name) => {
        const original = readFileSync(fixtures.path(name));
        const hasKargs = (await parseLiveIso(fixtures.path(name))).kargs !== undefined;
        const out = path.join(fixtures.dir, `out-${n++}-${name}`);
        const args = [
          'iso',
          'customize',
          '--dest-device',
          '/dev/vda',
          '--dest-ignition',
          input['dest.ign']!,
          '--post-install',
          input['post.sh']!,
          '--installer-config',
          input['install.yaml']!,
          '--live-ignition',
          input['live.ign']!,
          '--network-keyfile',
          input['eth0.nmconnection']!,
          '--dest-karg-append',
          'console=ttyS0',
          ...(hasKargs ? ['--live-karg-append', 'bootsmith.test=1'] : []),
          '-o',
          out,
          fixtures.path(name),
        ];
        const r = await runCaptured(args);
        expect(r.stderr).toBe(
          'Boot media will automatically install to /dev/vda without confirmation.\n' +
            `${out}: done (${formatBytes(original.length)})\n`,
        );
        expect(r.code).toBe(0);
        expect(readFileSync(fixtures.path(name)).equals(original)).toBe(true);

        const show = await runCaptured(['iso', 'ignition', 'show', out]);
        expect(show.code).toBe(0);
        const config = JSON.parse(show.stdout.toString('utf8')) as LiveConfig;
        const files = liveFiles(config);
        expect([...files.keys()]).toEqual([
          '/usr/local/bin/post-install-post.sh',
          '/etc/coreos/installer.d/0000-install.yaml',
          '/etc/coreos/dest.ign',
          '/etc/coreos/installer.d/0001-customize.yaml',
        ]);
        expect(files.get('/usr/local/bin/post-install-post.sh')).toBe(script.toString());
        expect(files.get('/etc/coreos/dest.ign')).toBe(`${JSON.stringify(JSON.parse(dest.toString()))}\n`);
        expect(files.get('/etc/coreos/installer.d/0001-customize.yaml')).toBe(
          'ignition-file: /etc/coreos/dest.ign\nappend-karg:\n  - console=ttyS0\ncopy-network: true\ndest-device: /dev/vda\n',
        );
        expect(config.systemd!.units.map((u) => u.name)).toEqual(['post-install-post.sh.service']);
        expect(config.ignition.config!.merge.map((m) => decodeResource(m).toString())).toEqual([live.toString()]);
        const net = await runCaptured(['iso', 'network', 'extract', out]);
        expect(net.stdout.toString()).toContain('id=eth0');
        if (hasKargs) {
          const kargs = await runCaptured(['iso', 'kargs', 'show', out]);
          expect(kargs.stdout.toString()).toMatch(/ bootsmith\.test=1\n$/);
        }

        // Customised: refused without -f; with -f the old customisations are replaced.
        const again = await runCaptured(['iso', 'customize', '-q', '--dest-device', '/dev/sdb', out]);
        expect(again.code).toBe(1);
        expect(again.stderr).toBe(`bootsmith: ${out}: this ISO image is already customized; use -f to force\n`);
        const forced = await runCaptured(['iso', 'customize', '-q', '-f', '--dest-device', '/dev/sdb', out]);
        expect(forced.code).toBe(0);
        const replaced = liveFiles(
          JSON.parse((await runCaptured(['iso', 'ignition', 'show', out])).stdout.toString()) as LiveConfig,
        );
        expect([...replaced.keys()]).toEqual(['/etc/coreos/installer.d/0000-customize.yaml']);
        expect((await runCaptured(['iso', 'network', 'extract', out])).code).toBe(1);

        const reset = path.join(fixtures.dir, `reset-${n++}-${name}`);
        expect((await runCaptured(['iso', 'reset', '-q', '-o', reset, out])).code).toBe(0);
        expect(readFileSync(reset).equals(original)).toBe(true);
        expect((await runCaptured(['iso', 'reset', out])).code).toBe(0);
        expect(readFileSync(out).equals(original)).toBe(true);
      },
    );

    it('bad inputs exit 1 with one line naming the file or option; the ISO is unchanged and no temp file is left', async () => {
      const name = names[names.length - 1]!;
      const iso = path.join(fixtures.dir, `bad-${name}`);
      writeFileSync(iso, readFileSync(fixtures.path(name)));
      const before = readFileSync(iso);
      const bad = (file: string, data: string): string => {
        const p = path.join(fixtures.dir, file);
        writeFileSync(p, data);
        return p;
      };
      const noVersion = bad('nover.ign', '{"ignition":{}}');
      const notJson = bad('notjson.ign', '{');
      const unknownKey = bad('unknown.yaml', 'dest-device: /dev/sda\nfrobnicate: 1\n');
      const notYaml = bad('notyaml.yaml', 'a: [1');
      const listNotList = bad('list.yaml', 'append-karg: quiet\n');
      const bigScript = bad('big.sh', `#!/bin/sh\n${'#'.repeat(1024 * 1024)}\n`);
      const notPem = bad('ca.pem', 'hello');
      const cases: Array<[string[], string]> = [
        [['--dest-ignition', noVersion], `${noVersion}: not a valid Ignition config: ignition.version is missing`],
        [['--live-ignition', notJson], `${notJson}: not a valid Ignition config:`],
        [['--installer-config', unknownKey], `${unknownKey}: not a valid installer config: unknown key "frobnicate"`],
        [['--installer-config', notYaml], `${notYaml}: not a valid installer config: not YAML`],
        [
          ['--installer-config', listNotList],
          `${listNotList}: not a valid installer config: append-karg must be a sequence`,
        ],
        [['--dest-device', 'sda'], '--dest-device: "sda" is not an absolute device path'],
        [['--dest-console', 'console=ttyS0'], '--dest-console: spec should not start with "console="'],
        [['--dest-console', 'ttyX9'], '--dest-console: "ttyX9": invalid or unsupported console argument'],
        [['--pre-install', path.join(fixtures.dir, 'missing.sh')], `${path.join(fixtures.dir, 'missing.sh')}: `],
        [['--post-install', bigScript], `${bigScript}: 1048587 bytes is more than the 1048576-byte limit`],
        [['--ignition-ca', notPem], `${notPem}: not a PEM CA bundle`],
        [['--dest-karg-append', 'a b'], '--dest-karg-append: "a b" is not one kernel argument'],
      ];
      for (const [args, message] of cases) {
        const r = await runCaptured(['iso', 'customize', '-q', ...args, iso]);
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr.split('\n'), args.join(' ')).toHaveLength(2);
        expect(r.stderr, args.join(' ')).toContain(`bootsmith: ${message}`);
        expect(readFileSync(iso).equals(before)).toBe(true);
      }
      // Empty names are refused before anything is created (no temp file in the current directory).
      expect((await runCaptured(['iso', 'reset', ''])).stderr).toBe('bootsmith: "": empty file name\n');
      expect((await runCaptured(['iso', 'customize', '-q', '--output=', iso])).stderr).toBe(
        'bootsmith: "": empty output file name\n',
      );
      expect((await runCaptured(['iso', 'customize', '-q', '--dest-ignition', '', iso])).stderr).toBe(
        'bootsmith: "": empty file name\n',
      );
      expect(readFileSync(iso).equals(before)).toBe(true);
      // Usage errors exit 2.
      expect((await runCaptured(['iso', 'customize', '--dest-device'])).code).toBe(2);
      expect((await runCaptured(['pxe', 'customize', iso])).code).toBe(2);
      expect(readdirSync(fixtures.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    });

    it('pxe customize appends the customisation to a live initrd; refuses a non-live or customised initrd', async () => {
      const base = path.join(REPO_ROOT, 'fixtures/iso/x86_64.iso');
      const dir = path.join(fixtures.dir, 'pxe');
      mkdirSync(dir);
      expect((await runCaptured(['iso', 'extract', 'pxe', '-q', '-o', dir, base])).code).toBe(0);
      const initrd = path.join(dir, 'x86_64-initrd.img');
      const baseBytes = readFileSync(initrd);
      const out = path.join(fixtures.dir, 'custom-initrd.img');
      const r = await runCaptured([
        'pxe',
        'customize',
        '-q',
        '--dest-device',
        '/dev/vda',
        '--dest-ignition',
        input['dest.ign']!,
        '--network-keyfile',
        input['eth0.nmconnection']!,
        '-o',
        out,
        initrd,
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const custom = readFileSync(out);
      expect(custom.subarray(0, baseBytes.length).equals(baseBytes)).toBe(true);
      const appended = await readInitrd(custom.subarray(baseBytes.length));
      expect(appended.filter((e) => (e.mode & 0o170000) === 0o100000).map((e) => e.path)).toEqual([
        'config.ign',
        'etc/coreos-firstboot-network/eth0.nmconnection',
      ]);
      const unwrapped = await runCaptured(['pxe', 'ignition', 'unwrap', out]);
      expect(
        liveFiles(JSON.parse(unwrapped.stdout.toString()) as LiveConfig).get('/etc/coreos/dest.ign'),
      ).toBeDefined();
      const twice = await runCaptured(['pxe', 'customize', '-q', '--dest-device', '/dev/vda', '-o', `${out}.2`, out]);
      expect(twice.stderr).toBe(`bootsmith: ${out}: input is already customized\n`);
      const notLive = await runCaptured([
        'pxe',
        'ignition',
        'wrap',
        '-q',
        '-i',
        input['dest.ign']!,
        '-o',
        `${out}.wrap`,
      ]);
      expect(notLive.code).toBe(0);
      const refused = await runCaptured([
        'pxe',
        'customize',
        '-q',
        '--dest-device',
        '/dev/vda',
        '-o',
        `${out}.3`,
        `${out}.wrap`,
      ]);
      expect(refused.stderr).toBe(`bootsmith: ${out}.wrap: not a CoreOS live initramfs image\n`);
      expect(readdirSync(fixtures.dir).filter((f) => f.includes('custom-initrd.img.'))).toEqual([
        'custom-initrd.img.wrap',
      ]);
    });
  },
);
