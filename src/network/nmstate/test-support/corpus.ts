// The nmstate conversion's test corpus (test-fixtures/corpus/*.yaml) and a reader for keyfile
// text, shared by the corpus test and the NetworkManager test.
//
// Each case file holds `description`, `hosts` (the upstream static_network_config shape) and
// `expect`: for some output files, `section.key: value` facts written by hand from
// NetworkManager's keyfile semantics (nm-settings-keyfile(5), nm-settings-nmcli(5)). The
// full expected bytes live in test-fixtures/expected/<case>/.
// Does not: convert anything (the tests call convert.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import type { HostNetworkInput } from '../convert.js';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test-fixtures');

export interface CorpusCase {
  name: string;
  description: string;
  hosts: HostNetworkInput[];
  expect: Record<string, Record<string, string>>;
}

interface RawCase {
  description: string;
  hosts: { network_yaml: string; mac_interface_map: { mac_address: string; logical_nic_name?: string }[] }[];
  expect: Record<string, Record<string, string>>;
}

export function loadCorpus(): CorpusCase[] {
  const dir = path.join(FIXTURES, 'corpus');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const raw = YAML.parse(readFileSync(path.join(dir, f), 'utf8')) as RawCase;
      return {
        name: f.replace(/\.yaml$/, ''),
        description: raw.description,
        hosts: raw.hosts.map((h) => ({
          networkYaml: h.network_yaml,
          macInterfaceMap: h.mac_interface_map.map((m) => ({
            macAddress: m.mac_address,
            logicalNicName: m.logical_nic_name,
          })),
        })),
        expect: raw.expect,
      };
    });
}

/** Keyfile text → `section.key` → value (later duplicates win, as GKeyFile reads them). */
export function readKeyfile(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let section = '';
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const s = /^\[(.+)\]$/.exec(line);
    if (s) {
      section = s[1]!;
      out.set(`[${section}]`, '');
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) throw new Error(`keyfile line without "=": ${JSON.stringify(line)}`);
    out.set(`${section}.${line.slice(0, eq)}`, line.slice(eq + 1));
  }
  return out;
}
