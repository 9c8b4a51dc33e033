// registries.conf mirror resolution as a table: a reference and a configuration in, the ordered
// pull sources (and blocked ones) out — the cases containers-registries.conf(5) and
// containers-image's PullSourcesFromReference define, plus what IDMS writes.
import { describe, expect, it } from 'vitest';
import { formatReference, parseImageReference } from '../../image-reference.js';
import { resolvePullSources, skippedMirrorsNote } from './mirror-resolution.js';
import { parseRegistriesConf } from './registries-conf.js';

const D = `sha256:${'d'.repeat(64)}`;

const IDMS = `
[[registry]]
prefix = "quay.io/openshift-release-dev"
location = "quay.io/openshift-release-dev"
[[registry.mirror]]
location = "mirror.example:5000/ocp4"
pull-from-mirror = "digest-only"
`;

const EXAMPLE = `
[[registry]]
prefix = "example.com/foo"
location = "internal-registry-for-example.com/bar"
[[registry.mirror]]
location = "example-mirror-0.local/mirror-for-foo"
[[registry.mirror]]
location = "example-mirror-1.local/mirrors/foo"
insecure = true
`;

const BY_DIGEST_ONLY = `
[[registry]]
location = "registry.example"
mirror-by-digest-only = true
[[registry.mirror]]
location = "m1.example"
[[registry.mirror]]
location = "m2.example/ns"
`;

const MIXED = `
[[registry]]
location = "registry.example"
[[registry.mirror]]
location = "digest.example"
pull-from-mirror = "digest-only"
[[registry.mirror]]
location = "tag.example"
pull-from-mirror = "tag-only"
[[registry.mirror]]
location = "all.example"
pull-from-mirror = "all"
`;

const LONGEST = `
[[registry]]
location = "quay.io"
[[registry.mirror]]
location = "host-mirror.example"

[[registry]]
prefix = "quay.io/special"
location = "quay.io/special"
[[registry.mirror]]
location = "special-mirror.example/s"
`;

const WILDCARD = `
[[registry]]
prefix = "*.example.org"
[[registry.mirror]]
location = "wild-mirror.example"

[[registry]]
prefix = "*.remap.org"
location = "remapped.example/r"
`;

const BLOCKED = `
[[registry]]
location = "blocked.example"
blocked = true
[[registry.mirror]]
location = "ok-mirror.example/b"

[[registry]]
location = "mirror-blocked.example"
[[registry.mirror]]
location = "blocked.example/elsewhere"

[[registry]]
location = "all-blocked.example"
blocked = true
`;

const PORTS = `
[[registry]]
location = "registry.example"
[[registry.mirror]]
location = "m.example"
`;

type Row = [
  name: string,
  conf: string | undefined,
  reference: string,
  sources: string[],
  blocked?: string[],
  skipped?: string[],
];

