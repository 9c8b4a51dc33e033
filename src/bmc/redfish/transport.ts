// Calls to one BMC: authenticated by session-auth.ts (a Redfish session where the BMC offers one,
// Basic otherwise), JSON in and out, each attempt made off the serving thread by the Redfish call
// worker (call-pool.ts: connection, TLS, request, body bounds and JSON parse; keep-alive per BMC)
// under the clocks of http-call.ts, bounded retries (retry-policy.ts),
// typed errors naming the BMC, the step and the status, and a log event per attempt. The password
// and the session token leave the auth object only as the Authorization / X-Auth-Token header.
//
// A 401 is answered once per call by the auth object: a new session when the token was refused
// (the BMC timed it out), a session when Basic was refused; then the call is sent again.
//
// Does: refuse to follow a link to another origin (the credentials only ever go to the BMC's own
// address), bound a body before it is parsed (bounded-json.ts: nesting, array items, string
// lengths; `too-large` naming the bound), parse it as JSON (`malformed` otherwise) with NUL and
// lone surrogates replaced (PostgreSQL refuses them), read Redfish error documents into the
// error (error-body.ts), and scrub the password, the user:password pair and its base64, and the
// session token from anything the BMC sends back before it reaches an error or a log — cut to its
// display length first, so the scrubbing of whatever the BMC sent is bounded work.
// Does NOT: know about Systems or VirtualMedia (discovery.ts, client.ts do). Next: discovery.ts.
import { setTimeout as delay } from 'node:timers/promises';
import { redactText, redactUrl } from '../../redact.js';
import { storableText } from './bounded-json.js';
import type { RedfishCallEvent } from './call-event.js';
import { type PooledOutcome, type RawCaller, offThreadCaller } from './call-pool.js';
import { readErrorBody, type RedfishErrorInfo } from './error-body.js';
import { RedfishError } from './errors.js';
import type { CallTimeouts } from './http-call.js';
import {
  CONNECT_TIMEOUT_MS,
  MAX_BMC_ID_CHARS,
  MAX_BMC_MESSAGE_CHARS,
  MAX_RESPONSE_BYTES,
  REQUEST_TIMEOUT_MS,
  RETRY_DELAYS_MS,
  TLS_HANDSHAKE_TIMEOUT_MS,
} from './limits.js';
import { nextDelayMs } from './retry-policy.js';
import { type AuthPolicy, SessionAuth } from './session-auth.js';
import type { TlsSettings } from './tls-trust.js';

/**
 * Room kept past a display length before scrubbing, so a secret or token that starts inside the
 * kept text is removed whole (the BMC's own secrets are added to it): then the cut.
 */
const SCRUB_ROOM_CHARS = 1_024;

export interface TransportOptions {
  /** The BMC's name, as errors and logs show it. */
  bmc: string;
  /** `https://host[:port]` (address.ts). */
  origin: string;
  username: string;
  password: string;
  tls: TlsSettings;
  timeouts?: Partial<CallTimeouts>;
  /** Delays before each retry; its length is the number of retries. Default RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
  maxResponseBytes?: number;
  /** Waits between attempts (tests make it instant; default: a timer). */
  sleep?: (ms: number) => Promise<void>;
  /** Called once per attempt, after it ended. Holds no secrets; the path is redacted. */
  log?: (event: RedfishCallEvent) => void;
  /** The BMC's shared authentication (session-registry.ts); default: one of this transport's own. */
  auth?: SessionAuth;
  /** For an own auth object: the profile's policy when known up front. */
  authPolicy?: AuthPolicy;
  /** How one attempt is made. Default: in the process's Redfish call worker (call-pool.ts), keep-alive per BMC. */
  caller?: RawCaller;
}

export type { RedfishCallEvent };

export interface RedfishResponse {
  status: number;
  /** The parsed body; undefined when there was none (204). */
  json: unknown;
  /** The ETag header, or `@odata.etag` of the body. */
  etag: string | undefined;
  /** Methods of the Allow header, upper case. */
  allow: string[];
  location: string | undefined;
}

export interface CallStats {
  /** Attempts sent to the BMC, retries included. */
  calls: number;
  /** Attempts that were retries. */
  retries: number;
}

