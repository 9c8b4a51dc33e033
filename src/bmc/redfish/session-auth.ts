// How the calls to one BMC authenticate: a Redfish session where the service offers one (DSP0266
// `Links.Sessions` / `SessionService` in the service root), HTTP Basic where it does not, and the
// other way round when one of them is refused. One object per BMC, shared by every client of that
// BMC on this service (session-registry.ts), so one session serves all the calls of a job and of
// the jobs running beside it.
//
//   first call   GET the service root without credentials (DSP0266 keeps it open) → the sessions
//                link → POST {UserName, Password} there, no Authorization header → X-Auth-Token +
//                Location (the session's own URI, which must be on the BMC's own origin)
//   401          on a call carrying the token: the session is gone (BMC timeout, reset): created
//                again once and the call repeated; on a Basic call: a session is tried instead
//   "full"       a session POST answered 503/429, or naming RAC0218 / the maximum number of
//                sessions: waited for and tried again within SESSION_LIMIT_WAIT_MS, then the
//                BMC's call fails alone
//   end          DELETE of the session URI with the token when the last client lets go
//                (release), after SESSION_IDLE_MS without a call, and at service stop (stop)
//
// Every call here (root GET, session POST, DELETE) is made like the transport's: off the serving
// thread by the Redfish call worker (call-pool.ts), under the same clocks (BMC_CONNECT_TIMEOUT,
// BMC_TLS_TIMEOUT, BMC_READ_TIMEOUT; the DELETE under SESSION_DELETE_TIMEOUTS), the same size cap,
// and the answer parsed there with the same bounds.
//
// The token is a secret: it lives in one private field, leaves it only as the X-Auth-Token header
// to the BMC's own origin (inside the call message to the worker, as every credential does), and
// is scrubbed from anything the BMC sends back (transport.ts asks secrets()). Never logged, never
// stored: a restarted service makes a new session. The password goes the same way, in the POST body.
// Does NOT: retry data calls, parse resources, or know the vendor (the profile's policy is given:
// `session-only` for BMCs refusing Basic, profiles.ts). Next: session-registry.ts, transport.ts.
import { setTimeout as delay } from 'node:timers/promises';
import { redactText } from '../../redact.js';
import { type PooledOutcome, type RawCaller, offThreadCaller } from './call-pool.js';
import { readErrorBody } from './error-body.js';
import { RedfishError, type RedfishErrorDetails } from './errors.js';
import type { CallTimeouts } from './http-call.js';
import {
  MAX_BMC_MESSAGE_CHARS,
  SESSION_DELETE_TIMEOUTS,
  SESSION_IDLE_MS,
  SESSION_LIMIT_RETRY_MS,
  SESSION_LIMIT_WAIT_MS,
} from './limits.js';
import type { TlsSettings } from './tls-trust.js';
import type { RedfishCallEvent } from './call-event.js';

/** What a profile allows: sessions when offered (else Basic), sessions only, or Basic only. */
export type AuthPolicy = 'prefer-session' | 'session-only' | 'basic-only';

export interface SessionAuthOptions {
  bmc: string;
  /** `https://host[:port]` */
  origin: string;
  username: string;
  password: string;
  tls: TlsSettings;
  timeouts: CallTimeouts;
  maxBytes: number;
  policy?: AuthPolicy;
  idleMs?: number;
  limitWaitMs?: number;
  limitRetryMs?: number;
  sleep?: (ms: number) => Promise<void>;
  log?: (event: RedfishCallEvent) => void;
  /** How one call is made; default: the Redfish call worker (call-pool.ts), as the transport's. */
  caller?: RawCaller;
}

/** The path every Redfish service since 1.0 serves its sessions at, when the root does not say. */
const DEFAULT_SESSIONS_PATH = '/redfish/v1/SessionService/Sessions';
const SESSION_LIMIT_WORDS = /RAC0218|maximum number of (user )?sessions|session limit|too many sessions/i;

export class SessionAuth {
  readonly bmc: string;
  readonly origin: string;
  /** Sessions created and deleted, session POSTs that met a full BMC (tests and the bench read them). */
  readonly counts = { created: 0, deleted: 0, limitWaits: 0, calls: 0 };
  #token: string | undefined;
  #sessionPath: string | undefined;
  readonly #basic: string;
  readonly #secrets: string[];
  private mode: 'session' | 'basic' | undefined;
  /** The root was read without credentials and offered no sessions: Basic was a guess. */
  private sessionsPath: string | undefined;
  private triedSessionsAfterBasic = false;
  private establishing: Promise<void> | undefined;
  private closing: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private holders = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private policy: AuthPolicy;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly caller: RawCaller;

