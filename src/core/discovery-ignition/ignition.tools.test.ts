// The Ignition validator, the override merge and the override's bounds, as tables of cases, each
// also run through Debian's real Ignition where it applies: every validator row must get the
// same verdict from `ignition-validate` (our rules are Ignition's, not a guess), and every merge
// row must give what the Ignition binary's fetch-offline stage makes of the same two configs
// (the override as a merged child config). The merge is shown linear by counting its steps.
import { describe, expect, it } from 'vitest';
import { BadRequestError, PayloadTooLargeError } from '../../errors.js';
import { unavailable } from '../../../test/support/requirements.js';
import { decodeDataUrl } from './data-url.js';
import { mergeIgnition, type MergeCounter } from './merge.js';
import {
  checkOverrideBounds,
  MAX_OVERRIDE_BYTES,
  MAX_OVERRIDE_DEPTH,
  MAX_OVERRIDE_ENTRIES,
} from './override-limits.js';
import {
  HAVE_IGNITION,
  HAVE_IGNITION_VALIDATE,
  ignitionFetchOffline,
  ignitionValidate,
  withoutEmpties,
} from './test-support/real-ignition.js';
import { parseIgnition, validateIgnition, type IgnitionConfig } from './validate.js';

const v = (minor: number, rest: Record<string, unknown> = {}) => ({ ignition: { version: `3.${minor}.0` }, ...rest });
const file = (f: Record<string, unknown>) => v(1, { storage: { files: [{ path: '/a', ...f }] } });
const source = (src: string, minor = 1) =>
  v(minor, { storage: { files: [{ path: '/a', contents: { source: src } }] } });
const unit = (contents: string, extra: Record<string, unknown> = {}) =>
  v(1, { systemd: { units: [{ name: 'a.service', contents, ...extra }] } });

/**
 * Where Debian's ignition-validate 2.14 reaches another verdict, and why we keep ours: the
 * reason, and what its report says (so the difference stays exactly this one).
 */
const KNOWN_DIFFERENCES: Record<string, RegExp> = {
  // Ignition 2.14 knows spec 3.4.0 only as 3.4.0-experimental; RHCOS 4.13 and later ship
  // Ignition ≥ 2.15, where 3.4.0 is stable, so the live ISOs we serve accept it.
  'minimal 3.4': /unsupported config version/,
  // Ignition ignores an unknown key with a warning: the user's intent (a proxy, kernel
  // arguments, a mistyped section) would be silently lost at boot, so we refuse it.
  'proxy in 3.0': /warning at \$\.ignition\.proxy.*Unused key proxy/,
  'kernelArguments in 3.2': /warning at \$\.kernelArguments.*Unused key kernelArguments/,
  'unknown top-level key': /warning at \$\.storgae.*Unused key storgae/,
  // the same for a key of a later spec, or a misspelled one, anywhere in the config
  'luks in 3.1': /warning at \$\.storage\.luks.*Unused key luks/,
  'http headers in 3.0': /warning at \$\.storage\.files\.0\.contents\.httpHeaders.*Unused key httpHeaders/,
  'compression of a merged config in 3.0': /warning at \$\.ignition\.config\.merge\.0\.compression.*Unused key/,
  'mountOptions in 3.0': /warning at \$\.storage\.filesystems\.0\.mountOptions.*Unused key mountOptions/,
  'user shouldExist in 3.1': /warning at \$\.passwd\.users\.0\.shouldExist.*Unused key shouldExist/,
  'partition resize in 3.1': /warning at \$\.storage\.disks\.0\.partitions\.0\.resize.*Unused key resize/,
  'luks discard in 3.3': /warning at \$\.storage\.luks\.0\.discard.*Unused key discard/,
  'tang advertisement in 3.3': /warning at \$\.storage\.luks\.0\.clevis\.tang\.0\.advertisement.*Unused key/,
  'misspelled file key': /warning at \$\.storage\.files\.0\.overwirte.*Unused key overwirte/,
  'unknown key in a file owner': /warning at \$\.storage\.files\.0\.user\.uid.*Unused key uid/,
  'unknown key in a unit': /warning at \$\.systemd\.units\.0\.enable.*Unused key enable/,
  'unknown key in a dropin': /warning at \$\.systemd\.units\.0\.dropins\.0\.content.*Unused key content/,
  'luks discard in 3.4': /unsupported config version/,
  // its validator lets a nameless user pass; useradd cannot create one at boot
  'user without name': /^$/,
};

