// spec-keys.ts against Debian's `ignition-validate` 2.14, key by key: every key of every object
// kind, placed (with a null value) in a config of the spec version that added it, draws no
// "Unused key" warning, and in the version before draws one at exactly its path; a key no
// version has draws one in every kind. Keys added in 3.4.0 are checked only below it: Debian's
// Ignition 2.14 knows 3.4.0 only as an experimental draft without them (our table follows the
// released 3.4.0 schema, which RHCOS's Ignition ≥ 2.15 uses).
import { describe, expect, it } from 'vitest';
import { unavailable } from '../../../test/support/requirements.js';
import { SPEC_KEYS, type SpecObject, unknownKeyProblem } from './spec-keys.js';
import { HAVE_IGNITION_VALIDATE, ignitionValidate } from './test-support/real-ignition.js';

type Obj = Record<string, unknown>;
/** Where an object of each kind sits (the JSON path Ignition reports), from which spec minor, and a config holding it. */
const PLACES: Record<SpecObject, { at: string; since: number; place(o: Obj, version: string): Obj }> = {
  config: { at: '$', since: 0, place: (o, version) => ({ ...o, ignition: { version } }) },
  ignition: { at: '$.ignition', since: 0, place: (o, version) => ({ ignition: { ...o, version } }) },
  'ignition.config': {
    at: '$.ignition.config',
    since: 0,
    place: (o, version) => ({ ignition: { version, config: o } }),
  },
  configResource: {
    at: '$.ignition.config.merge.0',
    since: 0,
    place: (o, version) => ({ ignition: { version, config: { merge: [o] } } }),
  },
  resource: { at: '$.storage.files.0.contents', since: 0, place: (o, v) => file(v, { contents: o }) },
  verification: {
    at: '$.storage.files.0.contents.verification',
    since: 0,
    place: (o, v) => file(v, { contents: { verification: o } }),
  },
  httpHeader: {
    at: '$.storage.files.0.contents.httpHeaders.0',
    since: 1,
    place: (o, v) => file(v, { contents: { httpHeaders: [o] } }),
  },
  security: { at: '$.ignition.security', since: 0, place: (o, version) => ({ ignition: { version, security: o } }) },
  tls: {
    at: '$.ignition.security.tls',
    since: 0,
    place: (o, version) => ({ ignition: { version, security: { tls: o } } }),
  },
  timeouts: { at: '$.ignition.timeouts', since: 0, place: (o, version) => ({ ignition: { version, timeouts: o } }) },
  proxy: { at: '$.ignition.proxy', since: 1, place: (o, version) => ({ ignition: { version, proxy: o } }) },
  passwd: { at: '$.passwd', since: 0, place: (o, v) => ({ ignition: { version: v }, passwd: o }) },
  user: { at: '$.passwd.users.0', since: 0, place: (o, v) => ({ ignition: { version: v }, passwd: { users: [o] } }) },
  group: {
    at: '$.passwd.groups.0',
    since: 0,
    place: (o, v) => ({ ignition: { version: v }, passwd: { groups: [o] } }),
  },
  storage: { at: '$.storage', since: 0, place: (o, v) => ({ ignition: { version: v }, storage: o }) },
  disk: { at: '$.storage.disks.0', since: 0, place: (o, v) => storage(v, { disks: [o] }) },
  partition: {
    at: '$.storage.disks.0.partitions.0',
    since: 0,
    place: (o, v) => storage(v, { disks: [{ partitions: [o] }] }),
  },
  raid: { at: '$.storage.raid.0', since: 0, place: (o, v) => storage(v, { raid: [o] }) },
  filesystem: { at: '$.storage.filesystems.0', since: 0, place: (o, v) => storage(v, { filesystems: [o] }) },
  file: { at: '$.storage.files.0', since: 0, place: (o, v) => storage(v, { files: [o] }) },
  directory: { at: '$.storage.directories.0', since: 0, place: (o, v) => storage(v, { directories: [o] }) },
  link: { at: '$.storage.links.0', since: 0, place: (o, v) => storage(v, { links: [o] }) },
  nodeOwner: { at: '$.storage.files.0.user', since: 0, place: (o, v) => file(v, { user: o }) },
  luks: { at: '$.storage.luks.0', since: 2, place: (o, v) => storage(v, { luks: [o] }) },
  clevis: { at: '$.storage.luks.0.clevis', since: 2, place: (o, v) => storage(v, { luks: [{ clevis: o }] }) },
  clevisCustom: {
    at: '$.storage.luks.0.clevis.custom',
    since: 2,
    place: (o, v) => storage(v, { luks: [{ clevis: { custom: o } }] }),
  },
  tang: {
    at: '$.storage.luks.0.clevis.tang.0',
    since: 2,
    place: (o, v) => storage(v, { luks: [{ clevis: { tang: [o] } }] }),
  },
  systemd: { at: '$.systemd', since: 0, place: (o, v) => ({ ignition: { version: v }, systemd: o }) },
  unit: { at: '$.systemd.units.0', since: 0, place: (o, v) => ({ ignition: { version: v }, systemd: { units: [o] } }) },
  dropin: {
    at: '$.systemd.units.0.dropins.0',
    since: 0,
    place: (o, v) => ({ ignition: { version: v }, systemd: { units: [{ dropins: [o] }] } }),
  },
  kernelArguments: {
    at: '$.kernelArguments',
    since: 3,
    place: (o, v) => ({ ignition: { version: v }, kernelArguments: o }),
  },
};
function storage(version: string, s: Obj): Obj {
  return { ignition: { version }, storage: s };
}
function file(version: string, f: Obj): Obj {
  return storage(version, { files: [f] });
}

