// A registry v2 client for one registry endpoint (distribution's HTTP API, OCI distribution spec),
// in-process, read-only:
//
//   - ping `GET /v2/` once: learns whether the registry wants no auth, Basic or Bearer, and (for
//     an `insecure` endpoint) whether it speaks HTTPS or plain HTTP;
//   - Basic: the credentials of the auth files (REGISTRY_AUTH_FILE, pull secret) for this
//     registry and repository; Bearer: a token from the challenge's realm for
//     `repository:<repo>:pull`, fetched with those credentials (or anonymously), cached per
//     repository until it expires, fetched again once when the registry answers 401;
//   - manifests: `GET /v2/<repo>/manifests/<tag|digest>` with the four manifest media types
//     accepted, refused above `maxManifestBytes` (before reading when Content-Length says so),
//     the sha256 of the exact bytes checked against the digest asked for (or, for a tag, against
//     Docker-Content-Digest when sent) and returned so the caller can record it;
//   - blobs: `GET /v2/<repo>/blobs/<digest>` from an offset (`Range`), following redirects to
//     storage (at most MAX_REDIRECTS) and dropping Authorization when a redirect leaves the
//     registry's origin;
//   - bounded retries (`retry.attempts`) with backoff for network faults, 5xx, 408 and 429.
//
// Every error names the registry, the repository and the step ("registry mirror.example:5000
// refused credentials for repo/x (401)"); no credential or token ever reaches a message.
// Does not: verify blob digests (blob-reader.ts does, while streaming) or choose between
// mirrors (oci-pull.ts). Next: blob-reader.ts.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { sleep } from '../../load-failure/retry-policy.js';
import { apiHost } from '../../image-reference.js';
import { type AuthFile, type RegistryCredentials, findCredentials } from './registry-auth-file.js';
import { RegistryError, type RegistryErrorContext, type RegistryStep, statusError } from './registry-error.js';
import { type RegistryTimeouts, type TlsTrust, networkError, readCapped, registryGet } from './registry-http.js';
import { type Challenge, parseChallenges } from './www-authenticate.js';

export const MANIFEST_MEDIA_TYPES = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
} as const;

