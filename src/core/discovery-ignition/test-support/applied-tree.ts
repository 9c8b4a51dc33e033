// What a root looks like after the real Ignition wrote into it, and whether it is what a config
// promised: reading a written root (paths, types, modes, owners, sizes, content digests, link
// targets), and checking it against the config it came from. The same check judges a host-side
// run (real-ignition.ts applyIgnition) and an e2e guest's root (the tree it reports on the serial
// port, test/e2e/), so "Ignition applied this config" means the same everywhere.
//
// Does: compare every file (mode, owner, contents of data: URLs, decoded here independently of the
// product's data-url.ts), directory, link, unit (contents, mode, dropins, mask, the enable/disable
// line of the preset) and user (home directory, SSH keys) of a config with a tree.
// Does not: run Ignition (real-ignition.ts), or check what a config leaves out (callers assert
// the paths a variant promises beyond its config, such as what must NOT be written).
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/** One entry of a written root. */
export interface TreeEntry {
  type: 'f' | 'd' | 'l' | 'o';
  /** Permission bits (e.g. 0o600). */
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** Regular files: sha256 of the contents. */
  sha256?: string;
  /** Symbolic links: the target. */
  target?: string;
}

/** Every entry under `root`, keyed by its path inside it (`/etc/passwd`). */
export function readTree(root: string): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const st = lstatSync(full);
      const entry: TreeEntry = {
        type: st.isFile() ? 'f' : st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : 'o',
        mode: st.mode & 0o7777,
        uid: st.uid,
        gid: st.gid,
        size: st.size,
      };
      if (entry.type === 'f') entry.sha256 = sha256(readFileSync(full));
      if (entry.type === 'l') entry.target = readlinkSync(full);
      out.set(`/${path.relative(root, full)}`, entry);
      if (entry.type === 'd') walk(full);
    }
  };
  walk(root);
  return out;
}

interface ConfigNode {
  path: string;
  mode?: number;
  user?: { id?: number; name?: string };
  group?: { id?: number; name?: string };
  contents?: { source?: string; compression?: string };
  append?: unknown[];
  target?: string;
}
interface ConfigUnit {
  name: string;
  enabled?: boolean;
  mask?: boolean;
  contents?: string;
  dropins?: { name: string; contents?: string }[];
}
interface Config {
  passwd?: { users?: { name: string; sshAuthorizedKeys?: string[]; homeDir?: string }[] };
  storage?: { files?: ConfigNode[]; directories?: ConfigNode[]; links?: ConfigNode[] };
  systemd?: { units?: ConfigUnit[] };
}

/** Percent-escapes decoded to bytes (RFC 3986), every other character as its UTF-8 bytes. */
function percentDecode(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...Buffer.from(ch, 'utf8'));
      i += ch.length - 1;
    }
  }
  return Buffer.from(bytes);
}

