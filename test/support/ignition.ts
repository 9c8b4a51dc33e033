// The real Ignition (Debian's `ignition` package) as tests use it: where the binary is, its version,
// running its `fetch-offline` and `files` stages on a config into a scratch root seeded as the
// bootable fixture's guest seeds its live root (fixtures/lib/live-root.sh), reading a written
// root back, and checking a written root against the config it came from.
//
// The same checks serve the e2e guest (the root it reports on the serial port, test/e2e/) and
// host-side runs (applyIgnition), so "Ignition applied this config" means the same everywhere.
// Does: run Ignition as a bounded child process (it needs root: useradd --root, chown).
// Does NOT: validate configs with ignition-validate, or decide which configs to try (callers do).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Debian's Ignition binary (the copy its dracut module installs as /usr/bin/ignition); IGNITION_BINARY overrides. */
export const IGNITION_BINARY = process.env.IGNITION_BINARY || '/usr/lib/dracut/modules.d/30ignition/ignition';
export const LIVE_ROOT_LIB = path.join(REPO_ROOT, 'fixtures', 'lib', 'live-root.sh');
/** One stage on a small config takes well under a second; this only bounds a hang. */
const STAGE_TIMEOUT_MS = 60_000;

/** `Ignition Debian 2.14.0+ds1-1+b6`, or undefined when the binary does not run here. */
export function ignitionVersion(): string | undefined {
  if (!existsSync(IGNITION_BINARY)) return undefined;
  const r = spawnSync(IGNITION_BINARY, ['-version'], { encoding: 'utf8', timeout: STAGE_TIMEOUT_MS });
  return r.status === 0 ? `${r.stdout}${r.stderr}`.trim() : undefined;
}

/** True when Ignition can apply configs here: the binary runs and this process is root. */
export const HAVE_IGNITION = ignitionVersion() !== undefined && process.getuid?.() === 0;

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
      if (entry.type === 'f') entry.sha256 = createHash('sha256').update(readFileSync(full)).digest('hex');
      if (entry.type === 'l') entry.target = readlinkSync(full);
      out.set(`/${path.relative(root, full)}`, entry);
      if (entry.type === 'd') walk(full);
    }
  };
  walk(root);
  return out;
}

export interface IgnitionRun {
  /** Stage → exit status and its log (stdout and stderr), in the order run. */
  stages: Map<string, { exit: number | null; log: string }>;
  /** The scratch root (removed by `cleanup`). */
  root: string;
  tree: Map<string, TreeEntry>;
  /** The preset files Ignition wrote: path → contents. */
  presets: Map<string, string>;
  cleanup(): void;
}

/**
 * Runs `fetch-offline` then (when it succeeded) `files` on `config` with the `file` platform, into
 * a fresh root seeded by fixtures/lib/live-root.sh, with its cache and state files in a scratch
 * directory (nothing is written outside it).
 */