/** distribution and containers-image both cap manifests at 4 MiB; a larger one is not a manifest. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Token answers are a few KiB; containers-image caps them at 1 MiB. */
const MAX_TOKEN_BYTES = 1024 * 1024;
/** Error bodies are read only for their code. */
const MAX_ERROR_BYTES = 64 * 1024;
/** Registries redirect a blob once (to storage); a chain this long is a loop. */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Tokens without `expires_in` live 60 s (the Docker token spec's default). */
const DEFAULT_TOKEN_SECONDS = 60;

export interface RetrySettings {
  /** Attempts per request for transient faults (1 = no retry). */
  attempts: number;
  /** Delay before the second attempt; doubles after each further one. */
  baseDelayMs: number;
}

export const DEFAULT_REGISTRY_RETRY: RetrySettings = { attempts: 3, baseDelayMs: 1_000 };

export interface RegistryClientSettings {
  authFiles: readonly AuthFile[];
  trust: TlsTrust;
  timeouts: RegistryTimeouts;
  retry: RetrySettings;
  maxManifestBytes: number;
}

export interface FetchedManifest {
  bytes: Buffer;
  /** The media type from the document (falling back to Content-Type). */
  mediaType: string;
  /** `sha256:<hex>` of `bytes`. */
  digest: string;
}

export type BlobBody =
  | { kind: 'bytes'; start: number; total: number | undefined; stream: Readable }
  /** The blob ends exactly at the offset asked for. */
  | { kind: 'complete' };

type AuthScheme = { kind: 'none' } | { kind: 'basic' } | { kind: 'bearer'; challenge: Challenge };

export class RegistryClient {
  /** `https:` or `http:` once known (plain HTTP only for insecure endpoints). */
  private protocol: 'https:' | 'http:' | undefined;
  private auth: AuthScheme | undefined;
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();

  constructor(
    /** `host[:port]` as in references. */
    readonly registry: string,
    private readonly insecure: boolean,
    private readonly settings: RegistryClientSettings,
  ) {}

  /** `GET /v2/`: the endpoint answers the v2 API; learns its auth scheme. */
  async ping(signal: AbortSignal): Promise<void> {
    if (this.auth !== undefined) return;
    const where = { registry: this.registry, step: 'ping' as const };
    await this.withRetries(where, signal, async () => {
      const res = await this.rawGet('/v2/', {}, where, signal);
      const status = res.statusCode ?? 0;
      if (status === 200) {
        res.resume();
        this.auth = { kind: 'none' };
        return;
      }
      if (status === 401) {
        res.resume();
        const challenges = parseChallenges(res.headers['www-authenticate']);
        const bearer = challenges.find((c) => c.scheme === 'bearer' && c.params.realm);
        if (bearer) this.auth = { kind: 'bearer', challenge: bearer };
        else if (challenges.some((c) => c.scheme === 'basic')) this.auth = { kind: 'basic' };
        else
          throw new RegistryError(
            `registry ${this.registry} asks for authentication without a Basic or Bearer challenge`,
            { ...where, status },
            'slow',
          );
        return;
      }
      throw statusError({ ...where, status }, 'v2 API (/v2/)', await errorCode(res));
    });
  }

  /** A manifest by tag or digest, size-capped and digest-verified. */
  async getManifest(repository: string, reference: string, signal: AbortSignal): Promise<FetchedManifest> {
    const where = { registry: this.registry, repository, step: 'manifest' as const };
    const accept = Object.values(MANIFEST_MEDIA_TYPES).join(', ');
    return this.withRetries(where, signal, async () => {
      const res = await this.authorizedGet(
        repository,
        `/v2/${repository}/manifests/${reference}`,
        { accept },
        where,
        signal,
      );
      const status = res.statusCode ?? 0;
      if (status !== 200) throw statusError({ ...where, status }, `manifest ${reference}`, await errorCode(res));
      const cap = this.settings.maxManifestBytes;
      const bytes = await readCapped(
        res,
        cap,
        (size) =>
          new RegistryError(
            `registry ${this.registry} sent a manifest for ${repository}${reference.startsWith('sha256:') ? '@' : ':'}${reference} of ${size ?? `more than ${cap}`} bytes; the limit is ${cap}`,
            where,
            'never',
            'format',
          ),
      ).catch((err: unknown) => {
        throw err instanceof RegistryError ? err : networkError(err, where);
      });
      const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      const expected = reference.startsWith('sha256:') ? reference : res.headers['docker-content-digest'];
      if (typeof expected === 'string' && expected.startsWith('sha256:') && expected !== digest) {
        throw new RegistryError(
          `registry ${this.registry} sent a manifest for ${repository} whose sha256 is ${digest}, not ${expected}`,
          where,
          'never',
          'format',
        );
      }
      return { bytes, mediaType: mediaTypeOf(bytes, res), digest };
    });
  }

  /**
   * A blob from `offset` (following redirects to storage). Errors once the answer is not the bytes.
   * A streamed blob runs on the idle clock only; a `small` one (a config) keeps the whole-request clock.
   */
  async openBlob(
    repository: string,
    digest: string,
    offset: number,
    signal: AbortSignal,
    small = false,
  ): Promise<BlobBody> {
    const where = { registry: this.registry, repository, step: 'blob' as const };
    return this.withRetries(where, signal, async () => {
      const ranged: Record<string, string> = offset > 0 ? { range: `bytes=${offset}-` } : {};
      const { res, streaming } = await this.authorizedGetFollowing(
        repository,
        `/v2/${repository}/blobs/${digest}`,
        ranged,
        where,
        signal,
      );
      const status = res.statusCode ?? 0;
      if (offset > 0 && status === 416) {
        res.resume();
        const total = /^bytes \*\/(\d+)$/.exec(res.headers['content-range'] ?? '')?.[1];
        if (total !== undefined && Number(total) === offset) return { kind: 'complete' };
        throw new RegistryError(
          `registry ${this.registry} refused bytes ${offset}- of blob ${digest} (416)`,
          { ...where, status },
          'fast',
        );
      }
      if (offset > 0 && status === 206) {
        const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.headers['content-range'] ?? '');
        if (!m || Number(m[1]) !== offset) {
          res.destroy();
          throw new RegistryError(
            `registry ${this.registry} answered a range other than bytes ${offset}- for blob ${digest}`,
            { ...where, status },
            'fast',
          );
        }
        if (!small) streaming();
        return { kind: 'bytes', start: offset, total: m[3] === '*' ? undefined : Number(m[3]), stream: res };
      }
      if (status === 200) {
        const length = res.headers['content-length'];
        if (!small) streaming();
        return {
          kind: 'bytes',
          start: 0,
          total: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
          stream: res,
        };
      }
      throw statusError({ ...where, status }, `blob ${digest}`, await errorCode(res));
    });
  }

  /** A small blob (an image config) read whole, capped and digest-verified. */
  async readBlob(repository: string, digest: string, cap: number, signal: AbortSignal): Promise<Buffer> {
    const where = { registry: this.registry, repository, step: 'blob' as const };
    const body = await this.openBlob(repository, digest, 0, signal, true);
    if (body.kind !== 'bytes')
      throw new RegistryError(`registry ${this.registry} sent no bytes for blob ${digest}`, where, 'fast');
    const bytes = await readCapped(
      body.stream as IncomingMessage,
      cap,
      () =>
        new RegistryError(
          `registry ${this.registry}: blob ${digest} in ${repository} is larger than ${cap} bytes`,
          where,
          'never',
          'format',
        ),
    ).catch((err: unknown) => {
      throw err instanceof RegistryError ? err : networkError(err, where);
    });
    const actual = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    if (actual !== digest)
      throw new RegistryError(
        `registry ${this.registry} sent blob ${digest} of ${repository} with sha256 ${actual}`,
        where,
        'never',
        'format',
      );
    return bytes;
  }

  private async withRetries<T>(
    where: RegistryErrorContext,
    signal: AbortSignal,
    attempt: () => Promise<T>,
  ): Promise<T> {
    const { attempts, baseDelayMs } = this.settings.retry;
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        const error = err instanceof RegistryError ? err : networkError(err, where);
        if (error.retry !== 'fast' || n >= attempts) throw error;
        await sleep(baseDelayMs * 2 ** (n - 1), signal);
      }
    }
  }

  private async authorizedGet(
    repository: string,
    path: string,
    headers: Record<string, string>,
    where: RegistryErrorContext,
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    return (await this.authorizedGetFollowing(repository, path, headers, where, signal, 0)).res;
  }

  /** GET with auth; on 401 with Bearer, one fresh token and one more try; redirects followed when `maxRedirects` > 0. */
  private async authorizedGetFollowing(
    repository: string,
    path: string,
    headers: Record<string, string>,
    where: RegistryErrorContext,
    signal: AbortSignal,
    maxRedirects = MAX_REDIRECTS,
  ): Promise<{ res: IncomingMessage; streaming: () => void }> {
    await this.ping(signal);
    for (let fresh = false; ; fresh = true) {
      const authorization = await this.authorization(repository, fresh, where, signal);
      const first = await this.rawGetFull(
        path,
        { ...headers, ...(authorization ? { authorization } : {}) },
        where,
        signal,
      );
      if (first.res.statusCode === 401 && !fresh) {
        // an expired token, or a registry that only challenges per repository: learn and try once more
        const challenges = parseChallenges(first.res.headers['www-authenticate']);
        const bearer = challenges.find((c) => c.scheme === 'bearer' && c.params.realm);
        const retry =
          bearer !== undefined || (this.auth?.kind === 'none' && challenges.some((c) => c.scheme === 'basic'));
        if (retry) {
          first.res.resume();
          this.auth = bearer ? { kind: 'bearer', challenge: bearer } : { kind: 'basic' };
          this.tokens.delete(repository);
          continue;
        }
      }
      return this.follow(first, headers, authorization, where, signal, maxRedirects);
    }
  }

  private async follow(
    first: { res: IncomingMessage; streaming: () => void; url: URL },
    headers: Record<string, string>,
    authorization: string | undefined,
    where: RegistryErrorContext,
    signal: AbortSignal,
    maxRedirects: number,
  ): Promise<{ res: IncomingMessage; streaming: () => void }> {
    let current = first;
    for (let hop = 0; ; hop++) {
      const location = current.res.headers.location;
      if (!REDIRECTS.has(current.res.statusCode ?? 0) || !location || maxRedirects === 0) return current;
      current.res.resume();
      if (hop >= maxRedirects)
        throw new RegistryError(
          `registry ${this.registry}: more than ${maxRedirects} redirects for ${where.step}`,
          where,
          'slow',
        );
      let next: URL;
      try {
        next = new URL(location, current.url);
      } catch {
        throw new RegistryError(`registry ${this.registry} redirected to an invalid location`, where, 'slow');
      }
      if (next.protocol !== 'https:' && next.protocol !== 'http:')
        throw new RegistryError(
          `registry ${this.registry} redirected to an unsupported ${next.protocol} URL`,
          where,
          'slow',
        );
      const sameOrigin = next.origin === this.origin();
      const response = await registryGet(
        {
          url: next,
          headers: { ...headers, ...(sameOrigin && authorization ? { authorization } : {}) },
          insecureTls: sameOrigin && this.insecure,
          signal,
          where,
        },
        this.settings.trust,
        this.settings.timeouts,
      );
      current = { ...response, url: next };
    }
  }

  private async authorization(
    repository: string,
    fresh: boolean,
    where: RegistryErrorContext,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const auth = this.auth;
    if (auth === undefined || auth.kind === 'none') return undefined;
    const creds = findCredentials(this.settings.authFiles, this.registry, repository);
    if (auth.kind === 'basic') {
      if (!creds)
        throw new RegistryError(
          `registry ${this.registry} requires credentials for ${repository} and the auth files have none for it`,
          { ...where, repository },
          'slow',
        );
      return `Basic ${basic(creds)}`;
    }
    const cached = this.tokens.get(repository);
    if (!fresh && cached && cached.expiresAt > Date.now()) return `Bearer ${cached.token}`;
    const token = await this.fetchToken(auth.challenge, repository, creds, signal);
    return `Bearer ${token}`;
  }

  private async fetchToken(
    challenge: Challenge,
    repository: string,
    creds: RegistryCredentials | undefined,
    signal: AbortSignal,
  ): Promise<string> {
    const where = { registry: this.registry, repository, step: 'token' as RegistryStep };
    let realm: URL;
    try {
      realm = new URL(challenge.params.realm!);
    } catch {
      throw new RegistryError(`registry ${this.registry} named a token realm that is not a URL`, where, 'slow');
    }
    if (realm.protocol !== 'https:' && !(realm.protocol === 'http:' && this.insecure))
      throw new RegistryError(
        `registry ${this.registry} named a token realm that is not https (refusing to send credentials over plain HTTP)`,
        where,
        'slow',
      );
    if (challenge.params.service) realm.searchParams.set('service', challenge.params.service);
    realm.searchParams.set('scope', `repository:${repository}:pull`);
    const started = Date.now();
    const { res } = await registryGet(
      {
        url: realm,
        headers: creds ? { authorization: `Basic ${basic(creds)}` } : {},
        insecureTls: false,
        signal,
        where,
      },
      this.settings.trust,
      this.settings.timeouts,
    );
    const status = res.statusCode ?? 0;
    if (status === 401 || status === 403) {
      res.resume();
      throw new RegistryError(
        `registry ${this.registry} refused credentials for ${repository} (token ${status}${creds ? '' : '; the auth files have no entry for it'})`,
        { ...where, status },
        'slow',
      );
    }
    if (status !== 200) throw statusError({ ...where, status }, 'token', await errorCode(res));
    const body = await readCapped(
      res,
      MAX_TOKEN_BYTES,
      () =>
        new RegistryError(
          `registry ${this.registry}: the token answer is larger than ${MAX_TOKEN_BYTES} bytes`,
          where,
          'slow',
        ),
    ).catch((err: unknown) => {
      throw err instanceof RegistryError ? err : networkError(err, where);
    });
    let parsed: { token?: unknown; access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(body.toString('utf8')) as typeof parsed;
    } catch {
      throw new RegistryError(`registry ${this.registry}: the token answer is not JSON`, where, 'slow');
    }
    const token = typeof parsed.token === 'string' && parsed.token ? parsed.token : parsed.access_token;
    if (typeof token !== 'string' || token === '' || /[\s\0]/.test(token))
      throw new RegistryError(`registry ${this.registry}: the token answer holds no usable token`, where, 'slow');
    const seconds =
      typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : DEFAULT_TOKEN_SECONDS;
    // renew a little early so a token never expires between check and use
    this.tokens.set(repository, { token, expiresAt: started + Math.max(1, seconds - 5) * 1000 });
    return token;
  }

  private origin(): string {
    return `${this.protocol ?? 'https:'}//${apiHost(this.registry)}`;
  }

  private async rawGet(
    path: string,
    headers: Record<string, string>,
    where: RegistryErrorContext,
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    return (await this.rawGetFull(path, headers, where, signal)).res;
  }

  /** GET on this registry; for an insecure endpoint the first call finds out HTTPS or HTTP. */
  private async rawGetFull(
    path: string,
    headers: Record<string, string>,
    where: RegistryErrorContext,
    signal: AbortSignal,
  ): Promise<{ res: IncomingMessage; streaming: () => void; url: URL }> {
    const get = async (protocol: 'https:' | 'http:') => {
      const url = new URL(`${protocol}//${apiHost(this.registry)}${path}`);
      const response = await registryGet(
        { url, headers, insecureTls: this.insecure, signal, where },
        this.settings.trust,
        this.settings.timeouts,
      );
      return { ...response, url };
    };
    if (this.protocol !== undefined) return get(this.protocol);
    try {
      const response = await get('https:');
      this.protocol = 'https:';
      return response;
    } catch (err) {
      if (!this.insecure || signal.aborted) throw err;
      const response = await get('http:').catch(() => {
        throw err; // report the HTTPS failure, the one a user would expect
      });
      this.protocol = 'http:';
      return response;
    }
  }
}

function basic(creds: RegistryCredentials): string {
  return Buffer.from(`${creds.username}:${creds.password}`, 'utf8').toString('base64');
}

function mediaTypeOf(bytes: Buffer, res: IncomingMessage): string {
  try {
    const doc = JSON.parse(bytes.toString('utf8')) as { mediaType?: unknown };
    if (typeof doc.mediaType === 'string' && doc.mediaType) return doc.mediaType;
  } catch {
    // not JSON: the manifest parser reports it
  }
  return (res.headers['content-type'] ?? '').split(';')[0]!.trim();
}

/** The first error code of a registry's JSON error body (bounded read), e.g. MANIFEST_UNKNOWN. */
async function errorCode(res: IncomingMessage): Promise<string | undefined> {
  try {
    const body = await readCapped(res, MAX_ERROR_BYTES, () => new Error('too large'));
    const doc = JSON.parse(body.toString('utf8')) as { errors?: Array<{ code?: unknown }> };
    const code = doc.errors?.[0]?.code;
    return typeof code === 'string' && /^[A-Z_]{1,64}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}
