// Every clock and cap of a Redfish call, in one place, each with the reason for its value.
//
// Does: name the defaults the transport (transport.ts, http-call.ts) applies to each call to a BMC.
// Does NOT: read settings (phase 2 passes overrides through RedfishClientOptions), or apply them.
// Next: http-call.ts, which enforces them on one attempt; retry-policy.ts decides about the next.

/**
 * TCP connect must finish within this. BMCs sit on a management LAN one or two hops away; a
 * SYN that is not answered in 10 s will not be, and a refused port fails at once anyway.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * After TCP connects, the TLS handshake must finish within this. BMC CPUs are slow (an RSA-2048
 * handshake takes 1–3 s on older iDRAC/iLO); a BMC that accepts TCP and never answers the
 * ClientHello fails after this, without a retry.
 */
export const TLS_HANDSHAKE_TIMEOUT_MS = 15_000;

/**
 * After the request is sent, the whole response (status, headers, body) must arrive within this.
 * Redfish actions are synchronous on many BMCs: iDRAC mounts the image inside InsertMedia and
 * answers after 10–20 s. Connect + TLS + request = 55 s, so one call never outlives the 60 s the
 * issue allows for an unreachable or hung BMC.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Largest response body read from a BMC. The biggest resources we read are collections and
 * ComputerSystem documents of a few KiB (an iDRAC ComputerSystem is ~12 KiB, an iLO one with its
 * Oem section ~40 KiB); 1 MiB is 25 times the largest, and a body past it is a broken or hostile
 * BMC: the call fails with `too-large` and the socket is closed (a Content-Length past it fails
 * before any byte is read). It was 4 MiB: 256 jobs reading that much at once, each parsed into a
 * document several times its size, do not fit the 512 MiB a pod is given.
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * Nesting of a BMC's JSON document (objects and arrays), checked on the text before it is parsed.
 * A ComputerSystem nests 5 deep (Oem sections 7–8); a document nested deeper is not one we read,
 * and code that walks a document (JSON.stringify, a logger) recurses once per level.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Items of any one array in a BMC's document, checked on the text before it is parsed.
 * AllowableValues lists hold a dozen values, Links lists a few dozen (a big server's CooledBy);
 * a BMC listing 600,000 boot targets made every `GET /bmcs` and `db export` carry them.
 */
export const MAX_JSON_ARRAY_ITEMS = 1_024;

/**
 * Characters of any one string in a BMC's document (a success answer), checked on the text
 * before it is parsed. The longest we keep is a slot's Image URL: a presigned object-storage URL
 * is ~2 KiB. A BMC that put a 3.9 MB string in each of 32 slots made the stored inventory 125 MB.
 */
export const MAX_JSON_STRING_CHARS = 4_096;

/**
 * Bytes of one BMC's inventory as stored (serial, model, MACs, boot and reset values, slots):
 * a real one is 1–4 KiB. Checked before it is stored; past it the read fails and nothing is kept,
 * so `GET /bmcs` stays small whatever the BMCs answer.
 */
export const MAX_INVENTORY_BYTES = 64 * 1024;

/**
 * Delays before the 2nd, 3rd and 4th attempt of a call that met a 5xx or a connection reset.
 * Four attempts is sushy's cap for InsertMedia; Ironic retries virtual media 3 times 3 s apart
 * (a Dell eject still in progress answers 500: storyboard 2008504). We start at Ironic's 3 s and
 * double, so a BMC restarting its web server gets 21 s. Injectable (tests use zeros).
 */
export const RETRY_DELAYS_MS: readonly number[] = [3_000, 6_000, 12_000];

/**
 * Members of any one collection we walk (Systems, Managers, VirtualMedia, EthernetInterfaces). A
 * server has a handful of each; a BMC listing more is broken or hostile, and reading every member
 * of an endless list would be a loop without a bound: the read fails with `too-large`.
 */
export const MAX_COLLECTION_MEMBERS = 64;

/**
 * Characters of a BMC's own error message kept in our errors (they name the cause; the rest is
 * noise). Cut before the message is scrubbed and redacted, so the work on it is bounded too: a
 * 120 KB message redacted first held the event loop for 45 s.
 */
export const MAX_BMC_MESSAGE_CHARS = 300;

/** Characters of a MessageId or RelatedProperty kept (`Base.1.8.ActionParameterMissing`, `#/Image`). */
export const MAX_BMC_ID_CHARS = 120;

/** MessageIds and RelatedProperties read from one error document. */
export const MAX_BMC_ERROR_ENTRIES = 32;

/**
 * Insert payload adjustments tried on one slot (adding TransferProtocolType, TransferMethod,
 * dropping Inserted/WriteProtected) before going on to the next slot. Each adjustment answers a
 * specific 400; three covers every combination we know of.
 */
export const MAX_PAYLOAD_ADJUSTMENTS = 3;

