// The HTTP client the client verbs share: where the service is (`--url`, else BOOTSMITH_URL, else
// http://127.0.0.1:8080), its credential (`--token`, else BOOTSMITH_TOKEN, sent as a Bearer
// token), JSON requests with a timeout each, and API errors turned into one line naming the
// request and the service's reason. The token is never printed. Answers of the extension API
// (BMCs: what BMCs told the service) come back with every string safe to print
// (terminal-text.ts), so no `bootsmith bmc` verb prints a BMC's escape sequence.
// Does NOT: retry, page, or know any endpoint's meaning (the verbs do).
import { type OptionValues, valueOption } from '../options.js';
import { describeError } from '../../errors.js';
import { CliError, type CliIo } from '../verb.js';
import { API_PREFIX, EXTENSION_API_PREFIX } from '../../url-grammar.js';
import { terminalSafe } from './terminal-text.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';
/** One API call: the service answers in milliseconds; a minute means it is stuck. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** What a 401 without a token says: where the token of a service started with the defaults is. */
export const NO_TOKEN_HINT =
  'no token given: pass --token or set BOOTSMITH_TOKEN, e.g. BOOTSMITH_TOKEN=$(cat data/auth/admin-token) ' +
  "in the directory the service was started from (its DATA_DIR's auth/admin-token)";

export const CLIENT_OPTIONS = {
  url: valueOption({ long: 'url', value: 'URL', help: `the service [default: $BOOTSMITH_URL or ${DEFAULT_URL}]` }),
  token: valueOption({ long: 'token', value: 'TOKEN', help: 'API token [default: $BOOTSMITH_TOKEN]' }),
};

/** The service answered with an error status (the message names the request and the reason). */
export class ApiCallError extends CliError {
  constructor(
    subject: string,
    reason: string,
    readonly status: number,
    /** The service's own words (its `reason` or `message`). */
    readonly serviceReason: string,
  ) {
    super(subject, reason);
  }
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  static from(options: OptionValues<typeof CLIENT_OPTIONS>, io: Pick<CliIo, 'env'>): ApiClient {
    const url = options.url ?? io.env.BOOTSMITH_URL ?? DEFAULT_URL;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new CliError('--url', `${JSON.stringify(url)} is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new CliError('--url', 'must be http:// or https://');
    const token = options.token ?? (io.env.BOOTSMITH_TOKEN || undefined);
    return new ApiClient(parsed.origin + parsed.pathname.replace(/\/+$/, ''), token);
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}), ...extra };
  }

  /** A JSON API call under /api/assisted-install/v2; returns the parsed body (undefined for 204). */
  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.callUnder<T>(API_PREFIX, method, path, body);
  }

  /**
   * A JSON call of bootsmith's extension API (/api/bootsmith/v1: BMCs), the same way; every string
   * of the answer, and the reason of an error, safe to print on a terminal.
   */
  callExtension<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.callUnder<T>(EXTENSION_API_PREFIX, method, path, body, terminalSafe);
  }

  private async callUnder<T>(
    prefix: string,
    method: string,
    path: string,
    body?: unknown,
    printable: <V>(value: V) => V = (value) => value,
  ): Promise<T> {
    const url = `${this.baseUrl}${prefix}${path}`;
    const what = `${method} ${prefix}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: this.headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? describeError(err);
      throw new CliError(this.baseUrl, `${what}: ${cause}`, { cause: err });
    }
    const text = await response.text();
    if (!response.ok) {
      let reason = text.slice(0, 500);
      try {
        const parsed = JSON.parse(text) as { reason?: string; message?: string };
        reason = parsed.reason ?? parsed.message ?? reason;
      } catch {
        // not JSON: keep the text
      }
      const hint = response.status === 401 && !this.token ? ` (${NO_TOKEN_HINT})` : '';
      reason = printable(reason);
      throw new ApiCallError(this.baseUrl, `${what}: ${response.status} ${reason}${hint}`, response.status, reason);
    }
    if (text.length === 0) return undefined as T;
    return printable(JSON.parse(text) as T);
  }
}
