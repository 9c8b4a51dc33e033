// A structural validator for the Ignition 3.x subset the core emits and accepts as overrides.
//
// Checks: spec version 3.0.0–3.4.0, known top-level sections, types of the fields of
// ignition/passwd/storage/systemd that matter at boot, absolute unique paths, data:
// URLs that decode, unit names with a unit suffix. Not a full Ignition schema: it
// does not check disks/filesystems/luks contents beyond their being lists of objects.
// Messages never echo file contents.
import { BadRequestError } from '../../errors.js';

export type IgnitionConfig = Record<string, unknown> & { ignition: { version: string } & Record<string, unknown> };

const VERSION_RE = /^3\.([0-4])\.0$/;
const TOP_LEVEL = new Set(['ignition', 'passwd', 'storage', 'systemd', 'kernelArguments']);
const STORAGE_LISTS = ['disks', 'raid', 'filesystems', 'files', 'directories', 'links', 'luks'];
const URL_SCHEMES = /^(data|https?|s3|tftp|gs|arn):/;
const UNIT_SUFFIX = /\.(service|socket|device|mount|automount|swap|target|path|timer|snapshot|slice|scope)$/;

/** Parses and validates an Ignition config given as JSON text; throws BadRequestError naming the problem. */
export function parseIgnition(text: string, what = 'ignition config'): IgnitionConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequestError(`${what} is not valid JSON`);
  }
  validateIgnition(parsed, what);
  return parsed;
}

