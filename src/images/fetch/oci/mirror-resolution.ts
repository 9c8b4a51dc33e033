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
//     `blocked`); when every source is dropped the pull is refused by the caller;
//   - a mirror the filter leaves out is named in `skipped` with why (a tag through a digest-only
//     mirror, a digest through a tag-only one), so a failed pull can say so and what to do.
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
  /** Mirrors left out for the kind of reference: a tag and a mirror that pulls by digest only, or the reverse. */
  skipped: SkippedMirror[];
}

export interface SkippedMirror {
  /** The mirror's location. */
  location: string;
  /** What the mirror is restricted to: `digest-only` (pull-from-mirror or mirror-by-digest-only) or `tag-only`. */
  only: 'digest-only' | 'tag-only';
}

export function resolvePullSources(conf: RegistriesConf | undefined, ref: ImageReference): PullPlan {
  const rule = conf ? findRule(conf, referenceName(ref)) : undefined;
  if (rule === undefined) {
    return { sources: [{ reference: ref, insecure: false, mirror: false }], blocked: [], skipped: [] };
  }
  const digested = ref.digest !== undefined;
  const skipped: SkippedMirror[] = [];
  const mirrors = rule.mirrors.filter((m) => {
    const only = rule.mirrorByDigestOnly ? 'digest-only' : m.pullFromMirror;
    if ((only === 'digest-only' && !digested) || (only === 'tag-only' && digested)) {
      skipped.push({ location: m.location, only });
      return false;
    }
    return true;
  });
  const endpoints = [
    ...mirrors.map((m) => ({ location: m.location, insecure: m.insecure, mirror: true })),
    { location: rule.location, insecure: rule.insecure, mirror: false },
  ];
  const plan: PullPlan = { sources: [], blocked: [], skipped };
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

/**
 * Why a pull that failed at every source tried did not try the skipped mirrors, and what to do
 * (undefined when none was skipped).
 */
export function skippedMirrorsNote(plan: PullPlan, ref: ImageReference): string | undefined {
  if (plan.skipped.length === 0) return undefined;
  // a reference is a tag or a digest: every skipped mirror was skipped for the same reason
  const one = plan.skipped.length === 1;
  const which = one
    ? `mirror ${plan.skipped[0]!.location} was skipped: it pulls`
    : `mirrors ${plan.skipped.map((s) => s.location).join(', ')} were skipped: they pull`;
  return plan.skipped[0]!.only === 'digest-only'
    ? `the registries.conf ${which} by digest only (pull-from-mirror = "digest-only" or mirror-by-digest-only) and ${formatReference(ref)} is a tag; pin the image by digest (…@sha256:<digest>) in OS_IMAGES to pull it through the mirror`
    : `the registries.conf ${which} by tag only (pull-from-mirror = "tag-only") and ${formatReference(ref)} names a digest; name it by tag in OS_IMAGES to pull it through the mirror`;
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
