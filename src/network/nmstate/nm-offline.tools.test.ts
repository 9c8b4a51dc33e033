// NetworkManager itself reads every keyfile of the corpus (Debian's network-manager:
// `nmcli --offline`, see test-support/nmcli.ts): each profile must pass NetworkManager's
// verification, and NetworkManager's normalized reading must hold every key we wrote with
// the same value (it drops only keys equal to their default), including the devices' MACs,
// bond modes and options, VLAN ids and parents, bridge settings, addresses, routes and DNS.
// A negative case proves the check can fail: a keyfile NetworkManager refuses.
import { describe, expect, it } from 'vitest';
import { unavailable } from '../../../test/support/requirements.js';
import { convertHosts } from './convert.js';
import { loadCorpus, readKeyfile } from './test-support/corpus.js';
import { HAVE_NMCLI_OFFLINE, nmcliNormalize } from './test-support/nmcli.js';

/** Keys NetworkManager leaves out of its output when they hold the default (nm-settings-nmcli(5)). */
const DEFAULTS: Record<string, string> = {
  'connection.autoconnect': 'true',
  'bridge.ageing-time': '300',
  'bridge.forward-delay': '15',
  'bridge.hello-time': '2',
  'bridge.max-age': '20',
  'bridge.priority': '32768',
  'bridge.stp': 'true',
  'bridge-port.hairpin-mode': 'false',
  'bridge-port.path-cost': '100',
  'bridge-port.priority': '32',
};

describe.skipIf(unavailable({ 'nmcli --offline (Debian network-manager ≥ 1.40)': HAVE_NMCLI_OFFLINE }))(
  'NetworkManager reads the generated keyfiles',
  () => {
    for (const c of loadCorpus()) {
      it(`${c.name}`, () => {
        for (const file of convertHosts(c.hosts)) {
          const ours = readKeyfile(file.contents);
          const r = nmcliNormalize(file.contents, ours.get('connection.id')!);
          expect(r.status, `${file.name}: NetworkManager refused it: ${r.stderr}`).toBe(0);
          const nm = readKeyfile(r.stdout);
          for (const [key, value] of ours) {
            if (key.startsWith('[')) continue;
            expect(nm.get(key) ?? DEFAULTS[key], `${file.name} ${key} as NetworkManager reads it`).toBe(value);
          }
          for (const [key, value] of Object.entries(c.expect[file.name] ?? {})) {
            expect(nm.get(key) ?? DEFAULTS[key], `${file.name} ${key} (expected fact)`).toBe(String(value));
          }
        }
      });
    }

    it('refuses what NetworkManager refuses (the check can fail)', () => {
      const bad = '[connection]\nid=b\ntype=bond\ninterface-name=b\n\n[bond]\nmode=active-backup\nlacp_rate=fast\n';
      const r = nmcliNormalize(bad, 'b');
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/lacp_rate/);
    });
  },
);
