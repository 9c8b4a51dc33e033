// The keys each object of an Ignition 3.x config may hold, and the spec version each key came
// with, as Ignition's published schemas for 3.0.0 to 3.4.0 list them (config/v3_x/schema in
// coreos/ignition; checked key by key against Debian's `ignition-validate` 2.14).
//
// Why it matters: Ignition ignores a key its declared spec version does not have, with only a
// warning ("Unused key luks"), so an override with a misspelled key or a feature of a later spec
// (LUKS in 3.1.0, HTTP headers in 3.0.0) would boot with part of the user's intent silently gone.
// validate.ts refuses such keys with a 400 naming the key and the version it needs.
// Does: answer, for one object, the first key its kind does not have in a spec minor version.
// Does not: walk configs or check values (validate.ts does).

/** The objects of a config, by what they are (not where they sit). */
export type SpecObject =
  | 'config'
  | 'ignition'
  | 'ignition.config'
  | 'configResource'
  | 'resource'
  | 'verification'
  | 'httpHeader'
  | 'security'
  | 'tls'
  | 'timeouts'
  | 'proxy'
  | 'passwd'
  | 'user'
  | 'group'
  | 'storage'
  | 'disk'
  | 'partition'
  | 'raid'
  | 'filesystem'
  | 'file'
  | 'directory'
  | 'link'
  | 'nodeOwner'
  | 'luks'
  | 'clevis'
  | 'clevisCustom'
  | 'tang'
  | 'systemd'
  | 'unit'
  | 'dropin'
  | 'kernelArguments';

/** Keys present since 3.0.0, and keys with the minor version that added them. */
function keys(since0: string[], later: Record<string, number> = {}): ReadonlyMap<string, number> {
  return new Map<string, number>([...since0.map((k): [string, number] => [k, 0]), ...Object.entries(later)]);
}

const RESOURCE_KEYS = ['compression', 'source', 'verification'];

/** Each object's keys → the spec minor version that added them. */
export const SPEC_KEYS: Readonly<Record<SpecObject, ReadonlyMap<string, number>>> = {
  config: keys(['ignition', 'passwd', 'storage', 'systemd'], { kernelArguments: 3 }),
  ignition: keys(['version', 'config', 'security', 'timeouts'], { proxy: 1 }),
  'ignition.config': keys(['merge', 'replace']),
  // config merge/replace and certificate authorities: no compression or headers before 3.1.0
  configResource: keys(['source', 'verification'], { compression: 1, httpHeaders: 1 }),
  // file contents and appends (and LUKS key files, from 3.2.0)
  resource: keys(RESOURCE_KEYS, { httpHeaders: 1 }),
  verification: keys(['hash']),
  httpHeader: keys([], { name: 1, value: 1 }),
  security: keys(['tls']),
  tls: keys(['certificateAuthorities']),
  timeouts: keys(['httpResponseHeaders', 'httpTotal']),
  proxy: keys([], { httpProxy: 1, httpsProxy: 1, noProxy: 1 }),
  passwd: keys(['users', 'groups']),
  user: keys(
    [
      'name',
      'gecos',
      'groups',
      'homeDir',
      'noCreateHome',
      'noLogInit',
      'noUserGroup',
      'passwordHash',
      'primaryGroup',
      'shell',
      'sshAuthorizedKeys',
      'system',
      'uid',
    ],
    { shouldExist: 2 },
  ),
  group: keys(['name', 'gid', 'passwordHash', 'system'], { shouldExist: 2 }),
  storage: keys(['disks', 'raid', 'filesystems', 'files', 'directories', 'links'], { luks: 2 }),
  disk: keys(['device', 'partitions', 'wipeTable']),
  partition: keys(['guid', 'label', 'number', 'shouldExist', 'sizeMiB', 'startMiB', 'typeGuid', 'wipePartitionEntry'], {
    resize: 2,
  }),
  raid: keys(['devices', 'level', 'name', 'options', 'spares']),
  filesystem: keys(['device', 'format', 'label', 'options', 'path', 'uuid', 'wipeFilesystem'], { mountOptions: 1 }),
  file: keys(['path', 'overwrite', 'user', 'group', 'append', 'contents', 'mode']),
  directory: keys(['path', 'overwrite', 'user', 'group', 'mode']),
  link: keys(['path', 'overwrite', 'user', 'group', 'hard', 'target']),
  nodeOwner: keys(['id', 'name']),
  luks: keys([], {
    clevis: 2,
    device: 2,
    keyFile: 2,
    label: 2,
    name: 2,
    options: 2,
    uuid: 2,
    wipeVolume: 2,
    discard: 4,
    openOptions: 4,
  }),
  clevis: keys([], { custom: 2, tang: 2, threshold: 2, tpm2: 2 }),
  clevisCustom: keys([], { config: 2, needsNetwork: 2, pin: 2 }),
  tang: keys([], { thumbprint: 2, url: 2, advertisement: 4 }),
  systemd: keys(['units']),
  unit: keys(['name', 'contents', 'dropins', 'enabled', 'mask']),
  dropin: keys(['name', 'contents']),
  kernelArguments: keys([], { shouldExist: 3, shouldNotExist: 3 }),
};

/**
 * The first key of `o` that an object of kind `kind` does not have in spec 3.`minor`.0, said
 * as "key "x" needs spec 3.2.0 or later" or "unknown key "x"", or undefined when all are known.
 */
export function unknownKeyProblem(o: Record<string, unknown>, kind: SpecObject, minor: number): string | undefined {
  const known = SPEC_KEYS[kind];
  for (const key of Object.keys(o)) {
    const since = known.get(key);
    const shown = JSON.stringify(key.slice(0, 40));
    if (since === undefined) return `unknown key ${shown}`;
    if (since > minor) return `key ${shown} needs spec 3.${since}.0 or later`;
  }
  return undefined;
}