  constructor(private readonly options: SessionAuthOptions) {
    this.bmc = options.bmc;
    this.origin = new URL(options.origin).origin;
    const pair = `${options.username}:${options.password}`;
    const basic = Buffer.from(pair, 'utf8').toString('base64');
    this.#basic = `Basic ${basic}`;
    this.#secrets = [pair, basic, options.password].filter((s) => s.length > 0);
    this.policy = options.policy ?? 'prefer-session';
    this.sleep = options.sleep ?? ((ms) => delay(ms).then(() => undefined));
    this.caller = options.caller ?? offThreadCaller;
  }

  /** How calls authenticate now: undefined until the first call decided it. */
  get using(): 'session' | 'basic' | undefined {
    return this.mode;
  }

  /** Clients holding this BMC now. */
  get holderCount(): number {
    return this.holders;
  }

  /** A session is open on the BMC (its DELETE has not been sent). */
  get sessionOpen(): boolean {
    return this.#token !== undefined;
  }

  /** The password in each spelling, and the token while there is one: what scrubbing removes. */
  secrets(): string[] {
    return this.#token ? [...this.#secrets, this.#token] : this.#secrets;
  }

  /** The detected profile's policy (a session-only BMC never gets Basic, even as a fallback). */
  require(policy: AuthPolicy): void {
    this.policy = policy;
    if (policy === 'session-only' && this.mode === 'basic') this.mode = undefined;
    if (policy === 'basic-only' && this.mode === 'session') void this.close('the profile uses Basic');
  }

  // ---------------------------------------------------------------- holders and idleness

  /** A client uses this BMC (registry.ts counts them); release() when it is done. */
  acquire(): void {
    this.holders++;
  }

  /** A client is done: the session ends when no other client holds it. */
  async release(): Promise<void> {
    this.holders = Math.max(0, this.holders - 1);
    if (this.holders === 0 && this.inFlight === 0) await this.close('no job uses the BMC any more');
  }