export function applyIgnition(config: Buffer | string): IgnitionRun {
  const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-ignition-'));
  // Ignition writes a user's SSH keys as that user: the path to the root must be searchable by all.
  chmodSync(dir, 0o755);
  const root = path.join(dir, 'root');
  const seed = spawnSync('bash', ['-c', 'source "$0" && make_live_root "$1"', LIVE_ROOT_LIB, root], {
    encoding: 'utf8',
    timeout: STAGE_TIMEOUT_MS,
  });
  if (seed.status !== 0) throw new Error(`make_live_root ${root}: ${seed.stderr}`);
  const configFile = path.join(dir, 'config.ign');
  writeFileSync(configFile, config);
  const stages = new Map<string, { exit: number | null; log: string }>();
  const common = [
    '-platform',
    'file',
    '-log-to-stdout',
    '-config-cache',
    path.join(dir, 'ignition.json'),
    '-state-file',
    path.join(dir, 'state'),
    '-neednet',
    path.join(dir, 'neednet'),
  ];
  for (const [stage, extra] of [
    ['fetch-offline', []],
    ['files', ['-root', root]],
  ] as const) {
    const r = spawnSync(IGNITION_BINARY, ['-stage', stage, ...common, ...extra], {
      encoding: 'utf8',
      timeout: STAGE_TIMEOUT_MS,
      env: { PATH: process.env.PATH, IGNITION_CONFIG_FILE: configFile },
    });
    stages.set(stage, {
      exit: r.status,
      log: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}`,
    });
    if (r.status !== 0) break;
  }
  const tree = readTree(root);
  const presets = new Map<string, string>();
  const presetDir = path.join(root, 'etc/systemd/system-preset');
  if (existsSync(presetDir))
    for (const f of readdirSync(presetDir))
      presets.set(`/etc/systemd/system-preset/${f}`, readFileSync(path.join(presetDir, f), 'utf8'));
  return { stages, root, tree, presets, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// ---------------------------------------------------------------- what a config promises

interface ConfigNode {
  path: string;
  mode?: number;
  user?: { id?: number; name?: string };
  group?: { id?: number; name?: string };
  contents?: { source?: string; compression?: string };
  target?: string;
}
interface Config {
  passwd?: { users?: { name: string; sshAuthorizedKeys?: string[]; homeDir?: string }[] };
  storage?: { files?: ConfigNode[]; directories?: ConfigNode[]; links?: ConfigNode[] };
  systemd?: { units?: { name: string; enabled?: boolean; mask?: boolean; contents?: string }[] };
}

/** The bytes of an Ignition `contents.source` data URL (percent-encoded or base64; gzip when said). */
export function dataUrlBytes(source: string, compression?: string): Buffer {
  const m = /^data:([^,]*),(.*)$/s.exec(source);
  if (!m) throw new Error(`not a data URL: ${source.slice(0, 40)}`);
  const raw = m[1]!.split(';').includes('base64')
    ? Buffer.from(m[2]!, 'base64')
    : Buffer.from(decodeURIComponent(m[2]!), 'utf8');
  return compression === 'gzip' ? gunzipSync(raw) : raw;
}

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/**
 * What is wrong with `tree` as the result of applying `config` (empty when nothing is): every
 * file with its mode, owner and contents, every directory and link, every unit (contents, and
 * its enable/disable line in `presetText`, the preset files' contents joined), every user's home
 * and SSH keys. Owners named `root` are uid/gid 0; other names must own their home directory.
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
    if (f.contents?.source?.startsWith('data:') && !(f as { append?: unknown[] }).append?.length) {
      const want = dataUrlBytes(f.contents.source, f.contents.compression);
      if (e.sha256 !== sha256(want))
        problems.push(`${f.path}: contents differ from the config's (${want.length} bytes)`);
    }
  }
  for (const d of config.storage?.directories ?? []) {
    const e = tree.get(d.path);
    if (e?.type !== 'd') problems.push(`${d.path}: not a directory`);
    else if (e.mode !== (d.mode ?? 0o755)) problems.push(`${d.path}: mode ${e.mode.toString(8)}`);
  }
  for (const l of config.storage?.links ?? []) {
    const e = tree.get(l.path);
    if (e?.type !== 'l' || e.target !== l.target) problems.push(`${l.path}: not a link to ${l.target}`);
  }
  const presetLines = new Set(presetText.split('\n').filter((l) => l !== ''));
  for (const u of config.systemd?.units ?? []) {
    const unitPath = `/etc/systemd/system/${u.name}`;
    if (u.contents !== undefined) {
      const e = tree.get(unitPath);
      if (e?.type !== 'f') problems.push(`unit ${u.name}: ${unitPath} not written`);
      else if (e.sha256 !== sha256(u.contents)) problems.push(`unit ${u.name}: contents differ from the config's`);
    }
    if (u.enabled !== undefined && !presetLines.has(`${u.enabled ? 'enable' : 'disable'} ${u.name}`))
      problems.push(`unit ${u.name}: no "${u.enabled ? 'enable' : 'disable'} ${u.name}" preset`);
  }
  return problems;
}
