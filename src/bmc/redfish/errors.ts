// The one error type of the Redfish library: what failed, on which BMC, in which step, with the
// HTTP status and the BMC's own message when there was one.
//
// Does: classify a failure (`RedfishFailure`), build a message that names the BMC (the name the
// caller gave, never an address with credentials), the step and the status, and map the failure
// onto bootsmith's error kinds (src/errors.ts) so an API can answer with the right status.
// Does NOT: carry the password, the Authorization header or a request body, ever. The BMC's
// message is scrubbed of the password by the transport before it gets here (transport.ts).
// Next: transport.ts throws these; client.ts and boot-discovery.ts add the step.
import { BootsmithError, type ErrorKind } from '../../errors.js';

export type RedfishFailure =
  /** The address, a URL or an option we were given is malformed (our input, not the BMC). */
  | 'bad-input'
  /** TCP connect refused, host or network unreachable, name not resolved. */
  | 'unreachable'
  | 'connect-timeout'
  /** TCP connected but the TLS handshake did not finish in time. */
  | 'tls-timeout'
  /** The TLS handshake failed: certificate not trusted, wrong host name, protocol error. */
  | 'tls'
  /** The response did not arrive in full in time. */
  | 'request-timeout'
  /** The BMC closed or reset the connection before a full response. */
  | 'connection-reset'
  /** 401 or 403: wrong user name or password, or not allowed. */
  | 'unauthorized'
  /** Any other non-success status. */
  | 'http'
  /** The body is not JSON, or not the Redfish document we asked for. */
  | 'malformed'
  /** The body is larger than MAX_RESPONSE_BYTES. */
  | 'too-large'
  /** This service has too many Redfish calls waiting already (call-pool.ts): the call was not sent. */
  | 'busy'
  /** The BMC lacks what the operation needs: no CD-capable slot, no Reset action, a boot target it does not allow. */
  | 'unsupported';

export interface RedfishErrorDetails {
  /** The BMC's name as the caller knows it. */
  bmc: string;
  /** The operation or boot-discovery step, e.g. `discover`, `insert`, `power`. */
  step: string;
  failure: RedfishFailure;
  method?: string;
  /** Path on the BMC (no host, no credentials). */
  path?: string;
  status?: number;
  /** Attempts made (1 when not retried). */
  attempts?: number;
  /** The Redfish error's most relevant message, scrubbed and truncated. */
  bmcMessage?: string;
  /** Redfish MessageIds from `@Message.ExtendedInfo` (e.g. `Base.1.8.ActionParameterMissing`). */
  messageIds?: readonly string[];
  /** RelatedProperties of the extended info (e.g. `#/TransferProtocolType`). */
  relatedProperties?: readonly string[];
}

const KIND_BY_FAILURE: Record<RedfishFailure, ErrorKind> = {
  'bad-input': 'bad-request',
  unsupported: 'unprocessable',
  unreachable: 'upstream',
  'connect-timeout': 'upstream',
  'tls-timeout': 'upstream',
  tls: 'upstream',
  'request-timeout': 'upstream',
  'connection-reset': 'upstream',
  unauthorized: 'upstream',
  http: 'upstream',
  malformed: 'upstream',
  'too-large': 'upstream',
  busy: 'unavailable',
};

/** What each failure means, in the words a person reads first. */
const SUMMARY: Record<RedfishFailure, string> = {
  'bad-input': 'invalid input',
  unreachable: 'cannot connect',
  'connect-timeout': 'connect timed out',
  'tls-timeout': 'TLS handshake timed out',
  tls: 'TLS failed',
  'request-timeout': 'no complete response in time',
  'connection-reset': 'connection reset by the BMC',
  unauthorized: 'the BMC refused the credentials',
  http: 'the BMC answered with an error',
  malformed: 'malformed response',
  'too-large': 'response too large',
  unsupported: 'not supported by this BMC',
  busy: 'too many Redfish calls waiting in this service',
};

export class RedfishError extends BootsmithError {
  readonly bmc: string;
  readonly step: string;
  readonly failure: RedfishFailure;
  readonly status: number | undefined;
  readonly details: Readonly<RedfishErrorDetails>;
  /** Our own words on what to do about it, when we have them. */
  readonly explanation: string | undefined;

  constructor(details: RedfishErrorDetails, explanation?: string, options?: { cause?: unknown }) {
    super(KIND_BY_FAILURE[details.failure], formatMessage(details, explanation), contextOf(details), options);
    this.bmc = details.bmc;
    this.step = details.step;
    this.failure = details.failure;
    this.status = details.status;
    this.details = details;
    this.explanation = explanation;
  }

  /** The same failure attributed to another step (the transport knows the call, the client the step). */
  inStep(step: string): RedfishError {
    if (step === this.step) return this;
    return new RedfishError({ ...this.details, step }, this.explanation, { cause: this.cause });
  }
}

function formatMessage(d: RedfishErrorDetails, explanation: string | undefined): string {
  const call = d.method && d.path ? ` (${d.method} ${d.path}` : '';
  const status = d.status !== undefined ? `${call ? ' → ' : ' ('}HTTP ${d.status}` : '';
  const attempts = d.attempts !== undefined && d.attempts > 1 ? `, ${d.attempts} attempts` : '';
  const bmcSays = d.bmcMessage ? `: ${d.bmcMessage}` : '';
  const tail = call || status ? `${call}${status}${attempts}${bmcSays})` : bmcSays;
  const head = `BMC ${JSON.stringify(d.bmc)}: ${d.step}: ${SUMMARY[d.failure]}${tail}`;
  return explanation ? `${head}: ${explanation}` : head;
}

function contextOf(d: RedfishErrorDetails): Record<string, unknown> {
  return {
    bmc: d.bmc,
    step: d.step,
    failure: d.failure,
    ...(d.method !== undefined ? { method: d.method } : {}),
    ...(d.path !== undefined ? { path: d.path } : {}),
    ...(d.status !== undefined ? { upstreamStatus: d.status } : {}),
    ...(d.attempts !== undefined ? { attempts: d.attempts } : {}),
    ...(d.messageIds && d.messageIds.length > 0 ? { messageIds: d.messageIds } : {}),
  };
}
