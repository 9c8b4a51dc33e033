// Container image references as OS_IMAGES names them: `HOST[:PORT]/REPO[:TAG][@sha256:DIGEST]`,
// optionally written as an `oci://` URL. The grammar is distribution's (docker/distribution
// `reference`): a domain is the first path component when it holds a `.` or a `:`, is
// `localhost`, or is a bracketed IPv6 address; repository components are lower-case
// alphanumerics joined by `.`, `_`, `__` or runs of `-`; a tag is at most 128 word characters,
// dots and dashes; a digest here must be sha256 (what registries and release payloads use).
//
// Docker Hub: `docker.io/x` is the repository `library/x` (as docker and containers-image read
// it) and its API lives at `registry-1.docker.io`. A reference without a registry host
// (`ubuntu:22.04`) is refused: bootsmith never guesses a registry.
//
// Does: parse, validate and format references (pure). Does not: talk to a registry or apply
// registries.conf (src/images/fetch/oci/mirror-resolution.ts does). Next: mirror-resolution.ts.
import { BadRequestError } from '../errors.js';

export interface ImageReference {
  /** `host[:port]` as written (host lower-cased), e.g. `mirror.example:5000`, `[::1]:5000`. */
  readonly registry: string;
  /** Repository path inside the registry, e.g. `openshift-release-dev/ocp-release`. */
  readonly repository: string;
  readonly tag?: string;
  /** `sha256:<64 hex>` when the reference pins content. */
  readonly digest?: string;
}

/** distribution's limit on the length of a name (registry + `/` + repository). */
const MAX_NAME_LENGTH = 255;
/** distribution's tag grammar: at most 128 characters. */
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN_COMPONENT = /^(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])$/;
const PORT = /^[0-9]+$/;

/** The registry whose API serves `docker.io` names. */
export const DOCKER_HUB = 'docker.io';
const DOCKER_HUB_API = 'registry-1.docker.io';

/** Parses a reference; `what` names it in errors (e.g. `release_image`). */
export function parseImageReference(input: string, what = 'image reference'): ImageReference {
  const fail = (why: string): never => {
    throw new BadRequestError(`${what} ${JSON.stringify(clip(input))}: ${why}`, { field: what });
  };
  let text = input.trim();
  if (/^oci:\/\//i.test(text)) text = text.slice('oci://'.length);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
    fail('only HOST[:PORT]/REPO[:TAG][@sha256:DIGEST] or an oci:// URL is accepted');
  if (text === '') fail('is empty');
  if (/\s/.test(text)) fail('contains white space');

  let digest: string | undefined;
  const at = text.indexOf('@');
  if (at >= 0) {
    digest = text.slice(at + 1);
    text = text.slice(0, at);
    if (!digest.startsWith('sha256:')) fail('only sha256 digests are supported');
    if (!DIGEST.test(digest)) fail('the digest must be sha256: followed by 64 lower-case hex digits');
  }

  const slash = text.indexOf('/');
  if (slash < 0) fail('names no registry host (write HOST[:PORT]/REPO; no default registry is assumed)');
  const registry = text.slice(0, slash);
  let rest = text.slice(slash + 1);
  if (!looksLikeRegistry(registry))
    fail(`names no registry host (${JSON.stringify(registry)} is a repository component; write HOST[:PORT]/REPO)`);
  const registryProblem = checkRegistry(registry);
  if (registryProblem) fail(registryProblem);

  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.indexOf(':', lastSlash + 1);
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) fail(`the tag ${JSON.stringify(clip(tag))} is not a valid tag`);
  }
  if (rest === '') fail('names no repository');
  for (const component of rest.split('/')) {
    if (!PATH_COMPONENT.test(component))
      fail(
        `the repository component ${JSON.stringify(clip(component))} is not valid (lower-case letters, digits, . _ -)`,
      );
  }
  const host = normalizeRegistry(registry);
  const repository = host === DOCKER_HUB && !rest.includes('/') ? `library/${rest}` : rest;
  if (host.length + 1 + repository.length > MAX_NAME_LENGTH)
    fail(`the name is longer than ${MAX_NAME_LENGTH} characters`);
  if (tag === undefined && digest === undefined) fail('names neither a tag nor a digest');
  return {
    registry: host,
    repository,
    ...(tag !== undefined ? { tag } : {}),
    ...(digest !== undefined ? { digest } : {}),
  };
}

/** `registry/repository`: what registries.conf prefixes and auth file keys are matched against. */
export function referenceName(ref: ImageReference): string {
  return `${ref.registry}/${ref.repository}`;
}

/** The full reference: `registry/repository[:tag][@digest]`. */
export function formatReference(ref: ImageReference): string {
  return `${referenceName(ref)}${ref.tag !== undefined ? `:${ref.tag}` : ''}${ref.digest !== undefined ? `@${ref.digest}` : ''}`;
}

/** The same repository pinned to `digest` (the tag dropped): what a resolved tag is recorded as. */
export function pinned(ref: ImageReference, digest: string): ImageReference {
  return { registry: ref.registry, repository: ref.repository, digest };
}

/** Host and port the registry API is reached at (Docker Hub's API has its own host). */
export function apiHost(registry: string): string {
  return registry === DOCKER_HUB ? DOCKER_HUB_API : registry;
}

/** Checks a `host[:port]` (a registries.conf location's first component, an auth file key). */
export function checkRegistry(registry: string): string | undefined {
  let host = registry;
  let port: string | undefined;
  if (registry.startsWith('[')) {
    const end = registry.indexOf(']');
    if (end < 0) return `the registry ${JSON.stringify(clip(registry))} has an unclosed IPv6 bracket`;
    host = registry.slice(1, end);
    const after = registry.slice(end + 1);
    if (after !== '' && !after.startsWith(':'))
      return `the registry ${JSON.stringify(clip(registry))} is not a valid host[:port]`;
    if (after) port = after.slice(1);
    if (!/^[0-9a-fA-F:.]+$/.test(host) || !host.includes(':'))
      return `the registry ${JSON.stringify(clip(registry))} is not a valid IPv6 address`;
  } else {
    const colon = registry.indexOf(':');
    if (colon >= 0) {
      host = registry.slice(0, colon);
      port = registry.slice(colon + 1);
    }
    if (host === '' || !host.split('.').every((c) => DOMAIN_COMPONENT.test(c)))
      return `the registry host ${JSON.stringify(clip(host))} is not a valid host name`;
  }
  if (port !== undefined && (!PORT.test(port) || Number(port) < 1 || Number(port) > 65535))
    return `the registry port ${JSON.stringify(clip(port))} is not a port number`;
  return undefined;
}

/** True when the first component of a name is a registry rather than a repository component. */
function looksLikeRegistry(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost' || component.startsWith('[');
}

function normalizeRegistry(registry: string): string {
  if (registry.startsWith('[')) return registry.toLowerCase();
  const colon = registry.indexOf(':');
  return colon < 0 ? registry.toLowerCase() : `${registry.slice(0, colon).toLowerCase()}${registry.slice(colon)}`;
}

/** Inputs are echoed in errors, bounded so a megabyte of junk does not become a megabyte of log. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
