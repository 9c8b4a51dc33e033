// An ISO customised offline with the CLI (`bootsmith iso customize`, no service involved) boots
// under qemu with the --live-ignition config (merged into the live config) and the appended kernel arguments; then
// `iso ignition remove` + `iso kargs reset` give back the base ISO's bytes (issue 16).
// A second ISO customised with the installer options (`--dest-device`, `--dest-ignition`,
// `--post-install`) boots too, and the guest's report of /config.ign proves the live system
// received the installer config, the dest Ignition and the script. The fixture guest is busybox
// (no coreos-installer, no Ignition), so "received" means: these files are in the live Ignition
// config the guest's initramfs unpacked; running them is coreos-installer's job.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type TestContext, expect, it } from 'vitest';

import { decodeResource } from '../../src/cli/test-support/ignition-resource.js';
import { bootSuite } from './support/boot-suite.js';
import { type SerialReport, parseSerialReport } from './support/serial-report.js';

const BOOT_TIMEOUT_MS = 120_000;
const ISOLINUX_PREFIX = 'BOOT_IMAGE=/images/pxeboot/vmlinuz initrd=/images/pxeboot/initrd.img,/images/ignition.img';

function cli(cliPath: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cliPath, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`bootsmith ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

bootSuite('an ISO customised with the CLI boots (qemu, TCG)', {}, (suite) => {
  /** Boots `isoPath` from a virtual CD-ROM with no network and returns the guest's whole /init report. */
  async function bootCdrom(t: TestContext, name: string, isoPath: string): Promise<SerialReport> {
    const result = await suite.boot(t, {
      name,
      args: ['-nic', 'none', '-boot', 'order=d', '-cdrom', isoPath],
      timeoutMs: BOOT_TIMEOUT_MS,
    });
    const report = parseSerialReport(result.serial);
    expect(report.ended, 'the fixture /init report is incomplete').toBe(true);
    return report;
  }

  it('iso customize: the guest sees the embedded Ignition and the kargs; remove + reset restore the base bytes', async (t) => {
    const ctx = suite.ctx;
    const ignition = Buffer.from(
      JSON.stringify({ ignition: { version: '3.4.0' }, storage: { files: [{ path: '/etc/bootsmith-cli-e2e' }] } }),
    );
    const config = path.join(ctx.runDir, 'cli-e2e.ign');
    await writeFile(config, ignition);
    const isoPath = path.join(ctx.runDir, 'cli-customized.iso');
    await cli(ctx.cli, [
      'iso',
      'customize',
      '-q',
      '--live-ignition',
      config,
      '--live-karg-append',
      'console=ttyS0',
      '--live-karg-append',
      'bootsmith.e2e=cli',
      '-o',
      isoPath,
      ctx.baseIso,
    ]);
    const defaults = (await cli(ctx.cli, ['iso', 'kargs', 'show', '--default', isoPath])).trim();

    const report = await bootCdrom(t, 'cli-customized', isoPath);
    expect(report.absent).not.toContain('/config.ign');
    // --live-ignition is merged at boot (ignition.config.merge), as coreos-installer does.
    const live = JSON.parse(report.files.get('/config.ign')!.content.toString('utf8')) as {
      ignition: { config: { merge: Array<{ source: string; compression: string }> } };
    };
    const merged = decodeResource(live.ignition.config.merge[0]!);
    expect(createHash('sha256').update(merged).digest('hex')).toBe(createHash('sha256').update(ignition).digest('hex'));
    expect(report.cmdline).toBe(`${ISOLINUX_PREFIX} ${defaults} console=ttyS0 bootsmith.e2e=cli`);

    await cli(ctx.cli, ['iso', 'ignition', 'remove', isoPath]);
    await cli(ctx.cli, ['iso', 'kargs', 'reset', isoPath]);
    expect((await readFile(isoPath)).equals(await readFile(ctx.baseIso))).toBe(true);
  });

  it('iso customize --dest-device --dest-ignition --post-install: the guest reads them in its live Ignition config', async (t) => {
    const ctx = suite.ctx;
    const dest = Buffer.from(
      JSON.stringify({ ignition: { version: '3.4.0' }, storage: { files: [{ path: '/etc/dest-e2e' }] } }),
    );
    const script = Buffer.from('#!/bin/sh\necho bootsmith post-install\n');
    const destPath = path.join(ctx.runDir, 'cli-e2e-dest.ign');
    const scriptPath = path.join(ctx.runDir, 'e2e-post.sh');
    await writeFile(destPath, dest);
    await writeFile(scriptPath, script);
    const isoPath = path.join(ctx.runDir, 'cli-installer.iso');
    await cli(ctx.cli, [
      'iso',
      'customize',
      '-q',
      '--dest-device',
      '/dev/vda',
      '--dest-ignition',
      destPath,
      '--post-install',
      scriptPath,
      '--live-karg-append',
      'console=ttyS0',
      '-o',
      isoPath,
      ctx.baseIso,
    ]);
    const report = await bootCdrom(t, 'cli-installer', isoPath);
    const seen = report.files.get('/config.ign');
    expect(seen, 'the guest found no /config.ign').toBeDefined();
    interface Resource {
      source: string;
      compression: string;
    }
    const live = JSON.parse(seen!.content.toString('utf8')) as {
      storage: { files: Array<{ path: string; mode: number; contents: Resource }> };
      systemd: { units: Array<{ name: string; contents: string; enabled: boolean }> };
    };
    const decode = (r: Resource): string => decodeResource(r).toString('utf8');
    const files = new Map(live.storage.files.map((f) => [f.path, { mode: f.mode, text: decode(f.contents) }]));
    void t.annotate(`live Ignition files the guest read: ${[...files.keys()].join(', ')}`);
    expect(files.get('/etc/coreos/installer.d/0000-customize.yaml')).toEqual({
      mode: 0o600,
      text: 'ignition-file: /etc/coreos/dest.ign\ndest-device: /dev/vda\n',
    });
    expect(files.get('/etc/coreos/dest.ign')).toEqual({ mode: 0o600, text: `${dest.toString()}\n` });
    expect(files.get('/usr/local/bin/post-install-e2e-post.sh')).toEqual({ mode: 0o700, text: script.toString() });
    expect(live.systemd.units.map((u) => [u.name, u.enabled])).toEqual([['post-install-e2e-post.sh.service', true]]);
    expect(live.systemd.units[0]!.contents).toContain('ExecStart=/usr/local/bin/post-install-e2e-post.sh\n');

    await cli(ctx.cli, ['iso', 'reset', isoPath]);
    expect((await readFile(isoPath)).equals(await readFile(ctx.baseIso))).toBe(true);
  });
});
