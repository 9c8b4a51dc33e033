// Merges a user's Ignition override into the discovery config with Ignition's own merge rules
// (config/merge/merge.go, as upstream assisted-service merges an override), in time linear in
// the size of both configs: every list is merged through a map keyed by its entries' keys.
//
// The rules (parent = the discovery config, child = the override):
//  - objects merge field by field; a field the child sets (not null) wins, a field it leaves
//    out or sets to null keeps the parent's; nested objects merge recursively;
//  - keyed lists merge entry by entry: storage.files/directories/links by path, in one shared
//    namespace (a child's directory at a path removes the parent's file there); systemd.units
//    and their dropins by name; passwd.users/groups by name; storage.disks, filesystems by
//    device; raid, luks by name; partitions by number (else label); tang servers by url;
//    config merges and certificate authorities by source; HTTP headers by name (a child header
//    whose value is null removes the parent's). A parent entry whose key the child also has is
//    merged with it in place; the child's other entries are appended in order;
//  - lists of strings (sshAuthorizedKeys, groups, noProxy, raid devices, …) are keyed by value:
//    the union, parent order first; kernelArguments.shouldExist/shouldNotExist share one
//    namespace (a child's shouldNotExist removes the parent's shouldExist of the same value);
//  - lists Ignition appends without merging (files[].append, filesystems/raid/luks options,
//    mountOptions) are concatenated;
//  - the result's spec version is the higher of the two.
// Does not validate (validate.ts runs before and after).
import { specMinor, type IgnitionConfig } from './validate.js';

type Obj = Record<string, unknown>;
type KeyOf = (item: unknown) => string | undefined;

/** Counts the elementary steps of a merge (entries and fields visited), so a test can show it is linear. */
export interface MergeCounter {
  steps: number;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const field =
  (name: string): KeyOf =>
  (item) =>
    isObj(item) && typeof item[name] === 'string' ? (item[name] as string) : undefined;

const partitionKey: KeyOf = (item) => {
  if (!isObj(item)) return undefined;
  if (typeof item.number === 'number' && item.number !== 0) return `number:${item.number}`;
  if (typeof item.label === 'string') return `label:${item.label}`;
  return undefined;
};

/** Keyed lists of objects, by the list's path (list items share their list's path). */
const KEYED: Record<string, KeyOf> = {
  'ignition.config.merge': field('source'),
  'ignition.security.tls.certificateAuthorities': field('source'),
  'storage.disks': field('device'),
  'storage.disks.partitions': partitionKey,
  'storage.filesystems': field('device'),
  'storage.raid': field('name'),
  'storage.luks': field('name'),
  'storage.luks.clevis.tang': field('url'),
  'systemd.units': field('name'),
  'systemd.units.dropins': field('name'),
  'passwd.users': field('name'),
  'passwd.groups': field('name'),
};
/** Lists Ignition concatenates (its IgnoreDuplicates). */
const APPENDED = new Set([
  'storage.files.append',
  'storage.filesystems.options',
  'storage.filesystems.mountOptions',
  'storage.raid.options',
  'storage.luks.options',
]);
/** Lists merged across each other, keyed by the same key (its MergedKeys). */
const SHARED_NAMESPACES: Record<string, { lists: string[]; key: KeyOf }> = {
  storage: { lists: ['files', 'directories', 'links'], key: field('path') },
  kernelArguments: { lists: ['shouldExist', 'shouldNotExist'], key: (v) => (typeof v === 'string' ? v : undefined) },
};

const primitiveKey: KeyOf = (item) =>
  typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean'
    ? `${typeof item}:${String(item)}`
    : undefined;

function listRule(path: string, sample: unknown): { append: true } | { append: false; key: KeyOf } {
  if (APPENDED.has(path)) return { append: true };
  if (path.endsWith('.httpHeaders')) return { append: false, key: field('name') };
  const keyed = KEYED[path];
  if (keyed) return { append: false, key: keyed };
  if (sample !== undefined && !isObj(sample) && !Array.isArray(sample)) return { append: false, key: primitiveKey };
  return { append: true }; // a list of objects Ignition has no key for in the subset we know
}

class Merger {
  constructor(private readonly counter: MergeCounter) {}

