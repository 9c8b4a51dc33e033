// Pins the live Ignition config `iso customize` / `pxe customize` generate for each installer
// option: file paths, modes, contents, units, the merge of --live-ignition, and the refusals.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { readCpio, writeCpio } from '../../initrd/cpio.js';
import type { CpioFileInput } from '../../initrd/cpio.js';
import { decodeResource } from '../test-support/ignition-resource.js';
import type { CustomizeInputs } from './customize-inputs.js';
import { planCustomization } from './customize-plan.js';

const FEATURES = {
  'installer-config': true,
  'live-initrd-network': true,
  'installer-config-directives': { console: true },
};

function inputs(partial: Partial<CustomizeInputs>): CustomizeInputs {
  return {
    destIgnition: [],
    destConsole: [],
    destKargAppend: [],
    destKargDelete: [],
    networkKeyfiles: [],
    ignitionCa: [],
    preInstall: [],
    postInstall: [],
    installerConfig: [],
    liveIgnition: [],
    ...partial,
  };
}

interface LiveConfig {
  ignition: {
    version: string;
    config?: { merge: Array<{ source: string; compression: string }> };
    security?: { tls: { certificateAuthorities: Array<{ source: string; compression: string }> } };
  };
  storage?: { files: Array<{ path: string; mode: number; contents: { source: string; compression: string } }> };
  systemd?: { units: Array<{ name: string; contents: string; enabled: boolean }> };
}

function liveConfig(members: CpioFileInput[]): LiveConfig {
  const ign = members.find((m) => m.path === 'config.ign');
  expect(ign, 'config.ign').toBeDefined();
  expect(ign!.mode).toBe(0o644);
  return JSON.parse(Buffer.from(ign!.data).toString('utf8')) as LiveConfig;
}

function files(config: LiveConfig): Map<string, { mode: number; data: Buffer }> {
  return new Map(
    (config.storage?.files ?? []).map((f) => [f.path, { mode: f.mode, data: decodeResource(f.contents) }]),
  );
}

const destIgn = Buffer.from('{ "ignition": { "version": "3.4.0" }, "passwd": { "users": [{ "name": "core" }] } }');