/** [what, config, accepted]: the verdict ignition-validate gives too, but for KNOWN_DIFFERENCES. */
const VALIDATOR_CASES: [string, unknown, boolean][] = [
  ['minimal 3.0', v(0), true],
  ['minimal 3.4', v(4), true],
  ['spec 3.5 unknown', v(5), false],
  ['proxy in 3.0', v(0, { ignition: { version: '3.0.0', proxy: { httpProxy: 'http://p' } } }), false],
  ['relative path', v(1, { storage: { files: [{ path: 'a' }] } }), false],
  ['dirty path ..', v(1, { storage: { files: [{ path: '/a/../b' }] } }), false],
  ['dirty path trailing slash', v(1, { storage: { files: [{ path: '/a/' }] } }), false],
  ['dirty path //', v(1, { storage: { files: [{ path: '//a' }] } }), false],
  [
    'duplicate path across files and links',
    v(1, { storage: { files: [{ path: '/a' }], links: [{ path: '/a', target: '/b' }] } }),
    false,
  ],
  ['file below a link', v(1, { storage: { files: [{ path: '/l/f' }], links: [{ path: '/l', target: '/x' }] } }), false],
  [
    'hard link to a directory',
    v(1, { storage: { directories: [{ path: '/d' }], links: [{ path: '/l', target: '/d', hard: true }] } }),
    false,
  ],
  ['mode 0644', file({ mode: 0o644 }), true],
  ['mode 07777', file({ mode: 0o7777 }), true],
  ['mode 010000', file({ mode: 0o10000 }), false],
  ['mode -1', file({ mode: -1 }), false],
  ['mode as a string', file({ mode: '0644' }), false],
  ['mode not an integer', file({ mode: 420.5 }), false],
  ['data URL plain', source('data:,hello'), true],
  ['data URL base64', source('data:;base64,aGVsbG8='), true],
  ['data URL media type and charset', source('data:text/plain;charset=utf-8;base64,aGVsbG8='), true],
  ['data URL invalid base64', source('data:;base64,!!!!'), false],
  ['data URL base64 without padding', source('data:;base64,YQ'), false],
  ['data URL base64 with a space', source('data:;base64,Y Q=='), false],
  ['data URL base64 url alphabet', source('data:;base64,YWJj-_=='), false],
  ['data URL %-escape broken', source('data:,a%zzb'), false],
  ['data URL %-escape cut', source('data:,a%4'), false],
  ['data URL with a space', source('data:,a b'), false],
  ['data URL with a quote', source('data:,a"b'), false],
  ['data URL without comma', source('data:text/plain'), false],
  ['data URL unknown media type', source('data:ab/cd,x'), false],
  ['data URL upper-case BASE64', source('data:text/plain;BASE64,YQ=='), false],
  ['data URL parameter without value', source('data:text/plain;charset,x'), false],
  ['data URL upper-case prefix', source('DATA:,x'), false],
  ['gs:// in 3.1', source('gs://bucket/object', 1), false],
  ['gs:// in 3.2', source('gs://bucket/object', 2), true],
  ['ftp://', source('ftp://host/x'), false],
  ['file://', source('file:///etc/passwd'), false],
  ['compression xz', file({ contents: { source: 'data:,x', compression: 'xz' } }), false],
  [
    'compression gzip',
    file({ contents: { source: 'data:;base64,H4sIAAAAAAAA/6vIBABPyL2SAgAAAA==', compression: 'gzip' } }),
    true,
  ],
  ['hash sha512 too short', file({ contents: { source: 'data:,x', verification: { hash: 'sha512-00' } } }), false],
  ['hash md5', file({ contents: { source: 'data:,x', verification: { hash: `md5-${'0'.repeat(32)}` } } }), false],
  ['hash sha256', file({ contents: { source: 'data:,x', verification: { hash: `sha256-${'0'.repeat(64)}` } } }), true],
  [
    'http headers with https',
    file({ contents: { source: 'https://h/x', httpHeaders: [{ name: 'A', value: 'b' }] } }),
    true,
  ],
  [
    'http headers with tftp',
    file({ contents: { source: 'tftp://h/x', httpHeaders: [{ name: 'A', value: 'b' }] } }),
    false,
  ],
  ['unit name without suffix', v(1, { systemd: { units: [{ name: 'agent' }] } }), false],
  ['unit contents fine', unit('[Unit]\nDescription=x\n\n[Service]\nExecStart=/bin/true\n'), true],
  ['unit section not closed', unit('[Unit\nA=b\n'), false],
  ['unit text after a section', unit('[Unit] x\nA=b\n'), false],
  ['unit line without =', unit('[Unit]\nA\n'), false],
  ['unit line of 2047 bytes', unit(`[Unit]\nA=${'x'.repeat(2045)}\n`), true],
  ['unit line of 2048 bytes', unit(`[Unit]\nA=${'x'.repeat(2046)}\n`), false],
  ['unit continuation lines', unit(`[Unit]\nA=${'x'.repeat(2000)} \\\n${'y'.repeat(2000)}\n`), true],
  ['dropin not .conf', unit('[Unit]\n', { dropins: [{ name: 'x.service' }] }), false],
  ['dropin contents broken', unit('[Unit]\n', { dropins: [{ name: 'x.conf', contents: '[Service\n' }] }), false],
  ['kernelArguments in 3.2', v(2, { kernelArguments: { shouldExist: ['a'] } }), false],
  ['kernelArguments in 3.3', v(3, { kernelArguments: { shouldExist: ['a'] } }), true],
  ['luks in 3.1', v(1, { storage: { luks: [{ name: 'l', device: '/dev/sdb' }] } }), false],
  ['luks in 3.2', v(2, { storage: { luks: [{ name: 'l', device: '/dev/sdb' }] } }), true],
  ['luks discard in 3.3', v(3, { storage: { luks: [{ name: 'l', device: '/dev/sdb', discard: true }] } }), false],
  ['luks discard in 3.4', v(4, { storage: { luks: [{ name: 'l', device: '/dev/sdb', discard: true }] } }), true],
  [
    'tang advertisement in 3.3',
    v(3, {
      storage: {
        luks: [
          {
            name: 'l',
            device: '/dev/sdb',
            clevis: { tang: [{ url: 'http://t', thumbprint: 'x', advertisement: '{}' }] },
          },
        ],
      },
    }),
    false,
  ],
  [
    'http headers in 3.0',
    v(0, { storage: { files: [{ path: '/a', contents: { source: 'https://h/x', httpHeaders: [{ name: 'A' }] } }] } }),
    false,
  ],
  [
    'compression of a merged config in 3.0',
    v(0, { ignition: { version: '3.0.0', config: { merge: [{ source: 'https://h/c.ign', compression: 'gzip' }] } } }),
    false,
  ],
  [
    'compression of a merged config in 3.1',
    v(1, { ignition: { version: '3.1.0', config: { merge: [{ source: 'https://h/c.ign', compression: 'gzip' }] } } }),
    true,
  ],
  [
    'mountOptions in 3.0',
    v(0, { storage: { filesystems: [{ device: '/dev/sdb', format: 'xfs', mountOptions: ['a'] }] } }),
    false,
  ],
  [
    'mountOptions in 3.1',
    v(1, { storage: { filesystems: [{ device: '/dev/sdb', format: 'xfs', mountOptions: ['a'] }] } }),
    true,
  ],
  ['user shouldExist in 3.1', v(1, { passwd: { users: [{ name: 'a', shouldExist: false }] } }), false],
  ['user shouldExist in 3.2', v(2, { passwd: { users: [{ name: 'a', shouldExist: false }] } }), true],
  [
    'partition resize in 3.1',
    v(1, { storage: { disks: [{ device: '/dev/sdb', partitions: [{ number: 1, resize: true }] }] } }),
    false,
  ],
  [
    'partition resize in 3.2',
    v(2, { storage: { disks: [{ device: '/dev/sdb', partitions: [{ number: 1, resize: true }] }] } }),
    true,
  ],
  ['misspelled file key', file({ overwirte: true }), false],
  ['unknown key in a file owner', file({ user: { name: 'root', uid: 0 } }), false],
  ['unknown key in a unit', v(1, { systemd: { units: [{ name: 'a.service', enable: true }] } }), false],
  ['unknown key in a dropin', unit('[Unit]\n', { dropins: [{ name: 'x.conf', content: '[Unit]\n' }] }), false],
  ['unknown top-level key', v(1, { storgae: {} }), false],
  ['user without name', v(1, { passwd: { users: [{ sshAuthorizedKeys: ['k'] }] } }), false],
  ['duplicate unit', v(1, { systemd: { units: [{ name: 'a.service' }, { name: 'a.service' }] } }), false],
];

