// Merges a user's Ignition override into the discovery config, following Ignition's merge rules.
//
// Keyed lists are merged by key: storage.files/directories/links by path,
// systemd.units by name (dropins by name), passwd.users/groups by name. An override
// entry with a known key replaces the fields it sets (sshAuthorizedKeys are unioned);
// new entries are appended. Other objects merge field by field, override winning.
// The result's spec version is the higher of the two. Does not validate (see validate.ts).
import { specMinor, type IgnitionConfig } from './validate.js';

type Obj = Record<string, unknown>;

const KEYED: Record<string, string> = {
  'storage.files': 'path',
  'storage.directories': 'path',
  'storage.links': 'path',
  'storage.disks': 'device',
  'storage.filesystems': 'device',
  'storage.raid': 'name',
  'storage.luks': 'name',
  'systemd.units': 'name',
  'systemd.units.dropins': 'name',
  'passwd.users': 'name',
  'passwd.groups': 'name',
};
const UNION_LISTS = new Set(['passwd.users.sshAuthorizedKeys', 'passwd.users.groups', 'ignition.proxy.noProxy']);

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `path` names list items by their list's path: an item field of storage.files is storage.files.mode. */
function merge(parent: unknown, child: unknown, path: string): unknown {
  if (child === undefined) return parent;
  if (parent === undefined) return child;
  if (Array.isArray(parent) && Array.isArray(child)) {
    const key = KEYED[path];
    if (key) {
      const out = [...parent] as unknown[];
      for (const c of child) {
        const idx = out.findIndex((p) => isObj(p) && isObj(c) && p[key] === c[key]);
        if (idx >= 0) out[idx] = merge(out[idx], c, path);
        else out.push(c);
      }
      return out;
    }
    if (UNION_LISTS.has(path)) return [...new Set([...parent, ...child])];
    return child;
  }
  if (isObj(parent) && isObj(child)) {
    const out: Obj = { ...parent };
    for (const [k, v] of Object.entries(child)) out[k] = merge(parent[k], v, path ? `${path}.${k}` : k);
    return out;
  }
  return child;
}

export function mergeIgnition(base: IgnitionConfig, override: IgnitionConfig): IgnitionConfig {
  const out = merge(base, override, '') as IgnitionConfig;
  const version = specMinor(override) > specMinor(base) ? override.ignition.version : base.ignition.version;
  out.ignition = { ...out.ignition, version };
  return out;
}