export class RedfishTransport {
  readonly bmc: string;
  readonly origin: string;
  readonly stats: CallStats = { calls: 0, retries: 0 };
  readonly auth: SessionAuth;
  readonly #scrubRoom: number;
  private readonly timeouts: CallTimeouts;
  private readonly retryDelaysMs: readonly number[];
  private readonly maxBytes: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly caller: RawCaller;

  constructor(private readonly options: TransportOptions) {
    this.bmc = options.bmc;
    this.origin = new URL(options.origin).origin;
    this.timeouts = {
      connectMs: options.timeouts?.connectMs ?? CONNECT_TIMEOUT_MS,
      tlsMs: options.timeouts?.tlsMs ?? TLS_HANDSHAKE_TIMEOUT_MS,
      requestMs: options.timeouts?.requestMs ?? REQUEST_TIMEOUT_MS,
    };
    this.retryDelaysMs = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.sleep = options.sleep ?? ((ms) => delay(ms).then(() => undefined));
    this.caller = options.caller ?? offThreadCaller;
    this.auth = options.auth ?? this.ownAuth(options);
    // Room for the longest secret (a session token is far shorter than this).
    this.#scrubRoom = SCRUB_ROOM_CHARS + Math.max(256, ...this.auth.secrets().map((s) => s.length));
  }