export function validateIgnition(cfg: unknown, what = 'ignition config'): asserts cfg is IgnitionConfig {
  const fail = (msg: string): never => {
    throw new BadRequestError(`${what} is invalid: ${msg}`);
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
  const resource = (v: unknown, at: string) => {
    if (v === undefined || v === null) return;
    const r = obj(v, at);
    optType(r, 'compression', 'string', at);
    if (r.source !== undefined && r.source !== null) {
      if (typeof r.source !== 'string') fail(`${at}.source must be a string`);
      const src = r.source as string;
      if (src !== '' && !URL_SCHEMES.test(src)) fail(`${at}.source has an unsupported URL scheme`);
      if (src.startsWith('data:') && !src.includes(',')) fail(`${at}.source is a malformed data URL`);
    }
    if (r.httpHeaders !== undefined) list(r.httpHeaders, `${at}.httpHeaders`);
    if (r.verification !== undefined) {
      const ver = obj(r.verification, `${at}.verification`);
      optType(ver, 'hash', 'string', `${at}.verification`);
    }
  };

  const root = obj(cfg, 'config');
  for (const key of Object.keys(root)) if (!TOP_LEVEL.has(key)) fail(`unknown top-level key "${key}"`);
  const ign = obj(root.ignition, 'ignition');
  if (typeof ign.version !== 'string') fail('ignition.version is required');
  const m = VERSION_RE.exec(ign.version as string);
  if (!m) fail(`unsupported ignition.version "${String(ign.version).slice(0, 20)}" (want 3.0.0 to 3.4.0)`);
  const minor = Number(m![1]);
  if (ign.config !== undefined) {
    const c = obj(ign.config, 'ignition.config');
    list(c.merge, 'ignition.config.merge').forEach((r, i) => resource(r, `ignition.config.merge[${i}]`));
    resource(c.replace, 'ignition.config.replace');
  }
  if (ign.proxy !== undefined) {
    if (minor < 1) fail('ignition.proxy needs spec 3.1.0 or later');
    const p = obj(ign.proxy, 'ignition.proxy');
    optType(p, 'httpProxy', 'string', 'ignition.proxy');
    optType(p, 'httpsProxy', 'string', 'ignition.proxy');
    stringList(p.noProxy, 'ignition.proxy.noProxy');
  }
  if (ign.security !== undefined) {
    const sec = obj(ign.security, 'ignition.security');
    if (sec.tls !== undefined) {
      const tls = obj(sec.tls, 'ignition.security.tls');
      list(tls.certificateAuthorities, 'ignition.security.tls.certificateAuthorities').forEach((r, i) =>
        resource(r, `ignition.security.tls.certificateAuthorities[${i}]`),
      );
    }
  }
  if (ign.timeouts !== undefined) {
    const t = obj(ign.timeouts, 'ignition.timeouts');
    optType(t, 'httpResponseHeaders', 'number', 'ignition.timeouts');
    optType(t, 'httpTotal', 'number', 'ignition.timeouts');
  }

  if (root.passwd !== undefined) {
    const pw = obj(root.passwd, 'passwd');
    const names = new Set<string>();
    list(pw.users, 'passwd.users').forEach((u, i) => {
      const at = `passwd.users[${i}]`;
      if (typeof u.name !== 'string' || u.name === '') fail(`${at}.name is required`);
      if (names.has(u.name as string)) fail(`duplicate user "${String(u.name)}"`);
      names.add(u.name as string);
      optType(u, 'passwordHash', 'string', at);
      optType(u, 'uid', 'number', at);
      optType(u, 'homeDir', 'string', at);
      optType(u, 'shell', 'string', at);
      stringList(u.sshAuthorizedKeys, `${at}.sshAuthorizedKeys`);
      stringList(u.groups, `${at}.groups`);
    });
    list(pw.groups, 'passwd.groups').forEach((g, i) => {
      if (typeof g.name !== 'string' || g.name === '') fail(`passwd.groups[${i}].name is required`);
    });
  }

  if (root.storage !== undefined) {
    const st = obj(root.storage, 'storage');
    for (const key of Object.keys(st)) if (!STORAGE_LISTS.includes(key)) fail(`unknown key storage.${key}`);
    const paths = new Set<string>();
    const node = (n: Record<string, unknown>, at: string) => {
      if (typeof n.path !== 'string' || !n.path.startsWith('/')) fail(`${at}.path must be an absolute path`);
      const p = (n.path as string).replace(/\/+$/, '') || '/';
      if (paths.has(p)) fail(`duplicate path ${p}`);
      paths.add(p);
      optType(n, 'overwrite', 'boolean', at);
      for (const who of ['user', 'group']) {
        if (n[who] === undefined || n[who] === null) continue;
        const o = obj(n[who], `${at}.${who}`);
        optType(o, 'id', 'number', `${at}.${who}`);
        optType(o, 'name', 'string', `${at}.${who}`);
      }
    };
    list(st.files, 'storage.files').forEach((f, i) => {
      const at = `storage.files[${i}]`;
      node(f, at);
      optType(f, 'mode', 'number', at);
      resource(f.contents, `${at}.contents`);
      list(f.append, `${at}.append`).forEach((r, j) => resource(r, `${at}.append[${j}]`));
    });
    list(st.directories, 'storage.directories').forEach((d, i) => {
      node(d, `storage.directories[${i}]`);
      optType(d, 'mode', 'number', `storage.directories[${i}]`);
    });
    list(st.links, 'storage.links').forEach((l, i) => {
      node(l, `storage.links[${i}]`);
      if (typeof l.target !== 'string' || l.target === '') fail(`storage.links[${i}].target is required`);
      optType(l, 'hard', 'boolean', `storage.links[${i}]`);
    });
    for (const key of ['disks', 'raid', 'filesystems', 'luks']) list(st[key], `storage.${key}`);
  }

  if (root.systemd !== undefined) {
    const sd = obj(root.systemd, 'systemd');
    const names = new Set<string>();
    list(sd.units, 'systemd.units').forEach((u, i) => {
      const at = `systemd.units[${i}]`;
      if (typeof u.name !== 'string' || !UNIT_SUFFIX.test(u.name)) fail(`${at}.name must be a systemd unit name`);
      if (names.has(u.name as string)) fail(`duplicate unit ${String(u.name)}`);
      names.add(u.name as string);
      optType(u, 'enabled', 'boolean', at);
      optType(u, 'mask', 'boolean', at);
      optType(u, 'contents', 'string', at);
      list(u.dropins, `${at}.dropins`).forEach((d, j) => {
        if (typeof d.name !== 'string' || !d.name.endsWith('.conf')) fail(`${at}.dropins[${j}].name must end in .conf`);
        optType(d, 'contents', 'string', `${at}.dropins[${j}]`);
      });
    });
  }

  if (root.kernelArguments !== undefined) {
    if (minor < 3) fail('kernelArguments needs spec 3.3.0 or later');
    const ka = obj(root.kernelArguments, 'kernelArguments');
    stringList(ka.shouldExist, 'kernelArguments.shouldExist');
    stringList(ka.shouldNotExist, 'kernelArguments.shouldNotExist');
  }
}

/** Spec minor version of a validated config (3.x.0 → x). */
export function specMinor(cfg: IgnitionConfig): number {
  return Number(cfg.ignition.version.split('.')[1]);
}