describe('ignition validator', () => {
  it.each(VALIDATOR_CASES)('%s', (_what, cfg, accepted) => {
    const run = () => validateIgnition(structuredClone(cfg), 'ignition config');
    if (accepted) expect(run).not.toThrow();
    else expect(run).toThrow(BadRequestError);
  });

  it('rejects malformed JSON and non-objects with a 400 naming the field', () => {
    for (const bad of ['[]', '{}', '{"ignition":', '"x"'])
      expect(() => parseIgnition(bad, 'ignition_config_override')).toThrow(/^ignition_config_override /);
  });

  describe.skipIf(unavailable({ "ignition-validate (Debian's ignition)": HAVE_IGNITION_VALIDATE }))(
    'agrees with ignition-validate',
    () => {
      it.each(VALIDATOR_CASES)('%s', async (what, cfg, accepted) => {
        const real = await ignitionValidate(JSON.stringify(cfg));
        const difference = KNOWN_DIFFERENCES[what];
        expect(real.ok, real.report).toBe(difference ? !accepted : accepted);
        if (difference) expect(real.report).toMatch(difference);
      });
    },
  );
});

describe('data URLs', () => {
  it('decodes what Ignition decodes, byte for byte', () => {
    const cases: [string, string][] = [
      ['data:,hello%20world', 'hello world'],
      ['data:;base64,aGVsbG8=', 'hello'],
      ["data:text/plain;charset=utf-8,a'b(c)*!~", "a'b(c)*!~"],
      ['data:,', ''],
      ['data:text/plain;a="b,c",x', 'x'],
    ];
    for (const [url, text] of cases) {
      const d = decodeDataUrl(url);
      expect(d.ok && d.data.toString('utf8'), url).toBe(text);
    }
  });
});