/** The minor version Debian's Ignition 2.14 can judge (3.4.0 is a draft there). */
const HIGHEST_JUDGED = 3;

interface Probe {
  kind: SpecObject;
  key: string;
  minor: number;
  /** ignition-validate must warn that it ignores the key. */
  ignored: boolean;
}

function probes(): Probe[] {
  const out: Probe[] = [];
  for (const [kind, keys] of Object.entries(SPEC_KEYS) as [SpecObject, ReadonlyMap<string, number>][]) {
    const place = PLACES[kind];
    out.push({
      kind,
      key: 'bootsmithUnknown',
      minor: Math.min(HIGHEST_JUDGED, Math.max(place.since, 1)),
      ignored: true,
    });
    for (const [key, since] of keys) {
      // the key every config or ignition section must hold is there already
      if ((kind === 'config' && key === 'ignition') || (kind === 'ignition' && key === 'version')) continue;
      const introduced = Math.max(since, place.since);
      if (introduced <= HIGHEST_JUDGED) out.push({ kind, key, minor: introduced, ignored: false });
      if (since > place.since) out.push({ kind, key, minor: since - 1, ignored: true });
    }
  }
  return out;
}

describe('the key table', () => {
  it('answers which key is unknown or too new, and why', () => {
    expect(unknownKeyProblem({ path: '/a', overwirte: true }, 'file', 1)).toBe('unknown key "overwirte"');
    expect(unknownKeyProblem({ luks: [] }, 'storage', 1)).toBe('key "luks" needs spec 3.2.0 or later');
    expect(unknownKeyProblem({ luks: [] }, 'storage', 2)).toBeUndefined();
    // keys that are Object.prototype's own names are unknown too
    expect(unknownKeyProblem({ constructor: 1 }, 'file', 4)).toBe('unknown key "constructor"');
    expect(unknownKeyProblem({ __proto__: 1 } as Obj, 'file', 4)).toBeUndefined(); // a literal __proto__ sets the prototype
    expect(unknownKeyProblem(JSON.parse('{"__proto__": 1}') as Obj, 'file', 4)).toBe('unknown key "__proto__"');
  });
});

describe.skipIf(unavailable({ "ignition-validate (Debian's ignition)": HAVE_IGNITION_VALIDATE }))(
  'the key table agrees with ignition-validate, key by key',
  () => {
    it(`${probes().length} probes: each key accepted from its spec version on, ignored before it`, async () => {
      const all = probes();
      const disagreements: string[] = [];
      const BATCH = 8;
      for (let i = 0; i < all.length; i += BATCH) {
        await Promise.all(
          all.slice(i, i + BATCH).map(async (p) => {
            const place = PLACES[p.kind];
            const version = `3.${p.minor}.0`;
            const config = place.place({ [p.key]: null }, version);
            const report = await ignitionValidate(JSON.stringify(config));
            const path = place.at === '$' ? `$.${p.key}` : `${place.at}.${p.key}`;
            const ignored = report.warnings.some(
              (w) => w.startsWith(`warning at ${path},`) && w.endsWith(`Unused key ${p.key}`),
            );
            const ours = unknownKeyProblem({ [p.key]: null }, p.kind, p.minor) !== undefined;
            if (ignored !== p.ignored || ours !== p.ignored)
              disagreements.push(
                `${p.kind}.${p.key} in ${version}: expected ${p.ignored ? 'ignored' : 'known'}, ignition-validate ${ignored ? 'ignores' : 'knows'} it, we ${ours ? 'refuse' : 'accept'} it\n${report.report}`,
              );
          }),
        );
      }
      expect(disagreements).toEqual([]);
    });
  },
);
