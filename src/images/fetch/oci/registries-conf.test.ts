// registries.conf reading: the TOML subset, containers-image's validation rules, errors that name
// the line, and the renderer's output read back to the same configuration.
import { describe, expect, it } from 'vitest';
import { parseRegistriesConf } from './registries-conf.js';
import { renderPolicyJson, renderRegistriesConf } from './registries-conf-render.js';

describe('parseRegistriesConf', () => {
  it('reads a full file: comments, quoting, arrays, ignored keys, mirrors', () => {
    const conf = parseRegistriesConf(
      `# mirrors for a disconnected site
unqualified-search-registries = ["registry.access.redhat.com",
  "docker.io", # trailing comma next
]
short-name-mode = 'enforcing'

[aliases]
"fedora" = "registry.fedoraproject.org/fedora"

[[registry]]
  prefix = "quay.io/openshift-release-dev/ocp-release"   # release images
  location = "quay.io/openshift-release-dev/ocp-release/"
  mirror-by-digest-only = true

  [[registry.mirror]]
    location = "mirror.example:5000/ocp4/openshift4"
    insecure = false

[[registry]]
location = "registry.example"
insecure = true
blocked = false

[[registry.mirror]]
location = "m.example/\\u0061b"
pull-from-mirror = "tag-only"
`,
      'registries.conf',
    );
    expect(conf).toEqual({
      registries: [
        {
          prefix: 'quay.io/openshift-release-dev/ocp-release',
          location: 'quay.io/openshift-release-dev/ocp-release',
          insecure: false,
          blocked: false,
          mirrorByDigestOnly: true,
          mirrors: [{ location: 'mirror.example:5000/ocp4/openshift4', insecure: false, pullFromMirror: undefined }],
        },
        {
          prefix: 'registry.example',
          location: 'registry.example',
          insecure: true,
          blocked: false,
          mirrorByDigestOnly: false,
          mirrors: [{ location: 'm.example/ab', insecure: false, pullFromMirror: 'tag-only' }],
        },
      ],
    });
  });

  it('keeps the first of several tables with one prefix', () => {
    const conf = parseRegistriesConf(
      '[[registry]]\nlocation = "a.example"\n[[registry]]\nprefix = "a.example"\nlocation = "a.example"\n[[registry.mirror]]\nlocation="m.example"\n',
      'f',
    );
    expect(conf.registries).toHaveLength(1);
    expect(conf.registries[0]!.mirrors).toEqual([]);
  });

  it.each([
    ['[registries.search]\nregistries = ["a.example"]\n', /line 1: this is the version 1 format/],
    [
      '[[registry]]\nlocation = "a.example"\nmirror-by-digest_only = true\n',
      /line 3: unknown key "mirror-by-digest_only" in \[\[registry\]\]/,
    ],
    ['\n\nfoo = 1\n', /line 3: unknown setting "foo"/],
    ['[[registry]]\ninsecure = true\n', /line 1: \[\[registry\]\] needs a location or a prefix/],
    ['[[registry]]\nprefix = "a.example"\n', /line 2: location is unset and the prefix is not a wildcard/],
    ['[[registry]]\nlocation = "https://a.example"\n', /line 2: "https:\/\/a.example": URL schemes are not supported/],
    ['[[registry]]\nlocation = "a.example:70000"\n', /line 2: .*not a port number/],
    [
      '[[registry]]\nlocation = "a.example"\npull-from-mirror = "all"\n',
      /line 3: pull-from-mirror belongs in a \[\[registry.mirror\]\] table/,
    ],
    [
      '[[registry]]\nlocation = "a.example"\n[[registry.mirror]]\nlocation = "m.example"\npull-from-mirror = "sometimes"\n',
      /line 5: pull-from-mirror must be one of all, digest-only, tag-only/,
    ],
    [
      '[[registry]]\nlocation = "a.example"\nmirror-by-digest-only = true\n[[registry.mirror]]\nlocation = "m.example"\npull-from-mirror = "all"\n',
      /line 6: pull-from-mirror cannot be set when the registry sets mirror-by-digest-only/,
    ],
    [
      '[[registry]]\nlocation = "a.example"\n[[registry.mirror]]\ninsecure = true\n',
      /line 3: \[\[registry.mirror\]\] needs a location/,
    ],
    [
      '[[registry]]\nprefix = "*.example.com/foo"\n',
      /line 2: the wildcard prefix "\*.example.com\/foo" must look like \*.example.com/,
    ],
    [
      '[[registry]]\nlocation = "a.example"\ninsecure = true\n[[registry]]\nprefix = "a.example/x"\nlocation = "a.example"\n',
      /line 4: registry "a.example" is defined again with a different insecure setting \(line 1\)/,
    ],
    ['[[registry]]\nlocation = "a.example"\ninsecure = "yes"\n', /line 3: insecure must be true or false/],
    ['[[registry]]\nlocation = 5\n', /line 2: location must be a string/],
    [
      '[[registry]]\nlocation = "a.example"\nlocation = "b.example"\n',
      /line 3: "location" is defined twice in one table \(first on line 2\)/,
    ],
    ['[[registry]]\nlocation = """a"""\n', /line 2: multi-line strings are not supported/],
    ['[[registry]]\nlocation = { a = 1 }\n', /line 2: inline tables are not supported/],
    ['[[registry]]\nregistry.location = "a"\n', /line 2: dotted keys are not supported/],
    ['[[registry]]\nlocation = "a.example" extra\n', /line 2: unexpected "e" after the value/],
    ['[[registry]]\nlocation = "a.example\n', /line 2: the string is not closed on its line/],
    ['[[registry]]\nlocation = "\\q"\n', /line 2: unknown escape \\q/],
    ['unqualified-search-registries = ["a",\n"b"\n', /line 3: the array is not closed|line 3: expected , or \]/],
    ['[registry]\nlocation = "a"\n', /line 1: registry must be written as \[\[registry\]\] tables/],
    ['[[registry]\n', /line 1: a table header must end with \]\]/],
    ['x = 1.5\n', /line 1: "1.5" is not a value this reader supports/],
  ])('refuses %j', (text, reason) => {
    expect(() => parseRegistriesConf(text, 'registries.conf')).toThrow(reason);
  });

  it('names the file in every error', () => {
    expect(() => parseRegistriesConf('foo = 1', '/etc/bootsmith/registries.conf')).toThrow(
      /^\/etc\/bootsmith\/registries.conf line 1: /,
    );
  });
});