  /** Authentication of this transport alone, held until its stop() (RedfishClient.close). */
  private ownAuth(options: TransportOptions): SessionAuth {
    const auth = new SessionAuth({
      bmc: options.bmc,
      origin: this.origin,
      username: options.username,
      password: options.password,
      tls: options.tls,
      timeouts: this.timeouts,
      maxBytes: this.maxBytes,
      sleep: this.sleep,
      caller: this.caller,
      ...(options.authPolicy ? { policy: options.authPolicy } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    auth.acquire();
    return auth;
  }

  /**
   * The path of `ref` (an `@odata.id`, an action target, a Location) on this BMC. A reference to
   * another origin is refused as `malformed`: the credentials never go anywhere else.
   */
  pathOf(step: string, ref: string): string {
    let url: URL;
    try {
      url = new URL(ref, this.origin);
    } catch {
      throw this.error(
        { step, failure: 'malformed' },
        `the BMC gave an unusable link ${JSON.stringify(this.scrubCut(ref, 200))}`,
      );
    }
    if (url.origin !== this.origin || (!ref.startsWith('/') && !/^https?:\/\//i.test(ref))) {
      throw this.error(
        { step, failure: 'malformed' },
        `the BMC links to ${JSON.stringify(redactUrl(this.scrubCut(url.origin, 200)))}, outside its own address; not followed`,
      );
    }
    return url.pathname + url.search;
  }

  /** GET a Redfish resource: the body must be a JSON object. */
  async getResource(step: string, path: string): Promise<{ doc: Record<string, unknown>; response: RedfishResponse }> {
    const response = await this.request(step, 'GET', path);
    const doc = response.json;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw this.error(
        { step, failure: 'malformed', method: 'GET', path, status: response.status },
        'the body is not a JSON object',
      );
    }
    return { doc: doc as Record<string, unknown>, response };
  }

  /**
   * One Redfish call with retries. Resolves for 2xx; throws RedfishError for anything else, with
   * the BMC's message and MessageIds (`details.messageIds`) when it sent a Redfish error.
   */
  async request(
    step: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RedfishResponse> {
    const target = this.pathOf(step, path);
    const url = new URL(target, this.origin);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    this.auth.begin();
    try {
      return await this.attempts(step, method, target, url, payload, headers);
    } finally {
      this.auth.end();
    }
  }

  private async attempts(
    step: string,
    method: string,
    target: string,
    url: URL,
    payload: Buffer | undefined,
    headers: Record<string, string>,
  ): Promise<RedfishResponse> {
    let reauthenticated = false;
    for (let attempt = 1; ; attempt++) {
      const credentials = await this.auth.headers(step);
      const started = Date.now();
      this.stats.calls++;
      if (attempt > 1) this.stats.retries++;
      const outcome = await this.caller({
        method,
        url,
        headers: {
          Accept: 'application/json',
          'OData-Version': '4.0',
          ...(payload ? { 'Content-Type': 'application/json' } : {}),
          ...headers,
          ...credentials,
        },
        ...(payload ? { body: payload } : {}),
        tls: this.options.tls,
        timeouts: this.timeouts,
        maxBytes: this.maxBytes,
      });
      const result = outcome.ok ? { status: outcome.status } : { failure: outcome.failure };
      const success = outcome.ok && outcome.status >= 200 && outcome.status <= 299;
      const retryInMs = success ? undefined : nextDelayMs(attempt, result, this.retryDelaysMs);
      this.options.log?.({
        bmc: this.bmc,
        step,
        method,
        path: redactUrl(target),
        attempt,
        ...result,
        ms: Date.now() - started,
        ...(retryInMs !== undefined ? { retryInMs } : {}),
      });
      if (retryInMs !== undefined) {
        await this.sleep(retryInMs);
        continue;
      }
      if (outcome.ok && outcome.status === 401 && !reauthenticated && (await this.auth.refused(step, credentials))) {
        reauthenticated = true;
        continue;
      }
      return this.settle(step, method, target, attempt, outcome);
    }
  }

  private settle(
    step: string,
    method: string,
    path: string,
    attempts: number,
    outcome: PooledOutcome,
  ): RedfishResponse {
    const call = { step, method, path, attempts };
    if (!outcome.ok) throw this.error({ ...call, failure: outcome.failure }, this.scrubCut(outcome.detail, 500));
    const success = outcome.status >= 200 && outcome.status <= 299;
    const { json, parsed, breach } = outcome.answer;
    if (breach && success) {
      throw this.error(
        { ...call, status: outcome.status, failure: 'too-large' },
        `${breach.found}, beyond ${breach.bound} (${breach.limit.toLocaleString('en-US')})`,
      );
    }
    if (!success) {
      const info: RedfishErrorInfo = readErrorBody(json);
      throw this.error(
        {
          ...call,
          status: outcome.status,
          failure: outcome.status === 401 || outcome.status === 403 ? 'unauthorized' : 'http',
          ...(info.message ? { bmcMessage: this.scrubCut(info.message, MAX_BMC_MESSAGE_CHARS) } : {}),
          messageIds: info.messageIds.map((id) => this.scrubCut(id, MAX_BMC_ID_CHARS)),
          relatedProperties: info.relatedProperties.map((p) => this.scrubCut(p, MAX_BMC_ID_CHARS)),
        },
        outcome.status === 401 ? 'check the user name and password' : undefined,
      );
    }
    if (!parsed) {
      throw this.error({ ...call, status: outcome.status, failure: 'malformed' }, 'the body is not valid JSON');
    }
    const header = (name: 'etag' | 'allow' | 'location'): string | undefined => outcome.headers[name];
    const bodyEtag =
      typeof json === 'object' && json !== null && typeof (json as Record<string, unknown>)['@odata.etag'] === 'string'
        ? ((json as Record<string, unknown>)['@odata.etag'] as string)
        : undefined;
    return {
      status: outcome.status,
      json,
      etag: header('etag') ?? bodyEtag,
      allow: (header('allow') ?? '')
        .split(',')
        .map((m) => m.trim().toUpperCase())
        .filter((m) => m !== ''),
      location: header('location'),
    };
  }

  /** Text from the BMC with every spelling of our credentials removed, then the generic redaction. */
  scrub(text: string): string {
    let out = text;
    for (const secret of this.auth.secrets()) out = out.split(secret).join('[redacted]');
    return redactText(out);
  }

  /**
   * At most `max` characters of text from the BMC, scrubbed and storable. Cut before the
   * scrubbing (with room for a secret or token that starts inside what is kept), so its cost is
   * bounded whatever the BMC sent; cut again after it.
   */
  scrubCut(text: string, max: number): string {
    const room = max + this.#scrubRoom;
    return storableText(this.scrub(text.length > room ? text.slice(0, room) : text).slice(0, max));
  }

  private error(d: Omit<ConstructorParameters<typeof RedfishError>[0], 'bmc'>, explanation?: string): RedfishError {
    return new RedfishError({ bmc: this.bmc, ...d }, explanation);
  }
}
