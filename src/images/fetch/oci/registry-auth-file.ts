// Registry credentials from a docker `config.json` / containers `auth.json` (REGISTRY_AUTH_FILE)
// or an OpenShift pull secret (the same JSON form): `{"auths": {"KEY": {"auth": base64("user:pass")}}}`
// (`username` + `password` fields are read when `auth` is absent).
//
// Which entry applies, as containers-image (pkg/docker/config) chooses it: for
// `registry/namespace/repo` the keys `registry/namespace/repo`, `registry/namespace`, then
// `registry` are tried exactly, in that order; failing those, keys written as URLs (`https://host/v1/`,
// `http://host`) or with Docker Hub's spellings (`docker.io`, `index.docker.io`,
// `registry-1.docker.io`) are normalized to a host and compared with the registry. A host with a
// port is a different registry (`mirror:5000` never matches `mirror`). Several files are searched
// in the order given (REGISTRY_AUTH_FILE, then the pull secret).
//
// Credentials are kept in memory only and never appear in an error: a malformed file is
// reported by path and key, never by content. Credential helpers (`credHelpers`, `credsStore`)
// and `identitytoken` entries are not supported (ignored). Does: parse and look up (pure).
// Does not: read files or send anything. Next: registry-client.ts uses the credentials.
import { BadRequestError } from '../../../errors.js';

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface AuthFile {
  /** Path or name of the file, for messages. */
  readonly source: string;
  readonly entries: ReadonlyMap<string, RegistryCredentials>;
}

/** A pull secret or auth file is a few KiB; refuse absurd inputs before parsing them. */
export const MAX_AUTH_FILE_BYTES = 4 * 1024 * 1024;

/** Parses the JSON text of an auth file; `source` names it in errors. */
export function parseAuthFile(text: string, source: string): AuthFile {
  if (Buffer.byteLength(text) > MAX_AUTH_FILE_BYTES)
    throw new BadRequestError(`${source}: larger than ${MAX_AUTH_FILE_BYTES} bytes; not a registry auth file`, {
      source,
    });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new BadRequestError(`${source}: not valid JSON (expected {"auths": {...}})`, { source });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new BadRequestError(`${source}: expected a JSON object with "auths"`, { source });
  const auths = (doc as { auths?: unknown }).auths;
  if (auths === undefined) return { source, entries: new Map() };
  if (typeof auths !== 'object' || auths === null || Array.isArray(auths))
    throw new BadRequestError(`${source}: "auths" must be an object keyed by registry`, { source });
  const entries = new Map<string, RegistryCredentials>();
  for (const [key, value] of Object.entries(auths as Record<string, unknown>)) {
    const creds = credentialsOf(value, key, source);
    if (creds) entries.set(key, creds);
  }
  return { source, entries };
}

/** The credentials for `repository` on `registry` from the first file that has an entry. */
export function findCredentials(
  files: readonly AuthFile[],
  registry: string,
  repository: string,
): RegistryCredentials | undefined {
  for (const file of files) {
    const found = lookup(file, registry, repository);
    if (found) return found;
  }
  return undefined;
}

function lookup(file: AuthFile, registry: string, repository: string): RegistryCredentials | undefined {
  // exact keys, most specific first: registry/ns/repo, registry/ns, registry
  let key = `${registry}/${repository}`;
  for (;;) {
    const exact = file.entries.get(key);
    if (exact) return exact;
    const slash = key.lastIndexOf('/');
    if (slash < 0) break;
    key = key.slice(0, slash);
  }
  const wanted = normalizeHost(registry);
  for (const [k, creds] of file.entries) if (normalizeKey(k) === wanted) return creds;
  return undefined;
}

/** A key written as a URL or a legacy Docker Hub spelling, reduced to a normalized host. */
function normalizeKey(key: string): string {
  const stripped = key.replace(/^https?:\/\//, '');
  const host = stripped !== key ? stripped.split('/')[0]! : stripped;
  return normalizeHost(host);
}

function normalizeHost(host: string): string {
  const lower = host.toLowerCase();
  return lower === 'docker.io' || lower === 'registry-1.docker.io' ? 'index.docker.io' : lower;
}

function credentialsOf(value: unknown, key: string, source: string): RegistryCredentials | undefined {
  const fail = (why: string): never => {
    throw new BadRequestError(`${source}: the entry for ${JSON.stringify(key)} ${why}`, { source, key });
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('must be an object');
  const entry = value as { auth?: unknown; username?: unknown; password?: unknown };
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(entry.auth)) fail('has an "auth" that is not base64');
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) fail('has an "auth" that does not decode to user:password');
    return { username: decoded.slice(0, colon), password: trimNuls(decoded.slice(colon + 1)) };
  }
  if (typeof entry.username === 'string' && typeof entry.password === 'string' && entry.username !== '')
    return { username: entry.username, password: entry.password };
  return undefined; // identitytoken-only or empty entries: nothing we can use
}

/** `text` without NUL padding at either end (in one pass; `/\0+$/` backtracked quadratically over inner NULs). */
function trimNuls(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 0) start++;
  while (end > start && text.charCodeAt(end - 1) === 0) end--;
  return text.slice(start, end);
}
