import { describe, expect, it } from 'vitest';

import { writeCpio } from './cpio.js';
import { IGNITION_PATH, readEmbedArea } from './embed-archive.js';
import { editEmbedMembers } from './embed-edit.js';

describe('editEmbedMembers', () => {
  const existing = writeCpio([
    { path: IGNITION_PATH, data: Buffer.from('{"old":1}'), mode: 0o644 },
    { path: 'etc/coreos-firstboot-network/eth0.nmconnection', data: Buffer.from('[connection]\n'), mode: 0o600 },
    { path: 'etc/coreos/installer.d/0001.yaml', data: Buffer.from('dest-device: /dev/vda\n'), mode: 0o640 },
  ]);

  it('replaces the config and keeps every other file with its mode', async () => {
    const current = await readEmbedArea(existing);
    const out = editEmbedMembers(current, { ignition: Buffer.from('{"new":1}') });
    expect(out.map((m) => [m.path, Buffer.from(m.data).toString(), m.mode])).toEqual([
      [IGNITION_PATH, '{"new":1}', 0o644],
      ['etc/coreos-firstboot-network/eth0.nmconnection', '[connection]\n', 0o600],
      ['etc/coreos/installer.d/0001.yaml', 'dest-device: /dev/vda\n', 0o640],
    ]);
  });

  it('removes the config or the keyfiles, and nothing is left of an empty edit', async () => {
    const current = await readEmbedArea(existing);
    expect(editEmbedMembers(current, { ignition: null }).map((m) => m.path)).not.toContain(IGNITION_PATH);
    const noNet = editEmbedMembers(current, { networkKeyfiles: [{ name: 'br0', content: Buffer.from('x') }] });
    expect(noNet.map((m) => m.path)).toEqual([
      IGNITION_PATH,
      'etc/coreos/installer.d/0001.yaml',
      'etc/coreos-firstboot-network/br0.nmconnection',
    ]);
    expect(editEmbedMembers({ members: [] }, { ignition: null })).toEqual([]);
    expect(() =>
      editEmbedMembers({ members: [] }, { networkKeyfiles: [{ name: '../x', content: Buffer.from('') }] }),
    ).toThrow(/path separator/);
  });
});
