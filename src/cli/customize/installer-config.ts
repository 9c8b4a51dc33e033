// coreos-installer config files (the YAML under /etc/coreos/installer.d/ the live system's
// installer reads): checking a user's `--installer-config` file and writing the one `customize`
// generates for its own options (dest device, Ignition file, consoles, kargs, copy-network).
// Keys are coreos-installer's `install` options in kebab-case (its InstallConfig refuses unknown
// fields); flags are booleans, repeatable options sequences of strings, the rest scalars.
// Does: parse and check (one line naming the file and the key on failure) and serialise.
// Does NOT: check values further (coreos-installer does at install time) or read files.
import { parse, stringify } from 'yaml';

import { describeError } from '../../errors.js';
import { CliError } from '../verb.js';

const FLAG_KEYS = ['copy-network', 'offline', 'insecure', 'insecure-ignition', 'preserve-on-error', 'secure-ipl'];
const LIST_KEYS = ['console', 'append-karg', 'delete-karg', 'save-partlabel', 'save-partindex'];
const SCALAR_KEYS = [
  'stream',
  'image-url',
  'image-file',
  'ignition-file',
  'ignition-url',
  'ignition-hash',
  'architecture',
  'platform',
  'network-dir',
  'stream-base-url',
  'fetch-retries',
  'dest-device',
];

/** Every key coreos-installer's InstallConfig accepts in a config file. */
export const INSTALLER_CONFIG_KEYS: ReadonlySet<string> = new Set([...FLAG_KEYS, ...LIST_KEYS, ...SCALAR_KEYS]);

/** Parses and checks a user's installer config; `name` is the file named in errors. */
export function checkInstallerConfig(name: string, bytes: Buffer): void {
  const fail = (reason: string): never => {
    throw new CliError(name, `not a valid installer config: ${reason}`);
  };
  let doc: unknown;
  try {
    doc = parse(bytes.toString('utf8'));
  } catch (err) {
    return fail(`not YAML: ${describeError(err).split('\n')[0]}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return fail('the top level is not a YAML mapping');
  for (const [key, value] of Object.entries(doc)) {
    if (!INSTALLER_CONFIG_KEYS.has(key)) fail(`unknown key ${JSON.stringify(key)}`);
    if (FLAG_KEYS.includes(key) && typeof value !== 'boolean') fail(`${key} must be true or false`);
    if (LIST_KEYS.includes(key) && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
      fail(`${key} must be a sequence of strings`);
    }
    if (SCALAR_KEYS.includes(key) && typeof value !== 'string' && typeof value !== 'number') {
      fail(`${key} must be a string`);
    }
  }
}

/** The installer options `customize` sets itself (absent ones are left out). */
export interface GeneratedInstallerConfig {
  ignitionFile?: string;
  console: string[];
  appendKarg: string[];
  deleteKarg: string[];
  copyNetwork: boolean;
  destDevice?: string;
}

/** YAML with coreos-installer's key order (its InstallConfig field order). */
export function installerConfigYaml(config: GeneratedInstallerConfig): Buffer {
  const doc: Record<string, unknown> = {};
  if (config.ignitionFile !== undefined) doc['ignition-file'] = config.ignitionFile;
  if (config.console.length > 0) doc.console = config.console;
  if (config.appendKarg.length > 0) doc['append-karg'] = config.appendKarg;
  if (config.deleteKarg.length > 0) doc['delete-karg'] = config.deleteKarg;
  if (config.copyNetwork) doc['copy-network'] = true;
  if (config.destDevice !== undefined) doc['dest-device'] = config.destDevice;
  return Buffer.from(stringify(doc));
}