  value(parent: unknown, child: unknown, path: string): unknown {
    this.counter.steps++;
    if (child === undefined || child === null) return parent;
    if (parent === undefined || parent === null) return child;
    if (Array.isArray(parent) && Array.isArray(child)) return this.list(parent, child, path);
    if (isObj(parent) && isObj(child)) return this.object(parent, child, path);
    return child;
  }

  private object(parent: Obj, child: Obj, path: string): Obj {
    const out: Obj = { ...parent };
    const shared = SHARED_NAMESPACES[path];
    if (shared) this.sharedLists(parent, child, path, out);
    for (const [k, v] of Object.entries(child)) {
      if (shared?.lists.includes(k)) continue;
      this.counter.steps++;
      out[k] = this.value(parent[k], v, path ? `${path}.${k}` : k);
    }
    return out;
  }

  private list(parent: unknown[], child: unknown[], path: string): unknown[] {
    const rule = listRule(path, parent[0] ?? child[0]);
    if (rule.append) {
      this.counter.steps += parent.length + child.length;
      return [...parent, ...child];
    }
    const key = rule.key;
    const childByKey = new Map<string, unknown>();
    for (const c of child) {
      this.counter.steps++;
      const k = key(c);
      if (k !== undefined) childByKey.set(k, c);
    }
    const headers = path.endsWith('.httpHeaders');
    const out: unknown[] = [];
    const parentKeys = new Set<string>();
    for (const p of parent) {
      this.counter.steps++;
      const k = key(p);
      if (k === undefined) {
        out.push(p);
        continue;
      }
      parentKeys.add(k);
      if (!childByKey.has(k)) out.push(p);
      else {
        const c = childByKey.get(k);
        // a child header without a value removes the parent's header of that name
        if (headers && isObj(c) && (c.value === undefined || c.value === null)) continue;
        out.push(this.value(p, c, path));
      }
    }
    for (const c of child) {
      this.counter.steps++;
      const k = key(c);
      if (k === undefined || !parentKeys.has(k)) out.push(c);
    }
    return out;
  }

  /** Lists of one object whose entries share a key namespace (files/directories/links by path). */
  private sharedLists(parent: Obj, child: Obj, path: string, out: Obj): void {
    const { lists, key } = SHARED_NAMESPACES[path]!;
    const childListOf = new Map<string, { list: string; item: unknown }>();
    for (const name of lists) {
      const items = Array.isArray(child[name]) ? (child[name] as unknown[]) : [];
      for (const item of items) {
        this.counter.steps++;
        const k = key(item);
        if (k !== undefined) childListOf.set(k, { list: name, item });
      }
    }
    for (const name of lists) {
      const p = Array.isArray(parent[name]) ? (parent[name] as unknown[]) : [];
      const c = Array.isArray(child[name]) ? (child[name] as unknown[]) : [];
      if (parent[name] === undefined && child[name] === undefined) continue;
      const merged: unknown[] = [];
      const parentKeys = new Set<string>();
      for (const item of p) {
        this.counter.steps++;
        const k = key(item);
        if (k === undefined) {
          merged.push(item);
          continue;
        }
        parentKeys.add(k);
        const match = childListOf.get(k);
        if (!match) merged.push(item);
        else if (match.list === name) merged.push(this.value(item, match.item, `${path}.${name}`));
        // else: the child has this key in another list; its entry there replaces this one
      }
      for (const item of c) {
        this.counter.steps++;
        const k = key(item);
        if (k === undefined || !parentKeys.has(k)) merged.push(item);
      }
      out[name] = merged;
    }
  }
}

/** The override merged into the base; neither input is modified. */
export function mergeIgnition(
  base: IgnitionConfig,
  override: IgnitionConfig,
  counter: MergeCounter = { steps: 0 },
): IgnitionConfig {
  const out = new Merger(counter).value(base, override, '') as IgnitionConfig;
  const version = specMinor(override) > specMinor(base) ? override.ignition.version : base.ignition.version;
  out.ignition = { ...out.ignition, version };
  return out;
}