const rows: Row[] = [
  ['no configuration: the source only', undefined, `quay.io/a/b@${D}`, [`quay.io/a/b@${D}`]],
  ['no matching rule: the source only', IDMS, `registry.example/x@${D}`, [`registry.example/x@${D}`]],
  [
    'IDMS digest-only mirror, digest reference: mirror first, namespace rewritten',
    IDMS,
    `quay.io/openshift-release-dev/ocp-release@${D}`,
    [`mirror.example:5000/ocp4/ocp-release@${D}`, `quay.io/openshift-release-dev/ocp-release@${D}`],
  ],
  [
    'IDMS digest-only mirror, tag reference: the source only, the mirror named as skipped',
    IDMS,
    'quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64',
    ['quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64'],
    [],
    ['digest-only mirror.example:5000/ocp4'],
  ],
  [
    'prefix matches a whole path component only',
    IDMS,
    `quay.io/openshift-release-dev-other/x@${D}`,
    [`quay.io/openshift-release-dev-other/x@${D}`],
  ],
  [
    'the man page example: mirrors in order, then the remapped location',
    EXAMPLE,
    'example.com/foo/image:latest',
    [
      'example-mirror-0.local/mirror-for-foo/image:latest',
      'example-mirror-1.local/mirrors/foo/image:latest',
      'internal-registry-for-example.com/bar/image:latest',
    ],
  ],
  [
    'mirror-by-digest-only, digest: all mirrors',
    BY_DIGEST_ONLY,
    `registry.example/r@${D}`,
    [`m1.example/r@${D}`, `m2.example/ns/r@${D}`, `registry.example/r@${D}`],
  ],
  [
    'mirror-by-digest-only, tag: the source only',
    BY_DIGEST_ONLY,
    'registry.example/r:1',
    ['registry.example/r:1'],
    [],
    ['digest-only m1.example', 'digest-only m2.example/ns'],
  ],
  [
    'pull-from-mirror per mirror, digest',
    MIXED,
    `registry.example/r@${D}`,
    [`digest.example/r@${D}`, `all.example/r@${D}`, `registry.example/r@${D}`],
    [],
    ['tag-only tag.example'],
  ],
  [
    'pull-from-mirror per mirror, tag',
    MIXED,
    'registry.example/r:1',
    ['tag.example/r:1', 'all.example/r:1', 'registry.example/r:1'],
    [],
    ['digest-only digest.example'],
  ],
  [
    'tag and digest together count as a digest reference; both carried over',
    MIXED,
    `registry.example/r:1@${D}`,
    [`digest.example/r:1@${D}`, `all.example/r:1@${D}`, `registry.example/r:1@${D}`],
    [],
    ['tag-only tag.example'],
  ],
  [
    'the longest prefix wins',
    LONGEST,
    `quay.io/special/x@${D}`,
    [`special-mirror.example/s/x@${D}`, `quay.io/special/x@${D}`],
  ],
  [
    'a shorter prefix applies elsewhere',
    LONGEST,
    `quay.io/other/x@${D}`,
    [`host-mirror.example/other/x@${D}`, `quay.io/other/x@${D}`],
  ],
  [
    'a wildcard prefix matches subdomains; no location: no rewrite',
    WILDCARD,
    `a.b.example.org/x@${D}`,
    [`wild-mirror.example/x@${D}`, `a.b.example.org/x@${D}`],
  ],
  ['a wildcard prefix does not match the bare domain', WILDCARD, `example.org/x@${D}`, [`example.org/x@${D}`]],
  [
    'a wildcard prefix matches with a port',
    WILDCARD,
    `a.example.org:5000/x@${D}`,
    [`wild-mirror.example:5000/x@${D}`, `a.example.org:5000/x@${D}`],
  ],
  ['a wildcard prefix with a location rewrites the host', WILDCARD, `a.remap.org/x:1`, ['remapped.example/r/x:1']],
  [
    'a host prefix does not match the same host with a port',
    PORTS,
    'registry.example:5000/x:1',
    ['registry.example:5000/x:1'],
  ],
  [
    'a blocked source is dropped, its mirror kept',
    BLOCKED,
    `blocked.example/x@${D}`,
    [`ok-mirror.example/b/x@${D}`],
    [`blocked.example/x@${D}`],
  ],
  [
    'a mirror under a blocked rule is dropped',
    BLOCKED,
    `mirror-blocked.example/x@${D}`,
    [`mirror-blocked.example/x@${D}`],
    [`blocked.example/elsewhere/x@${D}`],
  ],
  ['everything blocked: no sources', BLOCKED, `all-blocked.example/x@${D}`, [], [`all-blocked.example/x@${D}`]],
];

describe('resolvePullSources', () => {
  it.each(rows)('%s', (_name, conf, reference, sources, blocked = [], skipped = []) => {
    const parsed = conf === undefined ? undefined : parseRegistriesConf(conf, 'registries.conf');
    const plan = resolvePullSources(parsed, parseImageReference(reference));
    expect(plan.sources.map((s) => formatReference(s.reference))).toEqual(sources);
    expect(plan.blocked).toEqual(blocked);
    expect(plan.skipped.map((s) => `${s.only} ${s.location}`)).toEqual(skipped);
  });

  it('says why a failed pull left mirrors out, and what to do', () => {
    const ref = parseImageReference('quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64');
    const plan = resolvePullSources(parseRegistriesConf(IDMS, 'f'), ref);
    expect(skippedMirrorsNote(plan, ref)).toBe(
      'the registries.conf mirror mirror.example:5000/ocp4 was skipped: it pulls by digest only (pull-from-mirror = "digest-only" or mirror-by-digest-only) and quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64 is a tag; pin the image by digest (…@sha256:<digest>) in OS_IMAGES to pull it through the mirror',
    );
    const digest = parseImageReference(`quay.io/openshift-release-dev/ocp-release@${D}`);
    expect(skippedMirrorsNote(resolvePullSources(parseRegistriesConf(IDMS, 'f'), digest), digest)).toBeUndefined();
  });

  it('marks mirrors and carries each endpoint’s own insecure flag', () => {
    const plan = resolvePullSources(
      parseRegistriesConf(EXAMPLE, 'f'),
      parseImageReference('example.com/foo/image:latest'),
    );
    expect(plan.sources.map((s) => [s.mirror, s.insecure])).toEqual([
      [true, false],
      [true, true],
      [false, false],
    ]);
  });

  it('refuses a rewrite that makes an invalid reference, naming the rule', () => {
    const conf = parseRegistriesConf('[[registry]]\nprefix = "quay.io/a"\nlocation = "mirror.example/UPPER"\n', 'f');
    expect(() => resolvePullSources(conf, parseImageReference('quay.io/a/b:1'))).toThrow(
      /rewriting quay.io\/a\/b:1 with prefix "quay.io\/a" and location "mirror.example\/UPPER" gives "mirror.example\/UPPER\/b:1", which is not a valid reference/,
    );
  });
});
