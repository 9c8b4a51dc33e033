// A validator for the Ignition 3.x configs the core emits and accepts as overrides, on the rules
// Ignition itself applies when it parses a config (its config/v3_x/types validators, checked
// against Debian's `ignition-validate` 2.14), so a config Ignition would refuse at boot is a
// 400 here instead of a broken discovery ISO.
//
// Checks: spec version 3.0.0–3.4.0; every key of every object is one the declared spec version
// has (spec-keys.ts: Ignition ignores any other with a warning, losing the user's intent, so it
// is a 400 here); the types of the fields that matter at boot; paths absolute and clean
// (`/a/../b`, `/a/`, `//a` are not), unique across files, directories and links, never below a
// link; file modes 0–07777; URL schemes of the declared version (gs from 3.2.0, arn from
// 3.4.0); `data:` URLs that decode (data-url.ts); compression `gzip` or none; verification hashes sha512-/sha256- of
// the right length; HTTP headers only with http(s) sources; unit names with a unit suffix,
// dropins ending in .conf, unit and dropin contents that parse (unit-syntax.ts); hard links
// not to a directory of the config. Runs in one pass, linear in the config's size.
// Not a full Ignition schema: it does not check the values of disks/filesystems/luks/raid
// entries beyond their keys, and it accepts an enabled unit without an [Install] section (Ignition
// only warns that enabling it does nothing, as assisted-service accepts it). Messages never echo
// file contents.
import { posix } from 'node:path';
import { BadRequestError } from '../../errors.js';
import { dataUrlProblem } from './data-url.js';
import { checkOverrideBounds } from './override-limits.js';
import { type SpecObject, unknownKeyProblem } from './spec-keys.js';
import { unitSyntaxProblem } from './unit-syntax.js';

export type IgnitionConfig = Record<string, unknown> & { ignition: { version: string } & Record<string, unknown> };

const VERSION_RE = /^3\.([0-4])\.0$/;
const UNIT_SUFFIX = /\.(service|socket|device|mount|automount|swap|target|path|timer|snapshot|slice|scope)$/;
/** Hash functions of `verification.hash` and their hex digest lengths. */
const HASH_HEX_LENGTH: Record<string, number> = { sha512: 128, sha256: 64 };
/** File modes Ignition accepts (its validateMode). */
const MAX_MODE = 0o7777;

/** URL schemes of a spec minor version (Ignition's validateURL per config/v3_x). */
function schemesOf(minor: number): Set<string> {
  const s = new Set(['http', 'https', 'tftp', 's3', 'data']);
  if (minor >= 2) s.add('gs');
  if (minor >= 4) s.add('arn');
  return s;
}

/**
 * Parses and validates an Ignition config given as JSON text: bounded first (size, depth,
 * entries: override-limits.ts), so no text can make the parse or a later render unbounded.
 * Throws BadRequestError (PayloadTooLargeError for the size) naming the problem.
 */
export function parseIgnition(text: string, what = 'ignition config'): IgnitionConfig {
  checkOverrideBounds(text, what);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequestError(`${what} is not valid JSON`, { field: what });
  }
  validateIgnition(parsed, what);
  return parsed;
}

/** True for a path Go's path.Clean leaves unchanged and that is absolute. */
export function isCleanAbsolutePath(p: string): boolean {
  if (p === '/') return true;
  return (
    p.startsWith('/') &&
    !p.endsWith('/') &&
    !p.endsWith('/.') &&
    !p.endsWith('/..') &&
    !p.includes('//') &&
    !p.includes('/./') &&
    !p.includes('/../')
  );
}

function schemeOf(url: string): string | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url);
  return m ? m[1]!.toLowerCase() : undefined;
}