  /** A call starts (no idle close while one is in flight). */
  begin(): void {
    this.inFlight++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** A call ended: the idle clock starts when none is left. */
  end(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight > 0 || !this.#token) return;
    if (this.holders === 0) {
      void this.close('no job uses the BMC any more');
      return;
    }
    this.idleTimer = setTimeout(() => void this.close('idle'), this.options.idleMs ?? SESSION_IDLE_MS);
    this.idleTimer.unref();
  }

  // ---------------------------------------------------------------- what a call carries

  /** The header that authenticates the next call, creating the session first when needed. */
  async headers(step: string): Promise<Record<string, string>> {
    if (this.stopped) {
      throw new RedfishError({ bmc: this.bmc, step, failure: 'unreachable' }, 'the service is stopping');
    }
    await this.closing;
    if (this.mode === undefined || (this.mode === 'session' && !this.#token)) {
      this.establishing ??= this.establish(step).finally(() => {
        this.establishing = undefined;
      });
      await this.establishing;
    }
    if (this.mode === 'session' && this.#token) return { 'X-Auth-Token': this.#token };
    return { Authorization: this.#basic };
  }

  /**
   * A call carrying `used` was answered 401. True when other credentials are worth one more try:
   * a new session (the old one expired), or a session where Basic was refused.
   */
  async refused(step: string, used: Record<string, string>): Promise<boolean> {
    if (this.stopped) return false;
    const token = used['X-Auth-Token'];
    if (token !== undefined) {
      if (token === this.#token) {
        // The BMC forgot the session (its timeout, a reset): nothing to DELETE, make a new one.
        this.#token = undefined;
        this.#sessionPath = undefined;
      }
      return true;
    }
    if (this.policy === 'basic-only' || this.triedSessionsAfterBasic) return false;
    this.triedSessionsAfterBasic = true;
    try {
      await this.createSession(step, this.sessionsPath || DEFAULT_SESSIONS_PATH);
    } catch {
      return false; // the 401 of the call stands
    }
    this.mode = 'session';
    return true;
  }

  // ---------------------------------------------------------------- the session

  private async establish(step: string): Promise<void> {
    if (this.policy === 'basic-only') {
      this.mode = 'basic';
      return;
    }
    if (this.sessionsPath === undefined) this.sessionsPath = await this.discoverSessions(step);
    if (this.sessionsPath === '' && this.policy !== 'session-only') {
      this.mode = 'basic';
      return;
    }
    const path = this.sessionsPath || DEFAULT_SESSIONS_PATH;
    try {
      await this.createSession(step, path);
      this.mode = 'session';
    } catch (err) {
      // A service that lists sessions but has no working POST (iDRAC 8's 405): Basic, when allowed.
      const absent = err instanceof RedfishError && [404, 405, 501].includes(err.status ?? 0);
      if (absent && this.policy === 'prefer-session') {
        this.mode = 'basic';
        this.triedSessionsAfterBasic = true;
        return;
      }
      throw err;
    }
  }

  /** The sessions collection the root names; '' when it names none; undefined root = unknown. */
  private async discoverSessions(step: string): Promise<string> {
    const outcome = await this.call(step, 'GET', '/redfish/v1', {});
    if (!outcome.ok) throw this.transportError(step, 'GET', '/redfish/v1', outcome);
    if (outcome.status === 401 || outcome.status === 403) return ''; // root behind auth: Basic first
    if (outcome.status < 200 || outcome.status > 299) return '';
    // Parsed in the worker with the bounds of any answer (nesting, arrays, strings): a hostile or
    // unparsable root is left to the transport's own read of it, which fails it as `too-large` or
    // `malformed`.
    const doc = outcome.answer.json;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return '';
    const root = doc as Record<string, unknown>;
    const ref = (v: unknown): string | undefined => {
      const id = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)['@odata.id'] : undefined;
      return typeof id === 'string' ? id : undefined;
    };
    const links = typeof root.Links === 'object' && root.Links !== null ? (root.Links as Record<string, unknown>) : {};
    const direct = ref(links.Sessions);
    const service = ref(root.SessionService);
    const found = direct ?? (service ? `${service.replace(/\/+$/, '')}/Sessions` : undefined);
    if (!found) return '';
    return this.ownPath(step, found, 'the sessions link');
  }

  /** POST the credentials (no Authorization header); waits out a full BMC within the bound. */
  private async createSession(step: string, path: string): Promise<void> {
    const body = Buffer.from(
      JSON.stringify({ UserName: this.options.username, Password: this.options.password }),
      'utf8',
    );
    const started = Date.now();
    const bound = this.options.limitWaitMs ?? SESSION_LIMIT_WAIT_MS;
    let waited = 0; // what the sleeps were asked for (a test's instant sleep still counts)
    for (;;) {
      const outcome = await this.call(step, 'POST', path, { 'Content-Type': 'application/json' }, body);
      if (!outcome.ok) throw this.transportError(step, 'POST', path, outcome);
      if (outcome.status >= 200 && outcome.status <= 299) {
        this.adopt(step, path, outcome);
        return;
      }
      const info = readErrorBody(outcome.answer.json);
      const words = [info.message ?? '', ...info.messageIds].join(' ');
      const full = outcome.status === 503 || outcome.status === 429 || SESSION_LIMIT_WORDS.test(words);
      const details: RedfishErrorDetails = {
        bmc: this.bmc,
        step,
        failure: outcome.status === 401 || outcome.status === 403 ? 'unauthorized' : 'http',
        method: 'POST',
        path,
        status: outcome.status,
        ...(info.message ? { bmcMessage: this.scrubCut(info.message, MAX_BMC_MESSAGE_CHARS) } : {}),
        messageIds: info.messageIds.map((id) => this.scrubCut(id, 120)),
      };
      if (!full) {
        throw new RedfishError(
          details,
          outcome.status === 401 || outcome.status === 403
            ? 'check the user name and password (refused when creating a session)'
            : undefined,
        );
      }
      this.counts.limitWaits++;
      const retryAfter = Number(outcome.headers['retry-after']);
      const wait =
        Number.isFinite(retryAfter) && retryAfter > 0
          ? Math.min(retryAfter * 1000, bound)
          : (this.options.limitRetryMs ?? SESSION_LIMIT_RETRY_MS);
      const spent = Math.max(Date.now() - started, waited);
      if (spent + wait > bound) {
        throw new RedfishError(
          details,
          `every session of the BMC is in use; tried for ${Math.round(spent / 1000)} s (SESSION_LIMIT_WAIT_MS ${bound / 1000} s): close the sessions other tools left open`,
        );
      }
      await this.sleep(wait);
      waited += wait;
      if (this.stopped) throw new RedfishError(details, 'the service is stopping');
    }
  }

  /** Takes the token and the session URI of a created session, or refuses them. */
  private adopt(step: string, postPath: string, outcome: Extract<PooledOutcome, { ok: true }>): void {
    const token = outcome.headers['x-auth-token'];
    const doc = outcome.answer.json;
    const bodyId =
      typeof doc === 'object' && doc !== null && typeof (doc as Record<string, unknown>)['@odata.id'] === 'string'
        ? ((doc as Record<string, unknown>)['@odata.id'] as string)
        : undefined;
    const location = outcome.headers.location ?? bodyId;
    if (!token) {
      throw new RedfishError(
        { bmc: this.bmc, step, failure: 'malformed', method: 'POST', path: postPath, status: outcome.status },
        'the BMC answered the session POST without an X-Auth-Token header',
      );
    }
    let sessionPath: string | undefined;
    if (location !== undefined) {
      let url: URL | undefined;
      try {
        url = new URL(location, this.origin);
      } catch {
        url = undefined;
      }
      if (!url || url.origin !== this.origin) {
        // The session may exist: end it where it lives, on the BMC itself; the token goes nowhere else.
        const own = url?.pathname;
        if (own) void this.deleteSession(step, token, own);
        throw new RedfishError(
          { bmc: this.bmc, step, failure: 'malformed', method: 'POST', path: postPath, status: outcome.status },
          `the BMC named a session URI outside its own address (${JSON.stringify(this.scrubCut(url?.origin ?? location, 200))}); the token is not sent there`,
        );
      }
      sessionPath = url.pathname;
    }
    this.#token = token;
    this.#sessionPath = sessionPath;
    this.counts.created++;
  }

  /** Ends the session on the BMC (nothing when there is none); later calls make a new one. */
  close(_why: string): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const token = this.#token;
    const path = this.#sessionPath;
    this.#token = undefined;
    this.#sessionPath = undefined;
    if (this.mode === 'session') this.mode = undefined;
    if (!token) return this.closing;
    this.closing = this.closing.then(() => (path ? this.deleteSession('end-session', token, path) : undefined));
    return this.closing;
  }

  /** The service stops: the session is ended and no call makes a new one. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.close('the service is stopping');
  }

  private async deleteSession(step: string, token: string, path: string): Promise<void> {
    const outcome = await this.call(step, 'DELETE', path, { 'X-Auth-Token': token }, undefined, {
      ...SESSION_DELETE_TIMEOUTS,
    });
    if (outcome.ok && ((outcome.status >= 200 && outcome.status <= 299) || outcome.status === 404)) {
      this.counts.deleted++;
    }
    // Otherwise the BMC's own timeout ends it; the event was logged by call().
  }

  // ---------------------------------------------------------------- one unauthenticated HTTP call

  private async call(
    step: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: Buffer,
    timeouts?: CallTimeouts,
  ): Promise<PooledOutcome> {
    const started = Date.now();
    this.counts.calls++;
    const outcome = await this.caller({
      method,
      url: new URL(path, this.origin),
      headers: { Accept: 'application/json', 'OData-Version': '4.0', ...headers },
      ...(body ? { body } : {}),
      tls: this.options.tls,
      timeouts: timeouts ?? this.options.timeouts,
      maxBytes: this.options.maxBytes,
    });
    this.options.log?.({
      bmc: this.bmc,
      step,
      method,
      path,
      attempt: 1,
      ...(outcome.ok ? { status: outcome.status } : { failure: outcome.failure }),
      ms: Date.now() - started,
    });
    return outcome;
  }

  private ownPath(step: string, ref: string, what: string): string {
    let url: URL | undefined;
    try {
      url = new URL(ref, this.origin);
    } catch {
      url = undefined;
    }
    if (!url || url.origin !== this.origin) {
      throw new RedfishError(
        { bmc: this.bmc, step, failure: 'malformed' },
        `${what} points outside the BMC's own address; not followed`,
      );
    }
    return url.pathname;
  }

  private transportError(
    step: string,
    method: string,
    path: string,
    outcome: Extract<PooledOutcome, { ok: false }>,
  ): RedfishError {
    return new RedfishError(
      { bmc: this.bmc, step, failure: outcome.failure, method, path },
      this.scrubCut(outcome.detail, 500),
    );
  }

  private scrubCut(text: string, max: number): string {
    let out = text.slice(0, max + 1_024);
    for (const secret of this.secrets()) out = out.split(secret).join('[redacted]');
    return redactText(out).slice(0, max);
  }
}