describe('renderRegistriesConf', () => {
  it('renders a file that reads back to the same configuration, strings escaped', () => {
    const conf = parseRegistriesConf(
      `[[registry]]
prefix = "quay.io/openshift-release-dev"
location = "quay.io/openshift-release-dev"
mirror-by-digest-only = true
[[registry.mirror]]
location = "mirror.example:5000/ocp4"
insecure = true

[[registry]]
prefix = "*.example.org"
blocked = true

[[registry]]
location = "r.example"
[[registry.mirror]]
location = "m.example"
pull-from-mirror = "digest-only"
`,
      'in',
    );
    const text = renderRegistriesConf(conf);
    expect(parseRegistriesConf(text, 'out')).toEqual(conf);
    expect(text).toContain('[[registry.mirror]]\nlocation = "mirror.example:5000/ocp4"\ninsecure = true\n');
  });
});

describe('renderPolicyJson', () => {
  it('accepts everything, naming the Red Hat registries and every mirror scope explicitly', () => {
    const conf = parseRegistriesConf(
      '[[registry]]\nlocation = "quay.io/ocp"\n[[registry.mirror]]\nlocation = "mirror.example:5000/ocp"\n',
      'f',
    );
    const policy = JSON.parse(renderPolicyJson(conf)) as {
      default: unknown;
      transports: Record<string, Record<string, unknown>>;
    };
    const accept = [{ type: 'insecureAcceptAnything' }];
    expect(policy.default).toEqual(accept);
    expect(Object.keys(policy.transports.docker!)).toEqual([
      '',
      'mirror.example:5000/ocp',
      'quay.io/ocp',
      'registry.access.redhat.com',
      'registry.redhat.io',
    ]);
    for (const value of Object.values(policy.transports.docker!)) expect(value).toEqual(accept);
    expect(policy.transports['docker-daemon']).toEqual({ '': accept });
  });
});
