// The job engine's clocks and caps that are not settings, each with its reason.
// Does NOT: apply them (./engine.ts, ./follow-poller.ts, ./read-tracker.ts do).

/** A replica looks for claimable jobs this often: a queued job starts within a second. */
export const CLAIM_INTERVAL_MS = 1_000;

/**
 * Following jobs are observed this often, all at once (one query for their reads, one per
 * InfraEnv for its registrations): a step is seen within 2 s, and 256 following jobs cost a
 * couple of queries per tick, not hundreds.
 */
export const FOLLOW_INTERVAL_MS = 2_000;

/**
 * Registrations a boot job looks at per InfraEnv and round: the newest this many since the insert.
 * A fleet of a few thousand hosts booting at once into one InfraEnv is far beyond what one
 * service follows; the bound keeps one round's work fixed whatever the table holds.
 */
export const MAX_HOSTS_MATCHED = 5_000;

/**
 * A replica writes the reads it served for a job this often (and at once for the first one):
 * a BMC's range storm of thousands of requests costs one upsert a second.
 */
export const READS_FLUSH_INTERVAL_MS = 1_000;

/** Jobs whose reads one replica tracks at once; beyond it the oldest is forgotten (flushed first). */
export const MAX_TRACKED_JOBS = 10_000;

/** Client addresses kept per job and replica (a BMC reads from one or two). */
export const MAX_READ_ADDRESSES = 8;

/**
 * Which job a token hash belongs to is cached this long (misses a shorter while): a range storm
 * asks the database once per token, and a token that is not a job's costs one query per 5 s.
 */
export const TOKEN_LOOKUP_TTL_MS = 60_000;
export const TOKEN_MISS_TTL_MS = 5_000;
export const TOKEN_LOOKUP_MAX_ENTRIES = 10_000;

/**
 * Times a job is resumed after its replica died or stalled while running it (a lost lease). A job
 * whose own run takes its process down (a BMC answer that exhausts memory, a bug) would otherwise
 * be resumed after every restart, crashing each one; three more tries cover replicas that die for
 * other reasons (a node drained, an OOM elsewhere) during a half-hour boot.
 */
export const MAX_RESUMES_AFTER_LOST_LEASE = 3;

/** Finished jobs kept per BMC (the API shows the last ones; older ones are deleted when a job is queued). */
export const JOBS_KEPT_PER_BMC = 20;

/**
 * A stopping replica waits this long for its jobs to reach a step boundary (a Redfish call lasts
 * 55 s at most) before it lets them go; another replica resumes them when the lease expires.
 */
export const STOP_WAIT_MS = 60_000;

/**
 * A cancelled boot job that ejects waits this long for a refresh or an eject running beside it to
 * end (a dozen Redfish calls with bounded retries) before it gives up ejecting, saying so.
 */
export const HOLD_WAIT_MS = 2 * 60_000;
