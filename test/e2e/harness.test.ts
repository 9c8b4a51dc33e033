// The harness itself: the serial report parser catches altered bytes, and a guest that never
// powers off is killed at its hard timeout and leaves no process behind.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { e2eContext, readyContext } from './support/context.js';
import { bootGuest, killAllGuests } from './support/qemu.js';
import { agentFields, kargValues, parseSerialReport } from './support/serial-report.js';

const setup = e2eContext();

function report(content: Buffer, declaredSize = content.length): Buffer {
  const sha = createHash('sha256').update(content).digest('hex');
  return Buffer.concat([
    Buffer.from(
      'ISOLINUX 6.04\r\nLoading...\r\n\nBOOTSMITH-E2E BEGIN\nBOOTSMITH-E2E KERNEL 6.1.0\nBOOTSMITH-E2E CMDLINE a=1 b="c d"\n',
    ),
    Buffer.from(`BOOTSMITH-E2E FILE /config.ign ${declaredSize} ${sha}\n`),
    content,
    Buffer.from('\nBOOTSMITH-E2E END-FILE /config.ign\nBOOTSMITH-E2E END\n[    2.0] reboot: Power down\r\n'),
  ]);
}

describe('serial report parser', () => {
  it('reads the command line and files byte for byte', () => {
    const content = Buffer.from('{"ignition":{"version":"3.1.0"}}\nsecond line\n\n');
    const r = parseSerialReport(report(content));
    expect(r).toMatchObject({ begun: true, ended: true, kernel: '6.1.0', cmdline: 'a=1 b="c d"', absent: [] });
    expect(r.files.get('/config.ign')?.content.equals(content)).toBe(true);
  });

  it('rejects a file whose bytes were altered on the way (CR added, byte lost)', () => {
    const content = Buffer.from('line one\nline two\n');
    const crlf = report(content);
    const altered = Buffer.from(crlf.toString('latin1').replace('line one\n', 'line one\r\n'), 'latin1');
    expect(() => parseSerialReport(altered)).toThrow(/not followed by its END-FILE line/);
    expect(() => parseSerialReport(report(content, content.length - 1))).toThrow(/END-FILE|sha256/);
  });

  it('reads karg values as the kernel does, quotes removed', () => {
    const cmdline = 'BOOT_IMAGE=/v a=1 coreos.live.rootfs_url="http://h:1/r?arch=x86_64&version=4.17" b="c d" "e=f g"';
    expect(kargValues(cmdline, 'coreos.live.rootfs_url')).toEqual(['http://h:1/r?arch=x86_64&version=4.17']);
    expect(kargValues(cmdline, 'b')).toEqual(['c d']);
    expect(kargValues(cmdline, 'e')).toEqual(['f g']);
    expect(kargValues(cmdline, 'coreos.liveiso')).toEqual([]);
  });

  it("reads the guest's firmware, Ignition, tree, network, rootfs and agent lines", () => {
    const log = Buffer.from(
      [
        '',
        'BOOTSMITH-E2E BEGIN',
        'BOOTSMITH-E2E FIRMWARE uefi secureboot=1 setupmode=0',
        'BOOTSMITH-E2E IGNITION fetch-offline 0',
        'BOOTSMITH-E2E IGNITION files 1',
        `BOOTSMITH-E2E TREE f 600 0 0 5 ${'a'.repeat(64)} /root/.docker/config.json`,
        'BOOTSMITH-E2E TREE d 1777 0 0 40 - /tmp',
        'BOOTSMITH-E2E TREE l 777 0 0 9 ->/etc/x /etc/a link',
        'BOOTSMITH-E2E NET eth0 52:54:00:e2:e0:01 10.0.2.15/24',
        `BOOTSMITH-E2E ROOTFS 200 1573888 ${'b'.repeat(64)}`,
        'BOOTSMITH-E2E AGENT config url=https://10.0.2.2:1 infra-env=x credential=X-Secret-Key',
        'BOOTSMITH-E2E AGENT register 201',
        'BOOTSMITH-E2E END',
        '',
      ].join('\n'),
    );
    const r = parseSerialReport(log);
    expect(r.firmware).toEqual({ kind: 'uefi', secureBoot: 1, setupMode: 0 });
    expect([...r.ignition]).toEqual([
      ['fetch-offline', 0],
      ['files', 1],
    ]);
    expect(r.tree.get('/root/.docker/config.json')).toEqual({
      type: 'f',
      mode: 0o600,
      uid: 0,
      gid: 0,
      size: 5,
      sha256: 'a'.repeat(64),
    });
    expect(r.tree.get('/tmp')?.mode).toBe(0o1777);
    expect(r.tree.get('/etc/a link')?.target).toBe('/etc/x');
    expect(r.net).toEqual({ nic: 'eth0', mac: '52:54:00:e2:e0:01', address: '10.0.2.15/24' });
    expect(r.rootfs).toEqual({ status: 200, size: 1573888, sha256: 'b'.repeat(64) });
    expect(agentFields(r, 'config')).toEqual({
      url: 'https://10.0.2.2:1',
      'infra-env': 'x',
      credential: 'X-Secret-Key',
    });
    expect(r.agent).toContain('register 201');
    expect(r.ended).toBe(true);
    expect(() => parseSerialReport(Buffer.from('\nBOOTSMITH-E2E BEGIN\nBOOTSMITH-E2E TREE f 600 /x\n'))).toThrow(
      /malformed TREE/,
    );
  });

  it('reports no BEGIN when the guest never got to /init', () => {
    expect(parseSerialReport(Buffer.from('Kernel panic - not syncing: VFS: Unable to mount root fs\r\n')).begun).toBe(
      false,
    );
  });
});

describe.runIf(setup.ready)('qemu guests', () => {
  it('a guest that never powers off is killed at its hard timeout and leaves no process behind', async () => {
    const ctx = readyContext();
    // No boot device at all: SeaBIOS retries forever.
    const boot = await bootGuest({
      name: 'harness-hang',
      runDir: ctx.runDir,
      qemu: ctx.qemu,
      args: ['-nic', 'none', '-boot', 'order=c'],
      timeoutMs: 3_000,
    });
    expect(boot.timedOut).toBe(true);
    expect(boot.seconds).toBeLessThan(10);
    expect(() => process.kill(-boot.pid, 0)).toThrow(/ESRCH/);
    expect(killAllGuests()).toBe(0);
  });
});