describe('planCustomization', () => {
  it('--dest-device + --dest-ignition: dest.ign as given (compacted) and customize.yaml pointing at it', () => {
    const plan = planCustomization(inputs({ destDevice: '/dev/vda', destIgnition: [destIgn] }), FEATURES, 'x.iso');
    const config = liveConfig(plan.members);
    expect(config.ignition).toEqual({ version: '3.3.0' });
    expect([...files(config).keys()]).toEqual(['/etc/coreos/dest.ign', '/etc/coreos/installer.d/0000-customize.yaml']);
    const dest = files(config).get('/etc/coreos/dest.ign')!;
    expect(dest.mode).toBe(0o600);
    expect(dest.data.toString()).toBe(`${JSON.stringify(JSON.parse(destIgn.toString()))}\n`);
    const yaml = files(config).get('/etc/coreos/installer.d/0000-customize.yaml')!;
    expect(yaml.mode).toBe(0o600);
    expect(yaml.data.toString()).toBe('ignition-file: /etc/coreos/dest.ign\ndest-device: /dev/vda\n');
    expect(plan.notes).toEqual(['Boot media will automatically install to /dev/vda without confirmation.']);
  });

  it('--pre-install / --post-install: 0700 scripts under /usr/local/bin and enabled oneshot units', () => {
    const script = Buffer.from('#!/bin/sh\necho hi\n');
    const plan = planCustomization(
      inputs({ preInstall: [{ name: 'a.sh', data: script }], postInstall: [{ name: 'b.sh', data: script }] }),
      FEATURES,
      'x.iso',
    );
    const config = liveConfig(plan.members);
    expect(files(config).get('/usr/local/bin/pre-install-a.sh')).toEqual({ mode: 0o700, data: script });
    expect(files(config).get('/usr/local/bin/post-install-b.sh')).toEqual({ mode: 0o700, data: script });
    const units = config.systemd!.units;
    expect(units.map((u) => [u.name, u.enabled])).toEqual([
      ['pre-install-a.sh.service', true],
      ['post-install-b.sh.service', true],
    ]);
    expect(units[0]!.contents).toContain('After=coreos-installer-pre.target\nBefore=coreos-installer.service');
    expect(units[0]!.contents).toContain('ExecStart=/usr/local/bin/pre-install-a.sh\n');
    expect(units[0]!.contents).toMatch(/\[Install\]\nRequiredBy=coreos-installer.service$/);
    expect(units[1]!.contents).toContain('After=coreos-installer.service\nBefore=coreos-installer.target');
    expect(units[1]!.contents).toMatch(/Description=Post-Install Script \(b.sh\)\n/);
    expect(units[1]!.contents).toMatch(/RequiredBy=coreos-installer.target$/);
    // Hooks alone do not start the installer: no installer config, no note.
    expect(plan.notes).toEqual([]);
  });

  it('--installer-config files come first (0000-, 0001-), the generated one last; keyfiles set copy-network', () => {
    const plan = planCustomization(
      inputs({
        installerConfig: [
          { name: 'a.yaml', data: Buffer.from('offline: true\n') },
          { name: 'b.yaml', data: Buffer.from('platform: metal\n') },
        ],
        destConsole: ['ttyS0,115200n8'],
        destKargAppend: ['quiet'],
        destKargDelete: ['rhgb'],
        networkKeyfiles: [{ name: 'eth0', content: Buffer.from('[connection]\n') }],
      }),
      FEATURES,
      'x.iso',
    );
    const f = files(liveConfig(plan.members));
    expect([...f.keys()]).toEqual([
      '/etc/coreos/installer.d/0000-a.yaml',
      '/etc/coreos/installer.d/0001-b.yaml',
      '/etc/coreos/installer.d/0002-customize.yaml',
    ]);
    expect(f.get('/etc/coreos/installer.d/0001-b.yaml')!.data.toString()).toBe('platform: metal\n');
    expect(parse(f.get('/etc/coreos/installer.d/0002-customize.yaml')!.data.toString())).toEqual({
      console: ['ttyS0,115200n8'],
      'append-karg': ['quiet'],
      'delete-karg': ['rhgb'],
      'copy-network': true,
    });
    expect(plan.members.map((m) => [m.path, m.mode])).toEqual([
      ['config.ign', 0o644],
      ['etc/coreos-firstboot-network/eth0.nmconnection', 0o600],
    ]);
    expect(plan.notes).toEqual(['Boot media will automatically run installer.']);
  });

  it('--live-ignition is merged (ignition.config.merge), not spliced; --ignition-ca goes to live and dest', () => {
    const live = Buffer.from('{"ignition":{"version":"3.4.0"}}');
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const plan = planCustomization(
      inputs({ liveIgnition: [live], ignitionCa: [ca], destIgnition: [destIgn] }),
      FEATURES,
      'x.iso',
    );
    const config = liveConfig(plan.members);
    expect(config.ignition.config!.merge.map(decodeResource)).toEqual([live]);
    expect(config.ignition.security!.tls.certificateAuthorities.map(decodeResource)).toEqual([ca]);
    // With a CA the dest config is generated: the user's config merged, the CA trusted.
    const dest = JSON.parse(files(config).get('/etc/coreos/dest.ign')!.data.toString()) as LiveConfig;
    expect(dest.ignition.version).toBe('3.3.0');
    expect(dest.ignition.config!.merge.map(decodeResource)).toEqual([destIgn]);
    expect(dest.ignition.security!.tls.certificateAuthorities.map(decodeResource)).toEqual([ca]);
  });

  it('network keyfiles only: no config.ign (an empty one would turn autologin off), no installer', () => {
    const plan = planCustomization(
      inputs({ networkKeyfiles: [{ name: 'eth0.nmconnection', content: Buffer.from('x') }] }),
      FEATURES,
      'x.iso',
    );
    expect(plan.members.map((m) => m.path)).toEqual(['etc/coreos-firstboot-network/eth0.nmconnection']);
    expect(plan.notes).toEqual([]);
    // The archive the members make is a plain newc archive with exactly that file.
    const entries = readCpio(writeCpio(plan.members)).filter((e) => e.path.endsWith('.nmconnection'));
    expect(entries.map((e) => [e.path, Buffer.from(e.data).toString()])).toEqual([
      ['etc/coreos-firstboot-network/eth0.nmconnection', 'x'],
    ]);
  });

  it('refuses what the image does not support and duplicate hook names, naming the image or file', () => {
    expect(() => planCustomization(inputs({ destDevice: '/dev/sda' }), {}, 'old.iso')).toThrow(
      'old.iso: this OS image does not support customizing installer configuration',
    );
    expect(() => planCustomization(inputs({ destConsole: ['tty0'] }), { 'installer-config': true }, 'old.iso')).toThrow(
      'old.iso: this OS image does not support customizing the destination console',
    );
    expect(() =>
      planCustomization(inputs({ networkKeyfiles: [{ name: 'a', content: Buffer.from('') }] }), undefined, 'old.iso'),
    ).toThrow('old.iso: this OS image does not support customizing network settings');
    const s = { name: 'same.sh', data: Buffer.from('#!/bin/sh\n') };
    expect(() => planCustomization(inputs({ preInstall: [s, s] }), FEATURES, 'x.iso')).toThrow(
      'same.sh: config already specifies path /usr/local/bin/pre-install-same.sh',
    );
  });
});
