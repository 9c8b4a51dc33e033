// The BMC side's records as stored: BMCs (address, sealed credentials, TLS trust, profile, the
// InfraEnv they boot, the last inventory) and their jobs (action, state, steps, lease), plus the
// reads of a boot job's own ISO URL as each replica saw them. Plain data, no behaviour.
//
// Secrets: `credentials` is the sealed envelope of credentials.ts (AES-256-GCM); it never leaves
// the store except to the job engine, which opens it for one Redfish client. No record carries
// a password or an image-URL token in clear (a job's token is derived again when needed:
// jobs/job-token.ts; only its hash is stored, in image_url_tokens).
// Does NOT: define the SQL (./migrations.ts, migration 7) or the column maps (./tables.ts).
import type { BmcInventory, BootMethod, BootMode, ProfileId } from '../redfish/index.js';

/** How a BMC's certificate is checked: the system trust store, a CA (PEM kept in the record), or not at all. */
export type BmcTlsVerify = 'system' | 'ca' | 'insecure';

/**
 * When a boot job ejects the media once the host registered:
 * `auto` when the live system does not need the CD any more (a minimal ISO, which loads its root
 * file system over the network into RAM, or an InfraEnv with `coreos.liveiso.fromram`), `always`,
 * or `never`.
 */
export type EjectPolicy = 'auto' | 'always' | 'never';
export const EJECT_POLICIES: readonly EjectPolicy[] = ['auto', 'always', 'never'];

export interface BmcRecord {
  id: string;
  /** Unique per service: what every message, event and CLI verb names the BMC by. */
  name: string;
  /** The normalized Redfish address (redfish/address.ts `display`): a service root or a System. */
  address: string;
  /** Sealed username and password (credentials.ts); null for a BMC imported without them. */
  credentials: string | null;
  tlsVerify: BmcTlsVerify;
  /** The CA certificates (PEM) trusted for this BMC with tlsVerify `ca`. */
  caPem: string | null;
  /** A vendor profile that replaces detection; null = detect from the service root and Manager. */
  profileOverride: ProfileId | null;
  /** The InfraEnv whose discovery ISO a boot job inserts (a job may name another). */
  infraEnvId: string | null;
  bootMode: BootMode;
  /** How a boot job boots the host: virtual media or UEFI HTTP Boot; null = auto (../redfish/http-boot-plan.ts defaultBootMethod). */
  bootMethod: BootMethod | null;
  eject: EjectPolicy;
  /** The last inventory read from the BMC (refresh, or a boot job's discover step). */
  inventory: BmcInventory | null;
  inventoryAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const JOB_ACTIONS = ['boot-discovery', 'eject', 'power-on', 'power-off', 'power-reset', 'refresh'] as const;
export type JobAction = (typeof JOB_ACTIONS)[number];

/**
 * queued → running → succeeded | failed | cancelled; a boot job goes running → following once its
 * Redfish steps are done, and back to running for the moment it ejects. A queued or running job
 * holds its BMC (one per BMC: the unique index bmc_jobs_one_active); a following job only observes
 * (reads of its ISO URL, registrations), so a refresh or an eject may run beside it.
 */
export type JobState = 'queued' | 'running' | 'following' | 'succeeded' | 'failed' | 'cancelled';
/** States that hold the BMC: what the unique index counts. */
export const HOLDING_JOB_STATES: readonly JobState[] = ['queued', 'running'];
/** States of a job not yet ended. */
export const ACTIVE_JOB_STATES: readonly JobState[] = ['queued', 'running', 'following'];

export function isFinished(state: JobState): boolean {
  return !ACTIVE_JOB_STATES.includes(state);
}

export type StepStatus = 'pending' | 'running' | 'done' | 'skipped' | 'failed';

export interface JobStep {
  name: string;
  status: StepStatus;
  /** What happened, in words ("inserted into slot CD1 by InsertMedia", "the BMC never read the ISO within 10 min"). */
  detail: string;
  startedAt?: string;
  finishedAt?: string;
  /** Redfish calls the step made, retries included, and how many were retries. */
  calls?: number;
  retries?: number;
  /** Structured outcome (slot, method, power actions, bytes read, the matched host). */
  data?: Record<string, unknown>;
}

/** What a job was asked to do, beyond its action. */
export interface JobParams {
  /** boot-discovery: the one-time boot override's mode. */
  bootMode?: BootMode;
  /** boot-discovery: virtual media or UEFI HTTP Boot; absent = the BMC's (auto when it has none). */
  bootMethod?: BootMethod;
  /** boot-discovery: eject the media once the host registered. */
  eject?: EjectPolicy;
  /** boot-discovery: how long each followed step may take (ms); defaults from the BMC settings. */
  isoReadTimeoutMs?: number;
  bootTimeoutMs?: number;
  registerTimeoutMs?: number;
  /** When a cancel was asked for (the job ends at its next step boundary; any replica sees it). */
  cancelRequestedAt?: string;
}

export interface JobRecord {
  id: string;
  bmcId: string;
  action: JobAction;
  state: JobState;
  params: JobParams;
  steps: JobStep[];
  /** Why it failed: the failed step's message (names the BMC and the step). */
  error: string | null;
  /** boot-discovery: the InfraEnv whose ISO was inserted. */
  infraEnvId: string | null;
  /** boot-discovery: sha256 (base64url) of the job's own /bytoken/ token, as image_url_tokens keys it. */
  imageTokenHash: string | null;
  /** boot-discovery: the host that registered from this boot. */
  hostId: string | null;
  /** The replica running it and until when its claim holds (renewed by that replica's heartbeat). */
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  /** Times a replica claimed it (more than 1: it was resumed after a restart or a lost lease). */
  claims: number;
  /**
   * Claims that found the job still held by a replica whose lease had expired: that replica died
   * or stalled while running it (a replica that stops releases its jobs, which does not count).
   */
  lostLeases: number;
  createdAt: Date;
  startedAt: Date | null;
  updatedAt: Date;
  finishedAt: Date | null;
}

/** One byte range [start, end) of the ISO. */
export type ReadRange = [start: number, end: number];

/** The reads of one boot job's ISO URL as one replica served them (bmc_job_reads, one row per replica). */
export interface JobReadsRecord {
  jobId: string;
  replica: string;
  /** First and last GET of bytes (a HEAD is counted in `heads` only). */
  firstReadAt: Date | null;
  lastReadAt: Date | null;
  heads: number;
  requests: number;
  bytes: number;
  /** Ranges served, merged and sorted, at most MAX_READ_RANGES (jobs/read-coverage.ts). */
  ranges: ReadRange[];
  /** The ISO's boot files (kernel, initramfs, Ignition embed area) as the served ISO placed them. */
  bootExtents: ReadRange[];
  /** Size of the ISO served. */
  size: number;
  /** Client addresses that read it (capped). */
  addresses: string[];
}