/** The bytes of an Ignition `contents.source` data URL (percent-encoded or base64; gzip when said). */
export function dataUrlBytes(source: string, compression?: string): Buffer {
  const m = /^data:([^,]*),(.*)$/s.exec(source);
  if (!m) throw new Error(`not a data URL: ${source.slice(0, 40)}`);
  const raw = m[1]!.split(';').includes('base64') ? Buffer.from(m[2]!, 'base64') : percentDecode(m[2]!);
  return compression === 'gzip' ? gunzipSync(raw) : raw;
}

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** Unit files and dropins Ignition writes: regular files, mode 0644 (Debian's Ignition 2.14, measured). */
const UNIT_FILE_MODE = 0o644;

/**
 * What is wrong with `tree` as the result of applying `config` (empty when nothing is): every
 * file with its mode, owner and contents, every directory and link, every unit (contents and mode,
 * each dropin, a mask as a link to /dev/null, and its enable/disable line in `presetText`, the
 * preset files' contents joined), every user's home and SSH keys. Owners named `root` are uid/gid
 * 0; other names must own their home directory.
 */
export function checkApplied(configBytes: Buffer | string, tree: Map<string, TreeEntry>, presetText: string): string[] {
  const config = JSON.parse(configBytes.toString()) as Config;
  const problems: string[] = [];
  const users = new Map<string, number>([['root', 0]]);
  for (const u of config.passwd?.users ?? []) {
    const home = u.homeDir ?? `/home/${u.name}`;
    const h = tree.get(home);
    if (h?.type !== 'd') {
      problems.push(`user ${u.name}: no home directory ${home}`);
      continue;
    }
    users.set(u.name, h.uid);
    if (u.sshAuthorizedKeys?.length) {
      const keys = `${home}/.ssh/authorized_keys.d/ignition`;
      const k = tree.get(keys);
      const want = sha256(`${u.sshAuthorizedKeys.join('\n')}\n`);
      if (k?.type !== 'f') problems.push(`user ${u.name}: no ${keys}`);
      else {
        if (k.sha256 !== want) problems.push(`${keys}: contents differ from the config's keys`);
        if (k.mode !== 0o600 || k.uid !== h.uid) problems.push(`${keys}: mode ${k.mode.toString(8)} uid ${k.uid}`);
      }
    }
  }
  const owner = (n: ConfigNode, e: TreeEntry): string | undefined => {
    const uid = n.user?.id ?? (n.user?.name !== undefined ? users.get(n.user.name) : 0);
    if (uid !== undefined && e.uid !== uid) return `uid ${e.uid}, config says ${n.user?.name ?? n.user?.id ?? 'root'}`;
    if (n.group?.id !== undefined && e.gid !== n.group.id) return `gid ${e.gid}, config says ${n.group.id}`;
    if (n.group?.name === 'root' && e.gid !== 0) return `gid ${e.gid}, config says root`;
    return undefined;
  };
  for (const f of config.storage?.files ?? []) {
    const e = tree.get(f.path);
    if (e?.type !== 'f') {
      problems.push(`${f.path}: ${e ? `a ${e.type}, not a file` : 'not written'}`);
      continue;
    }
    const mode = f.mode ?? 0o644;
    if (e.mode !== mode) problems.push(`${f.path}: mode ${e.mode.toString(8)}, config says ${mode.toString(8)}`);
    const o = owner(f, e);
    if (o) problems.push(`${f.path}: ${o}`);
    // Contents are compared for data URLs (what bootsmith renders); an appended or remote file's
    // final bytes depend on more than the config.
    if (f.contents?.source?.startsWith('data:') && !f.append?.length) {
      const want = dataUrlBytes(f.contents.source, f.contents.compression);
      if (e.sha256 !== sha256(want))
        problems.push(`${f.path}: contents differ from the config's (${want.length} bytes)`);
    }
  }
  for (const d of config.storage?.directories ?? []) {
    const e = tree.get(d.path);
    if (e?.type !== 'd') problems.push(`${d.path}: not a directory`);
    else {
      if (e.mode !== (d.mode ?? 0o755)) problems.push(`${d.path}: mode ${e.mode.toString(8)}`);
      const o = owner(d, e);
      if (o) problems.push(`${d.path}: ${o}`);
    }
  }
  for (const l of config.storage?.links ?? []) {
    const e = tree.get(l.path);
    if (e?.type !== 'l' || e.target !== l.target) problems.push(`${l.path}: not a link to ${l.target}`);
  }
  const presetLines = new Set(presetText.split('\n').filter((l) => l !== ''));
  for (const u of config.systemd?.units ?? []) {
    const unitPath = `/etc/systemd/system/${u.name}`;
    if (u.mask) {
      const e = tree.get(unitPath);
      if (e?.type !== 'l' || e.target !== '/dev/null')
        problems.push(`unit ${u.name}: not masked (no link to /dev/null)`);
    } else if (u.contents !== undefined) {
      const e = tree.get(unitPath);
      if (e?.type !== 'f') problems.push(`unit ${u.name}: ${unitPath} not written`);
      else {
        if (e.sha256 !== sha256(u.contents)) problems.push(`unit ${u.name}: contents differ from the config's`);
        if (e.mode !== UNIT_FILE_MODE) problems.push(`unit ${u.name}: mode ${e.mode.toString(8)}`);
      }
    }
    for (const d of u.dropins ?? []) {
      if (d.contents === undefined) continue;
      const dropinPath = `/etc/systemd/system/${u.name}.d/${d.name}`;
      const e = tree.get(dropinPath);
      if (e?.type !== 'f') problems.push(`unit ${u.name}: dropin ${dropinPath} not written`);
      else {
        if (e.sha256 !== sha256(d.contents))
          problems.push(`unit ${u.name}: dropin ${d.name} differs from the config's`);
        if (e.mode !== UNIT_FILE_MODE) problems.push(`unit ${u.name}: dropin ${d.name} mode ${e.mode.toString(8)}`);
      }
    }
    if (u.enabled !== undefined && !presetLines.has(`${u.enabled ? 'enable' : 'disable'} ${u.name}`))
      problems.push(`unit ${u.name}: no "${u.enabled ? 'enable' : 'disable'} ${u.name}" preset`);
  }
  return problems;
}