/** [what, parent, child]: the result must be what Ignition's own merge gives. */
const MERGE_CASES: [string, Record<string, unknown>, Record<string, unknown>][] = [
  [
    'files merge by path, fields override, new entries append',
    v(1, { storage: { files: [{ path: '/x', mode: 420, contents: { source: 'data:,x' } }, { path: '/y' }] } }),
    v(1, { storage: { files: [{ path: '/x', mode: 384 }, { path: '/z' }] } }),
  ],
  [
    'files, directories and links share one namespace',
    v(1, {
      storage: {
        files: [{ path: '/f', contents: { source: 'data:,f' } }, { path: '/g' }],
        links: [{ path: '/l', target: '/t' }],
        directories: [{ path: '/d' }],
      },
    }),
    v(1, {
      storage: {
        directories: [{ path: '/f' }],
        files: [{ path: '/l', contents: { source: 'data:,l' } }],
        links: [{ path: '/d', target: '/e' }],
      },
    }),
  ],
  [
    'units and dropins merge by name',
    v(1, {
      systemd: {
        units: [
          {
            name: 'a.service',
            enabled: true,
            contents: '[Unit]\n',
            dropins: [{ name: 'd.conf', contents: '[Service]\n' }],
          },
        ],
      },
    }),
    v(1, {
      systemd: {
        units: [
          { name: 'a.service', enabled: false, dropins: [{ name: 'e.conf', contents: '[Unit]\n' }] },
          { name: 'b.service', mask: true },
        ],
      },
    }),
  ],
  [
    'users merge by name, keys by value',
    v(1, { passwd: { users: [{ name: 'core', passwordHash: '!', sshAuthorizedKeys: ['a', 'b'] }] } }),
    v(1, {
      passwd: {
        users: [
          { name: 'core', sshAuthorizedKeys: ['c', 'a'] },
          { name: 'ops', groups: ['wheel'] },
        ],
      },
    }),
  ],
  [
    'file appends concatenate, headers merge by name and a valueless one removes',
    v(1, {
      storage: {
        files: [
          {
            path: '/x',
            append: [{ source: 'data:,1' }],
            contents: {
              source: 'https://h/x',
              httpHeaders: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
            },
          },
        ],
      },
    }),
    v(1, {
      storage: {
        files: [
          {
            path: '/x',
            append: [{ source: 'data:,1' }, { source: 'data:,2' }],
            contents: { source: 'https://h/x', httpHeaders: [{ name: 'A' }, { name: 'C', value: '3' }] },
          },
        ],
      },
    }),
  ],
  [
    'proxy fields override, noProxy by value',
    v(1, { ignition: { version: '3.1.0', proxy: { httpProxy: 'http://a:1', noProxy: ['x', 'y'] } } }),
    v(1, { ignition: { version: '3.1.0', proxy: { httpsProxy: 'http://b:2', noProxy: ['y', 'z'] } } }),
  ],
];

