// An ISO customised offline with the CLI (`bootsmith iso customize`, no service involved) boots
// under qemu with exactly the embedded Ignition config and the appended kernel arguments; then
// `iso ignition remove` + `iso kargs reset` give back the base ISO's bytes (issue 16).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { e2eContext, readyContext } from './support/context.js';
import { bootInTest, killAllGuests } from './support/qemu.js';
import { parseSerialReport } from './support/serial-report.js';

const setup = e2eContext();
const BOOT_TIMEOUT_MS = 120_000;
const ISOLINUX_PREFIX = 'BOOT_IMAGE=/images/pxeboot/vmlinuz initrd=/images/pxeboot/initrd.img,/images/ignition.img';

function cli(cliPath: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cliPath, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`bootsmith ${args.join(' ')}: ${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

describe.runIf(setup.ready)('an ISO customised with the CLI boots (qemu, TCG)', () => {
  afterEach(() => {
    killAllGuests();
  });

  it('iso customize: the guest sees the embedded Ignition and the kargs; remove + reset restore the base bytes', async (t) => {
    const ctx = readyContext();
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

    const result = await bootInTest(
      t,
      {
        name: 'cli-customized',
        runDir: ctx.runDir,
        qemu: ctx.qemu,
        args: ['-nic', 'none', '-boot', 'order=d', '-cdrom', isoPath],
        timeoutMs: BOOT_TIMEOUT_MS,
      },
      () => Promise.resolve(''),
    );
    const report = parseSerialReport(result.serial);
    expect(report.ended, 'the fixture /init report is incomplete').toBe(true);
    expect(report.absent).not.toContain('/config.ign');
    expect(report.files.get('/config.ign')?.sha256).toBe(createHash('sha256').update(ignition).digest('hex'));
    expect(report.cmdline).toBe(`${ISOLINUX_PREFIX} ${defaults} console=ttyS0 bootsmith.e2e=cli`);

    await cli(ctx.cli, ['iso', 'ignition', 'remove', isoPath]);
    await cli(ctx.cli, ['iso', 'kargs', 'reset', isoPath]);
    expect((await readFile(isoPath)).equals(await readFile(ctx.baseIso))).toBe(true);
  });
});