export function validateIgnition(cfg: unknown, what = 'ignition config'): asserts cfg is IgnitionConfig {
  const fail = (msg: string): never => {
    throw new BadRequestError(`${what} is invalid: ${msg}`, { field: what });
  };
  const obj = (v: unknown, at: string): Record<string, unknown> => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(`${at} must be an object`);
    return v as Record<string, unknown>;
  };
  const list = (v: unknown, at: string): Record<string, unknown>[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) fail(`${at} must be a list`);
    return (v as unknown[]).map((e, i) => obj(e, `${at}[${i}]`));
  };
  const optType = (o: Record<string, unknown>, key: string, type: 'string' | 'boolean' | 'number', at: string) => {
    const v = o[key];
    if (v === undefined || v === null) return;
    if (typeof v !== type || (type === 'number' && !Number.isInteger(v)))
      fail(`${at}.${key} must be ${type === 'number' ? 'an integer' : `a ${type}`}`);
  };
  const stringList = (v: unknown, at: string) => {
    if (v === undefined || v === null) return;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) fail(`${at} must be a list of strings`);
  };

  const root = obj(cfg, 'config');
  const ign = obj(root.ignition, 'ignition');
  if (typeof ign.version !== 'string') fail('ignition.version is required');
  const m = VERSION_RE.exec(ign.version as string);
  if (!m) fail(`unsupported ignition.version "${String(ign.version).slice(0, 20)}" (want 3.0.0 to 3.4.0)`);
  const minor = Number(m![1]);
  const schemes = schemesOf(minor);
  /** `o` as an object of kind `kind`: refused when it holds a key spec 3.`minor`.0 does not have. */
  const spec = (o: Record<string, unknown>, kind: SpecObject, at: string): Record<string, unknown> => {
    const problem = unknownKeyProblem(o, kind, minor);
    if (problem) fail(`${at === '' ? 'top level' : at}: ${problem} (spec ${ign.version as string})`);
    return o;
  };
  const specObj = (v: unknown, kind: SpecObject, at: string) => spec(obj(v, at), kind, at);
  const specList = (v: unknown, kind: SpecObject, at: string) =>
    list(v, at).map((e, i) => spec(e, kind, `${at}[${i}]`));
  spec(root, 'config', '');
  spec(ign, 'ignition', 'ignition');

  const resource = (v: unknown, at: string, kind: 'resource' | 'configResource' = 'resource') => {
    if (v === undefined || v === null) return;
    const r = specObj(v, kind, at);
    optType(r, 'compression', 'string', at);
    if (r.compression !== undefined && r.compression !== null && r.compression !== '' && r.compression !== 'gzip')
      fail(`${at}.compression must be "gzip" or empty`);
    let scheme: string | undefined;
    if (r.source !== undefined && r.source !== null) {
      if (typeof r.source !== 'string') fail(`${at}.source must be a string`);
      const src = r.source as string;
      if (src !== '') {
        scheme = schemeOf(src);
        if (!scheme || !schemes.has(scheme))
          fail(`${at}.source has a URL scheme spec ${ign.version as string} does not support`);
        if (scheme === 'data') {
          const problem = dataUrlProblem(src);
          if (problem) fail(`${at}.source is a data URL that does not decode: it ${problem}`);
        }
      }
    }
    if (r.httpHeaders !== undefined && r.httpHeaders !== null) {
      const headers = specList(r.httpHeaders, 'httpHeader', `${at}.httpHeaders`);
      if (headers.length > 0 && scheme !== 'http' && scheme !== 'https')
        fail(`${at}.httpHeaders need an http(s) source`);
      headers.forEach((h, i) => {
        if (typeof h.name !== 'string' || h.name === '') fail(`${at}.httpHeaders[${i}].name is required`);
        optType(h, 'value', 'string', `${at}.httpHeaders[${i}]`);
      });
    }
    if (r.verification !== undefined && r.verification !== null) {
      const ver = specObj(r.verification, 'verification', `${at}.verification`);
      optType(ver, 'hash', 'string', `${at}.verification`);
      if (typeof ver.hash === 'string') {
        if (scheme === undefined) fail(`${at}.verification.hash needs a source`);
        const [fn, digest] = ver.hash.split('-', 2) as [string, string | undefined];
        const length = HASH_HEX_LENGTH[fn];
        if (length === undefined || (fn === 'sha256' && minor < 1))
          fail(`${at}.verification.hash uses an unsupported hash function`);
        if (digest === undefined || digest.length !== length || !/^[0-9a-fA-F]+$/.test(digest))
          fail(`${at}.verification.hash has a digest of the wrong size`);
      }
    }
  };

  if (ign.config !== undefined) {
    const c = specObj(ign.config, 'ignition.config', 'ignition.config');
    list(c.merge, 'ignition.config.merge').forEach((r, i) =>
      resource(r, `ignition.config.merge[${i}]`, 'configResource'),
    );
    resource(c.replace, 'ignition.config.replace', 'configResource');
  }
  if (ign.proxy !== undefined) {
    const p = specObj(ign.proxy, 'proxy', 'ignition.proxy');
    optType(p, 'httpProxy', 'string', 'ignition.proxy');
    optType(p, 'httpsProxy', 'string', 'ignition.proxy');
    stringList(p.noProxy, 'ignition.proxy.noProxy');
  }
  if (ign.security !== undefined) {
    const sec = specObj(ign.security, 'security', 'ignition.security');
    if (sec.tls !== undefined) {
      const tls = specObj(sec.tls, 'tls', 'ignition.security.tls');
      list(tls.certificateAuthorities, 'ignition.security.tls.certificateAuthorities').forEach((r, i) =>
        resource(r, `ignition.security.tls.certificateAuthorities[${i}]`, 'configResource'),
      );
    }
  }
  if (ign.timeouts !== undefined) {
    const t = specObj(ign.timeouts, 'timeouts', 'ignition.timeouts');
    optType(t, 'httpResponseHeaders', 'number', 'ignition.timeouts');
    optType(t, 'httpTotal', 'number', 'ignition.timeouts');
  }

  if (root.passwd !== undefined) {
    const pw = specObj(root.passwd, 'passwd', 'passwd');
    const names = new Set<string>();
    specList(pw.users, 'user', 'passwd.users').forEach((u, i) => {
      const at = `passwd.users[${i}]`;
      if (typeof u.name !== 'string' || u.name === '') fail(`${at}.name is required`);
      if (names.has(u.name as string)) fail(`duplicate user "${String(u.name).slice(0, 64)}"`);
      names.add(u.name as string);
      optType(u, 'passwordHash', 'string', at);
      optType(u, 'uid', 'number', at);
      optType(u, 'homeDir', 'string', at);
      optType(u, 'shell', 'string', at);
      stringList(u.sshAuthorizedKeys, `${at}.sshAuthorizedKeys`);
      stringList(u.groups, `${at}.groups`);
    });
    const groups = new Set<string>();
    specList(pw.groups, 'group', 'passwd.groups').forEach((g, i) => {
      if (typeof g.name !== 'string' || g.name === '') fail(`passwd.groups[${i}].name is required`);
      if (groups.has(g.name as string)) fail(`duplicate group "${String(g.name).slice(0, 64)}"`);
      groups.add(g.name as string);
      optType(g, 'gid', 'number', `passwd.groups[${i}]`);
    });
  }

  if (root.storage !== undefined) {
    const st = specObj(root.storage, 'storage', 'storage');
    const files = specList(st.files, 'file', 'storage.files');
    const directories = specList(st.directories, 'directory', 'storage.directories');
    const links = specList(st.links, 'link', 'storage.links');
    const paths = new Set<string>();
    const node = (n: Record<string, unknown>, at: string) => {
      if (typeof n.path !== 'string' || !n.path.startsWith('/')) fail(`${at}.path must be an absolute path`);
      if (!isCleanAbsolutePath(n.path as string))
        fail(`${at}.path must be clean (no trailing "/", "//", "." or ".." segments)`);
      if (paths.has(n.path as string)) fail(`duplicate path ${(n.path as string).slice(0, 200)}`);
      paths.add(n.path as string);
      optType(n, 'overwrite', 'boolean', at);
      for (const who of ['user', 'group']) {
        if (n[who] === undefined || n[who] === null) continue;
        const o = specObj(n[who], 'nodeOwner', `${at}.${who}`);
        optType(o, 'id', 'number', `${at}.${who}`);
        optType(o, 'name', 'string', `${at}.${who}`);
      }
    };
    const mode = (n: Record<string, unknown>, at: string) => {
      optType(n, 'mode', 'number', at);
      if (typeof n.mode === 'number' && (n.mode < 0 || n.mode > MAX_MODE))
        fail(`${at}.mode must be from 0 to 0o7777 (${MAX_MODE})`);
    };
    files.forEach((f, i) => {
      const at = `storage.files[${i}]`;
      node(f, at);
      mode(f, at);
      resource(f.contents, `${at}.contents`);
      list(f.append, `${at}.append`).forEach((r, j) => resource(r, `${at}.append[${j}]`));
    });
    directories.forEach((d, i) => {
      node(d, `storage.directories[${i}]`);
      mode(d, `storage.directories[${i}]`);
    });
    const linkPaths = new Set<string>();
    links.forEach((l, i) => {
      const at = `storage.links[${i}]`;
      node(l, at);
      if (typeof l.target !== 'string' || l.target === '') fail(`${at}.target is required`);
      optType(l, 'hard', 'boolean', at);
      linkPaths.add(l.path as string);
    });
    // Ignition refuses a node below a link of the same config (it would write through it).
    if (linkPaths.size > 0) {
      const belowLink = (p: string): boolean => {
        for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1))
          if (linkPaths.has(p.slice(0, i))) return true;
        return false;
      };
      for (const [kind, entries] of [
        ['files', files],
        ['directories', directories],
        ['links', links],
      ] as const) {
        entries.forEach((n, i) => {
          if (belowLink(n.path as string)) fail(`storage.${kind}[${i}].path lies below a link of this config`);
        });
      }
      const directoryPaths = new Set(directories.map((d) => d.path as string));
      links.forEach((l, i) => {
        if (l.hard !== true) return;
        // as Ignition resolves it: a relative target is joined to the link's own path
        const target = posix.resolve(l.path as string, l.target as string);
        if (directoryPaths.has(target)) fail(`storage.links[${i}] is a hard link to a directory`);
      });
    }
    specList(st.disks, 'disk', 'storage.disks').forEach((d, i) =>
      specList(d.partitions, 'partition', `storage.disks[${i}].partitions`),
    );
    specList(st.raid, 'raid', 'storage.raid');
    specList(st.filesystems, 'filesystem', 'storage.filesystems');
    specList(st.luks, 'luks', 'storage.luks').forEach((l, i) => {
      const at = `storage.luks[${i}]`;
      resource(l.keyFile, `${at}.keyFile`);
      if (l.clevis === undefined || l.clevis === null) return;
      const clevis = specObj(l.clevis, 'clevis', `${at}.clevis`);
      if (clevis.custom !== undefined && clevis.custom !== null)
        specObj(clevis.custom, 'clevisCustom', `${at}.clevis.custom`);
      specList(clevis.tang, 'tang', `${at}.clevis.tang`);
    });
  }

  if (root.systemd !== undefined) {
    const sd = specObj(root.systemd, 'systemd', 'systemd');
    const names = new Set<string>();
    specList(sd.units, 'unit', 'systemd.units').forEach((u, i) => {
      const at = `systemd.units[${i}]`;
      if (typeof u.name !== 'string' || !UNIT_SUFFIX.test(u.name)) fail(`${at}.name must be a systemd unit name`);
      if (names.has(u.name as string)) fail(`duplicate unit ${String(u.name).slice(0, 200)}`);
      names.add(u.name as string);
      optType(u, 'enabled', 'boolean', at);
      optType(u, 'mask', 'boolean', at);
      optType(u, 'contents', 'string', at);
      if (typeof u.contents === 'string') {
        const problem = unitSyntaxProblem(u.contents);
        if (problem) fail(`${at}.contents is not a unit: ${problem}`);
      }
      const dropins = new Set<string>();
      specList(u.dropins, 'dropin', `${at}.dropins`).forEach((d, j) => {
        if (typeof d.name !== 'string' || !d.name.endsWith('.conf')) fail(`${at}.dropins[${j}].name must end in .conf`);
        if (dropins.has(d.name as string)) fail(`${at}.dropins[${j}] is a duplicate dropin`);
        dropins.add(d.name as string);
        optType(d, 'contents', 'string', `${at}.dropins[${j}]`);
        if (typeof d.contents === 'string') {
          const problem = unitSyntaxProblem(d.contents);
          if (problem) fail(`${at}.dropins[${j}].contents is not a unit: ${problem}`);
        }
      });
    });
  }

  if (root.kernelArguments !== undefined) {
    const ka = specObj(root.kernelArguments, 'kernelArguments', 'kernelArguments');
    stringList(ka.shouldExist, 'kernelArguments.shouldExist');
    stringList(ka.shouldNotExist, 'kernelArguments.shouldNotExist');
  }
}

/** Spec minor version of a validated config (3.x.0 → x). */
export function specMinor(cfg: IgnitionConfig): number {
  return Number(cfg.ignition.version.split('.')[1]);
}