describe('override merge', () => {
  it('follows the documented rules', () => {
    const base = v(1, {
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['a'] }] },
      storage: { files: [{ path: '/x', mode: 420 }, { path: '/y' }] },
      systemd: { units: [{ name: 'a.service', enabled: true }] },
    }) as IgnitionConfig;
    const over = v(2, {
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['b'] }, { name: 'ops' }] },
      storage: { files: [{ path: '/x', mode: 384 }, { path: '/z' }], directories: [{ path: '/y' }] },
      systemd: { units: [{ name: 'a.service', enabled: false }, { name: 'b.service' }] },
    }) as IgnitionConfig;
    const before = JSON.stringify(base);
    const m = mergeIgnition(base, over) as any;
    expect(JSON.stringify(base)).toBe(before); // inputs untouched
    expect(m.ignition.version).toBe('3.2.0');
    expect(m.storage.files).toEqual([{ path: '/x', mode: 384 }, { path: '/z' }]);
    expect(m.storage.directories).toEqual([{ path: '/y' }]);
    expect(m.systemd.units).toEqual([{ name: 'a.service', enabled: false }, { name: 'b.service' }]);
    expect(m.passwd.users).toEqual([{ name: 'core', sshAuthorizedKeys: ['a', 'b'] }, { name: 'ops' }]);
  });

  it('is linear: ten times the entries cost about ten times the steps', () => {
    const steps = (n: number): number => {
      const files = (k: number, from: number) =>
        Array.from({ length: k }, (_, i) => ({ path: `/f/${from + i}`, mode: 420 }));
      const base = v(1, { storage: { files: files(n, 0) }, systemd: { units: [] } }) as IgnitionConfig;
      // half the override's files replace base files, half are new
      const over = v(1, { storage: { files: files(n, n / 2) } }) as IgnitionConfig;
      const counter: MergeCounter = { steps: 0 };
      const merged = mergeIgnition(base, over, counter) as any;
      expect(merged.storage.files).toHaveLength(n + n / 2);
      return counter.steps;
    };
    const small = steps(1_000);
    const large = steps(10_000);
    // quadratic would be ~100x; linear is ~10x (constant overheads make it slightly less)
    expect(large / small).toBeGreaterThan(8);
    expect(large / small).toBeLessThan(12);
  });

  describe.skipIf(unavailable({ "Debian's ignition (package ignition)": HAVE_IGNITION }))(
    "agrees with the real Ignition's merge",
    () => {
      it.each(MERGE_CASES)('%s', async (_what, parent, child) => {
        validateIgnition(parent);
        validateIgnition(child);
        const ours = mergeIgnition(parent as IgnitionConfig, child as IgnitionConfig);
        const wrapper = structuredClone(parent) as { ignition: Record<string, unknown> };
        const childUrl = `data:;base64,${Buffer.from(JSON.stringify(child)).toString('base64')}`;
        wrapper.ignition.config = { merge: [{ source: childUrl }] };
        const real = await ignitionFetchOffline(JSON.stringify(wrapper));
        expect(real.ok, real.log.slice(-2000)).toBe(true);
        const theirs = withoutEmpties(real.config) as Record<string, unknown>;
        const mine = withoutEmpties(ours) as Record<string, unknown>;
        for (const section of ['passwd', 'storage', 'systemd', 'kernelArguments'])
          expect(mine[section], section).toEqual(theirs[section]);
        const proxy = (o: Record<string, unknown>) => (o.ignition as { proxy?: unknown } | undefined)?.proxy;
        expect(proxy(mine)).toEqual(proxy(theirs));
      });
    },
  );
});

