// Where to pull a reference from, given registries.conf: the ordered pull sources, mirrors
// first, then the primary location, as containers-image does (sysregistriesv2
// PullSourcesFromReference):
//
//   - the `[[registry]]` whose prefix is the longest match of the reference's name applies;
//     a prefix matches the name itself or a name continuing with `/` (`example.com/foo` matches
//     `example.com/foo/bar`, never `example.com/foobar`); `*.example.com` matches any subdomain
//     (a port may follow);
//   - its mirrors, in file order, filtered: with `mirror-by-digest-only = true` only for digest
//     references; a mirror with `pull-from-mirror = "digest-only"` (what IDMS writes) only for
//     digest references, `"tag-only"` only for tag references;
//   - then the primary `location`;
//   - each source is the reference with the matched prefix replaced by the endpoint's location
//     (`prefix = "quay.io/openshift-release-dev"`, `location = "mirror:5000/ocp"` turns
//     `quay.io/openshift-release-dev/ocp-release@sha256:…` into `mirror:5000/ocp/ocp-release@sha256:…`);
//     a wildcard prefix with an empty location keeps the reference as it is;
//   - a source whose own name falls under a `blocked = true` rule is dropped (and named in
//     `blocked`); when every source is dropped the pull is refused by the caller.
//
// Pure: no I/O, tested as a table (mirror-resolution.test.ts). Does not: contact a registry.
// Next: src/images/fetch/oci/registry-client.ts pulls from each source in turn.
import { BadRequestError } from '../../../errors.js';
import { type ImageReference, formatReference, parseImageReference, referenceName } from '../../image-reference.js';
import type { RegistriesConf, RegistryRule } from './registries-conf.js';

export interface PullSource {
  /** The physical reference to pull. */
  reference: ImageReference;
  /** TLS without verification, then plain HTTP, is allowed for this endpoint. */
  insecure: boolean;
  /** True for a `[[registry.mirror]]`, false for the primary location. */
  mirror: boolean;
}

export interface PullPlan {
  sources: PullSource[];
  /** Physical references dropped because a `blocked = true` rule covers them. */
  blocked: string[];
}

export function resolvePullSources(conf: RegistriesConf | undefined, ref: ImageReference): PullPlan {
  const rule = conf ? findRule(conf, referenceName(ref)) : undefined;
  if (rule === undefined) {
    return { sources: [{ reference: ref, insecure: false, mirror: false }], blocked: [] };
  }
  const digested = ref.digest !== undefined;
  const mirrors = rule.mirrors.filter((m) => {
    if (rule.mirrorByDigestOnly) return digested;
    if (m.pullFromMirror === 'digest-only') return digested;
    if (m.pullFromMirror === 'tag-only') return !digested;
    return true;
  });
  const endpoints = [
    ...mirrors.map((m) => ({ location: m.location, insecure: m.insecure, mirror: true })),
    { location: rule.location, insecure: rule.insecure, mirror: false },
  ];
  const plan: PullPlan = { sources: [], blocked: [] };
  for (const endpoint of endpoints) {
    const physical = rewrite(ref, rule, endpoint.location);
    const physicalRule = conf ? findRule(conf, referenceName(physical)) : undefined;
    if (physicalRule?.blocked) {
      plan.blocked.push(formatReference(physical));
      continue;
    }
    plan.sources.push({ reference: physical, insecure: endpoint.insecure, mirror: endpoint.mirror });
  }
  return plan;
}

/** The rule with the longest prefix matching `name` (`registry/repository`), if any. */
export function findRule(conf: RegistriesConf, name: string): RegistryRule | undefined {
  let best: RegistryRule | undefined;
  for (const rule of conf.registries) {
    if (matchEnd(name, rule.prefix) < 0) continue;
    if (best === undefined || rule.prefix.length > best.prefix.length) best = rule;
  }
  return best;
}

/** Where the matched prefix ends in `text`, or -1 when `prefix` does not match it. */
function matchEnd(text: string, prefix: string): number {
  if (prefix.startsWith('*.')) {
    const suffix = prefix.slice(1); // ".example.com"
    const host = text.split('/')[0]!;
    const hostName = host.replace(/:[0-9]+$/, '');
    if (!hostName.endsWith(suffix) || hostName.length === suffix.length) return -1;
    return hostName.length;
  }
  if (text === prefix) return prefix.length;
  if (text.startsWith(prefix) && '/:@'.includes(text[prefix.length]!)) {
    // `:` right after a bare host would be a port, i.e. another registry
    if (text[prefix.length] === ':' && !prefix.includes('/')) return -1;
    return prefix.length;
  }
  return -1;
}

function rewrite(ref: ImageReference, rule: RegistryRule, location: string): ImageReference {
  if (location === '') return ref; // wildcard prefix without location: the reference as it is
  const full = formatReference(ref);
  const end = matchEnd(full, rule.prefix);
  const rewritten = location + full.slice(end);
  try {
    return parseImageReference(rewritten, 'rewritten reference');
  } catch (err) {
    throw new BadRequestError(
      `registries.conf: rewriting ${full} with prefix ${JSON.stringify(rule.prefix)} and location ${JSON.stringify(location)} gives ${JSON.stringify(rewritten)}, which is not a valid reference`,
      { prefix: rule.prefix, location, cause: (err as Error).message },
    );
  }
}
