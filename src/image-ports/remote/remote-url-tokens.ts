// UrlTokenResolver for an image side that fronts a core over ASSISTED_SERVICE_URL: asks the
// core's `GET /api/assisted-install/v2/image-url-tokens/self` (a bootsmith extension; the token
// in the Image-Token header) which InfraEnv a short `/bytoken/` token opens.
//
// Does: cache answers (and refusals) briefly in a bounded LRU keyed by the token's sha256, so a
// BMC's range storm costs one upstream call per token and RESOLVE_CACHE_TTL_MS; check the expiry
// on every request; bound every call with a timeout. A real assisted-service has no such endpoint (404): its tokens are
// JWTs, so an opaque token is then a 401.
// Does NOT: authorize the download (the IgnitionSource forwards the token upstream for that),
// or log the token.
import { LRUCache } from 'lru-cache';
import { describeError, UnauthorizedError, UpstreamError } from '../../errors.js';
import { redactText, redactUrl } from '../../redact.js';
import { isUuid } from '../../uuid.js';
import { API_PREFIX } from '../../url-grammar.js';
import { hashUrlToken, type UrlTokenResolver } from '../url-token-resolver.js';

/** How long an answer is trusted: also how long a revoked token can still open an ISO here. */
export const REMOTE_RESOLVE_CACHE_TTL_MS = 5_000;
/** Tokens remembered (hits and misses): one per BMC mounting at once is plenty. */
const REMOTE_RESOLVE_CACHE_MAX_ENTRIES = 10_000;
/** Same default as the remote Ignition source's calls. */
const DEFAULT_TIMEOUT_MS = 15_000;
/** Only tokens of this shape are sent upstream (the core mints 32 base64url characters). */
const TOKEN_RE = /^[A-Za-z0-9_-]{1,64}$/;

type Answer = { infraEnvId: string; expiresAt: number } | { refused: string };

export class RemoteUrlTokenResolver implements UrlTokenResolver {
  private readonly baseUrl: string;
  private readonly cache: LRUCache<string, Answer>;

  constructor(
    private readonly options: { baseUrl: string; timeoutMs?: number; fetch?: typeof fetch; now?: () => number },
  ) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.cache = new LRUCache<string, Answer>({
      max: REMOTE_RESOLVE_CACHE_MAX_ENTRIES,
      ttl: REMOTE_RESOLVE_CACHE_TTL_MS,
    });
  }

  async infraEnvOf(token: string): Promise<string> {
    if (!TOKEN_RE.test(token)) throw new UnauthorizedError('invalid, revoked or expired image URL token');
    const key = hashUrlToken(token);
    let answer = this.cache.get(key);
    if (!answer) {
      answer = await this.ask(token);
      this.cache.set(key, answer);
    }
    if ('refused' in answer) throw new UnauthorizedError(answer.refused);
    if (answer.expiresAt <= (this.options.now ?? Date.now)())
      throw new UnauthorizedError('invalid, revoked or expired image URL token');
    return answer.infraEnvId;
  }

  private async ask(token: string): Promise<Answer> {
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const where = `${redactUrl(this.baseUrl)}${API_PREFIX}/image-url-tokens/self`;
    let response: Response;
    let body: string;
    try {
      response = await (this.options.fetch ?? fetch)(`${this.baseUrl}${API_PREFIX}/image-url-tokens/self`, {
        headers: { 'Image-Token': token, Accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
      body = await response.text();
    } catch (err) {
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describeError(err);
      throw new UpstreamError(
        `assisted-service is unreachable: resolving an image URL token at ${where}: ${redactText(reason)}`,
        undefined,
        {},
        { cause: err },
      );
    }
    if (response.status === 401 || response.status === 403)
      return { refused: 'invalid, revoked or expired image URL token' };
    if (response.status === 404 || response.status === 405)
      return { refused: 'short image URL tokens are issued only by bootsmith; this assisted-service issues JWTs' };
    if (response.status !== 200)
      throw new UpstreamError(
        `assisted-service answered ${response.status} resolving an image URL token at ${where}`,
        response.status,
      );
    let parsed: { infra_env_id?: unknown; expires_at?: unknown };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      throw new UpstreamError(
        `assisted-service answered an image URL token resolution that is not JSON (${where})`,
        undefined,
      );
    }
    const expiresAt = typeof parsed.expires_at === 'string' ? Date.parse(parsed.expires_at) : NaN;
    if (typeof parsed.infra_env_id !== 'string' || !isUuid(parsed.infra_env_id) || Number.isNaN(expiresAt))
      throw new UpstreamError(`assisted-service answered a malformed image URL token resolution (${where})`, undefined);
    return { infraEnvId: parsed.infra_env_id.toLowerCase(), expiresAt };
  }
}