describe('override bounds', () => {
  it('refuses an override over the byte limit with a 413 naming it', () => {
    const text = JSON.stringify({
      ignition: { version: '3.1.0' },
      storage: { files: [{ path: '/a', contents: { source: `data:,${'x'.repeat(MAX_OVERRIDE_BYTES)}` } }] },
    });
    expect(() => parseIgnition(text, 'ignition_config_override')).toThrow(PayloadTooLargeError);
    expect(() => parseIgnition(text, 'ignition_config_override')).toThrow(
      new RegExp(`ignition_config_override is \\d+ bytes but only ${MAX_OVERRIDE_BYTES} bytes`),
    );
  });

  it('refuses nesting deeper than the limit with a 400 naming it, before parsing', () => {
    const deep = `{"ignition":{"version":"3.1.0"},"storage":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    expect(() => parseIgnition(deep, 'ignition_config_override')).toThrow(
      `ignition_config_override is nested deeper than ${MAX_OVERRIDE_DEPTH} levels`,
    );
    const lists = `{"ignition":{"version":"3.1.0"},"x":${'['.repeat(MAX_OVERRIDE_DEPTH)}${']'.repeat(MAX_OVERRIDE_DEPTH)}}`;
    expect(() => checkOverrideBounds(lists)).toThrow(/nested deeper/);
  });

  it('refuses more list entries than the limit with a 400 naming it', () => {
    const files = (n: number) =>
      JSON.stringify({
        ignition: { version: '3.1.0' },
        storage: { files: Array.from({ length: n }, (_, i) => ({ path: `/${i}` })) },
      });
    expect(checkOverrideBounds(files(MAX_OVERRIDE_ENTRIES)).entries).toBe(MAX_OVERRIDE_ENTRIES);
    expect(() => parseIgnition(files(MAX_OVERRIDE_ENTRIES + 1), 'ignition_config_override')).toThrow(
      `ignition_config_override has more than ${MAX_OVERRIDE_ENTRIES} list entries`,
    );
  });

  it('measures strings with brackets, escapes and nested lists correctly', () => {
    const m = checkOverrideBounds('{"a":["[[\\"]]",[],[1,[2,3]],{"b":"{"}]}');
    expect(m).toEqual({ bytes: 39, depth: 4, entries: 8 });
  });
});
