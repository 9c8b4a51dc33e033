// Unit tests of the Ignition validator, the override merge and the embedded-size estimate.
import { describe, expect, it } from 'vitest';
import { mergeIgnition } from './merge.js';
import { parseIgnition, validateIgnition } from './validate.js';

describe('ignition validator', () => {
  it('accepts 3.x configs and rejects malformed ones', () => {
    expect(() => parseIgnition('{"ignition":{"version":"3.4.0"}}')).not.toThrow();
    for (const bad of [
      '[]',
      '{}',
      '{"ignition":{"version":"3.9.0"}}',
      '{"ignition":{"version":"3.1.0"},"storgae":{}}',
      '{"ignition":{"version":"3.1.0"},"storage":{"files":[{"path":"/a"},{"path":"/a"}]}}',
      '{"ignition":{"version":"3.1.0"},"systemd":{"units":[{"name":"agent"}]}}',
      '{"ignition":{"version":"3.1.0"},"storage":{"files":[{"path":"/a","mode":"0644"}]}}',
      '{"ignition":{"version":"3.1.0"},"storage":{"files":[{"path":"/a","contents":{"source":"file:///etc"}}]}}',
      '{"ignition":{"version":"3.0.0","proxy":{"httpProxy":"http://p"}}}',
      '{"ignition":{"version":"3.1.0"},"passwd":{"users":[{"sshAuthorizedKeys":["k"]}]}}',
    ])
      expect(() => parseIgnition(bad), bad).toThrow(/ignition config/);
  });

  it('merges by path/name, appends new entries and keeps the higher version', () => {
    const base = {
      ignition: { version: '3.1.0' },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['a'] }] },
      storage: { files: [{ path: '/x', mode: 420 }, { path: '/y' }] },
      systemd: { units: [{ name: 'a.service', enabled: true }] },
    };
    const over = {
      ignition: { version: '3.2.0' },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['b'] }, { name: 'ops' }] },
      storage: { files: [{ path: '/x', mode: 384 }, { path: '/z' }] },
      systemd: { units: [{ name: 'a.service', enabled: false }, { name: 'b.service' }] },
    };
    validateIgnition(base);
    validateIgnition(over);
    const m = mergeIgnition(base, over) as any;
    expect(m.ignition.version).toBe('3.2.0');
    expect(m.storage.files).toEqual([{ path: '/x', mode: 384 }, { path: '/y' }, { path: '/z' }]);
    expect(m.systemd.units).toEqual([{ name: 'a.service', enabled: false }, { name: 'b.service' }]);
    expect(m.passwd.users).toEqual([{ name: 'core', sshAuthorizedKeys: ['a', 'b'] }, { name: 'ops' }]);
  });
});