/**
 * After an insert is accepted, the slot is read back until it shows the image: this many reads,
 * INSERT_VERIFY_INTERVAL_MS apart. BMCs that mount asynchronously (iLO) show it within a second or
 * two; a BMC that accepted and silently ignored the body (Lenovo without Inserted) never does.
 */
export const INSERT_VERIFY_READS = 5;
export const INSERT_VERIFY_INTERVAL_MS = 1_000;

/**
 * After ForceOff (the last-resort restart, power-plan.ts), the System is read until it reports Off:
 * this many reads, POWER_OFF_POLL_INTERVAL_MS apart (30 s; a forced off takes a few seconds).
 */
export const POWER_OFF_POLLS = 15;
export const POWER_OFF_POLL_INTERVAL_MS = 2_000;

/**
 * A Redfish session with no call for this long is DELETEd (it is created again on the next call).
 * A boot job that follows its host for many minutes makes no call meanwhile: its session would
 * hold one of the BMC's few slots (iDRAC: 8) for nothing. iDRAC's own default timeout is 1,800 s.
 */
export const SESSION_IDLE_MS = 60_000;

/**
 * How long a session POST answered "all sessions in use" (iDRAC RAC0218 as a 503, a 429, or a
 * message naming the maximum number of sessions) is tried again, SESSION_LIMIT_RETRY_MS apart,
 * before the BMC's call fails: long enough for another tool's short-lived session to end, short
 * enough that a BMC whose slots are held by leaked sessions (they last until the BMC's own
 * timeout, 30 min on iDRAC) fails alone instead of holding a job slot. A Retry-After the BMC
 * sends is used instead of the interval, within the same bound.
 */
export const SESSION_LIMIT_WAIT_MS = 120_000;
export const SESSION_LIMIT_RETRY_MS = 10_000;

/**
 * Clocks of the DELETE that ends a session (job end, idle, service stop): a BMC that does not
 * answer it costs this much at most, then the session is left to the BMC's own timeout.
 */
export const SESSION_DELETE_TIMEOUTS = { connectMs: 5_000, tlsMs: 10_000, requestMs: 10_000 } as const;

/**
 * iDRAC 10 answers 409 to a power-on for up to ~60 s after a power-off (the server is still
 * changing state). A profile with that window (profiles.ts `powerOnConflictWindowMs`) sends the
 * On again every POWER_ON_CONFLICT_INTERVAL_MS until the window has passed, then the 409 stands.
 */
export const POWER_ON_CONFLICT_INTERVAL_MS = 5_000;

/**
 * An idle keep-alive socket to a BMC is closed after this long. Below the 5 s idle timeout of
 * Apache and Node (behind many BMC web servers): a socket the BMC is about to drop is not reused.
 * A job's calls come in bursts (discovery, insert, boot, power: one after another), so the burst
 * shares one connection and one handshake.
 */
export const KEEP_ALIVE_IDLE_MS = 2_000;

/**
 * TLS sessions kept for resumption, one per BMC: a new connection to a BMC seen before resumes
 * (no certificate verification, no key exchange on either side). Node's default is 100; a fleet
 * is 1,000 BMCs or more.
 */
export const MAX_CACHED_TLS_SESSIONS = 4_096;

/**
 * Threads that make Redfish calls (call-pool.ts): connections, TLS handshakes and the parsing of
 * answers run there, never on the thread that serves ISO bytes. One thread carries a fleet (the
 * calls wait on BMCs, not on CPU); two leave a core's worth to the serving loop on a 2-vCPU pod
 * only when there are more cores. A BMC's calls always go to the same thread (its keep-alive).
 */
export const CALL_WORKER_THREADS = 1;

/**
 * Calls sent to the worker threads at once; more wait in line for a slot. Twice the jobs one
 * replica runs (BMC_JOBS_MAX_RUNNING, 256: each makes one call at a time, a refresh may run
 * beside a followed boot).
 */
export const MAX_CALLS_IN_FLIGHT = 512;

/**
 * Calls waiting for a slot; one more fails at once as `busy`. A call that waits longer than its
 * connect clock fails as `connect-timeout` (the wait counts as connecting), so the line moves or
 * empties within CONNECT_TIMEOUT_MS whatever the BMCs do.
 */
export const MAX_QUEUED_CALLS = 4_096;

/**
 * Old-generation heap of a call worker: 512 calls in flight, each body at most
 * MAX_RESPONSE_BYTES and parsed into a few times its size, in the worst case. A worker that runs
 * out of it ends: its calls fail as `connection-reset` and the next call starts a new worker.
 */
export const CALL_WORKER_HEAP_MB = 256;

/**
 * The worker's own clocks end every call; the main thread's deadline for the answer is the sum
 * of the call's clocks plus this, for a worker that is stuck or gone (never expected to fire).
 */
export const CALL_WORKER_GRACE_MS = 5_000;
