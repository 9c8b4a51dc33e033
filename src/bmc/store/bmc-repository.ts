// The BMC side's storage: BMC records, their jobs with the claim/lease protocol that lets exactly
// one replica run a job, and the reads of a boot job's ISO URL per replica. SQL over the one
// PostgreSQL the wings share (src/platform/db/sql.ts), statements generated from ./tables.ts where
// they are plain; the core's tables only through ../core-port.ts.
//
// The lease protocol (every time is the database's now(), so replicas' clocks do not matter):
//   claim    one statement picks queued jobs and running jobs whose lease expired,
//            `FOR UPDATE SKIP LOCKED` (two replicas claiming at once take different rows), and
//            sets lease_owner/lease_expires_at; a job still held by an expired lease counts a
//            lost lease (its replica died or stalled while running it);
//   renew    the owner's heartbeat pushes lease_expires_at for the jobs it still holds;
//   save     every write of a running job is `WHERE lease_owner = <me>`: a replica that lost its
//            lease (stalled past the expiry, another replica took over) writes nothing and stops.
// One job holding a BMC (queued or running) is the partial unique index bmc_jobs_one_active; its
// violation is a ConflictError. A following boot job is claimed, leased and saved like a running
// one but holds nothing; it takes its BMC again (`holdAgain`) only to eject, and lets it go
// (`follow`) under the BMC row's lock, which `queue` takes too (../bmc-service.ts).
// A cancel is a mark in the job's params (`requestCancel`), seen by the runner at its next step
// boundary, on whichever replica runs it; a queued job is cancelled at once (`cancelQueued`).
// Does NOT: decide what a job does (../jobs/), check input (../api/), or open credentials.
import { ConflictError } from '../../errors.js';
import {
  insertSql,
  paramsOf,
  recordFromRow,
  selectSql,
  updateByKeySql,
  upsertSql,
} from '../../platform/db/column-map.js';
import type { SqlDatabase, SqlExecutor } from '../../platform/db/sql.js';
import { type BmcRecord, isFinished, type JobReadsRecord, type JobRecord, type JobState } from './records.js';
import { BMC_JOB_READS, BMC_JOBS, BMCS } from './tables.js';

const SQL = {
  insertBmc: insertSql(BMCS),
  updateBmc: updateByKeySql(BMCS, ['id']),
  selectBmcs: selectSql(BMCS),
  /** bmc_jobs_one_active's predicate, spelled as the index (migration 7) so PostgreSQL infers it. */
  insertJobIfFree: `${insertSql(BMC_JOBS)} ON CONFLICT (bmc_id) WHERE state IN ('queued', 'running') DO NOTHING RETURNING id`,
  selectJobs: selectSql(BMC_JOBS),
  upsertReads: upsertSql(BMC_JOB_READS, ['jobId', 'replica']),
  selectReads: selectSql(BMC_JOB_READS),
} as const;

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';
/** PostgreSQL's foreign_key_violation. */
const FOREIGN_KEY_VIOLATION = '23503';

function uniqueViolation(err: unknown): string | undefined {
  const e = err as { code?: unknown; constraint?: unknown };
  return e?.code === UNIQUE_VIOLATION ? String(e.constraint ?? '') : undefined;
}

/** Why a job is refused while `holding` (queued or running) holds the BMC. */
export function holdingConflict(
  bmcName: string,
  holding: Pick<JobRecord, 'id' | 'action' | 'state' | 'createdAt'> | undefined,
): string {
  return (
    `BMC ${JSON.stringify(bmcName)} has a ${holding?.state ?? 'running'} job already` +
    (holding ? ` (${holding.action} ${holding.id}, since ${holding.createdAt.toISOString()})` : '') +
    ': one job per BMC at a time'
  );
}

/** What a running job's save writes (the rest of the row is the claim's or the creator's). */
export type JobProgress = Pick<
  JobRecord,
  'state' | 'steps' | 'error' | 'infraEnvId' | 'imageTokenHash' | 'hostId' | 'finishedAt'
>;

export class BmcRepository {
  constructor(
    private readonly db: SqlDatabase,
    private readonly ex: SqlExecutor = db,
  ) {}

  /** Runs `fn` with a repository bound to one transaction. */
  transaction<T>(fn: (repo: BmcRepository) => Promise<T>): Promise<T> {
    if (this.ex !== this.db) return fn(this);
    return this.db.transaction((tx) => fn(new BmcRepository(this.db, tx)));
  }

  // ---------------------------------------------------------------- BMCs

  async insertBmc(rec: BmcRecord): Promise<void> {
    try {
      await this.ex.query(SQL.insertBmc, paramsOf(BMCS, rec));
    } catch (err) {
      if (uniqueViolation(err) !== undefined)
        throw new ConflictError(`a BMC named ${JSON.stringify(rec.name)} exists already`, { bmc: rec.name });
      throw err;
    }
  }

  async updateBmc(rec: BmcRecord): Promise<void> {
    try {
      await this.ex.query(SQL.updateBmc, paramsOf(BMCS, rec));
    } catch (err) {
      if (uniqueViolation(err) !== undefined)
        throw new ConflictError(`a BMC named ${JSON.stringify(rec.name)} exists already`, { bmc: rec.name });
      throw err;
    }
  }

  async getBmc(id: string, opts: { forUpdate?: boolean } = {}): Promise<BmcRecord | undefined> {
    const rows = await this.ex.query(`${SQL.selectBmcs} WHERE id = $1${opts.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
    return rows[0] ? recordFromRow(BMCS, rows[0]) : undefined;
  }

  async getBmcByName(name: string): Promise<BmcRecord | undefined> {
    const rows = await this.ex.query(`${SQL.selectBmcs} WHERE name = $1`, [name]);
    return rows[0] ? recordFromRow(BMCS, rows[0]) : undefined;
  }

  async listBmcs(filter: { infraEnvId?: string } = {}): Promise<BmcRecord[]> {
    const rows = filter.infraEnvId
      ? await this.ex.query(`${SQL.selectBmcs} WHERE infra_env_id = $1 ORDER BY name`, [filter.infraEnvId])
      : await this.ex.query(`${SQL.selectBmcs} ORDER BY name`);
    return rows.map((row) => recordFromRow(BMCS, row));
  }

  /**
   * The BMCs bound to an InfraEnv whose last inventory reported `mac` (lower case, colons) among
   * its NICs or one of `uuids` as its System UUID, at most `limit`, the latest inventory first.
   */
  async bmcsWithIdentity(
    mac: string | undefined,
    uuids: readonly string[],
    limit: number,
  ): Promise<{ name: string; infraEnvId: string; by: 'mac' | 'system-uuid' }[]> {
    const rows = await this.ex.query<{ name: string; infra_env_id: string; by_mac: boolean }>(
      `SELECT name, infra_env_id, ($1::text IS NOT NULL AND inventory->'macs' ? $1::text) AS by_mac FROM bmcs
       WHERE infra_env_id IS NOT NULL AND inventory IS NOT NULL
         AND (($1::text IS NOT NULL AND inventory->'macs' ? $1::text)
              OR lower(inventory->'system'->>'uuid') = ANY($2::text[]))
       ORDER BY inventory_at DESC NULLS LAST, name LIMIT $3`,
      [mac ?? null, uuids, limit],
    );
    return rows.map((r) => ({ name: r.name, infraEnvId: r.infra_env_id, by: r.by_mac ? 'mac' : 'system-uuid' }));
  }

  async countBmcs(): Promise<number> {
    const rows = await this.ex.query<{ n: number }>('SELECT count(*)::int AS n FROM bmcs');
    return Number(rows[0]?.n ?? 0);
  }

  async deleteBmc(id: string): Promise<boolean> {
    return (await this.ex.query('DELETE FROM bmcs WHERE id = $1 RETURNING 1', [id])).length > 0;
  }

  /**
   * Changes the stored inventory as `change` says, under the BMC row's lock (a job's step observed
   * the power or the media; a refresh beside it may be writing the whole inventory).
   */
  async changeInventory(
    id: string,
    change: (inventory: BmcRecord['inventory']) => BmcRecord['inventory'],
    at: Date,
  ): Promise<void> {
    await this.transaction(async (repo) => {
      const bmc = await repo.getBmc(id, { forUpdate: true });
      if (bmc) await repo.setInventory(id, change(bmc.inventory), at);
    });
  }

  /** Stores an inventory read from the BMC (a refresh, or a boot job's discover step). */
  async setInventory(id: string, inventory: BmcRecord['inventory'], at: Date): Promise<void> {
    await this.ex.query('UPDATE bmcs SET inventory = $2, inventory_at = $3 WHERE id = $1', [
      id,
      JSON.stringify(inventory),
      at,
    ]);
  }

  /** Records the credentials key id (service_keys) unless one is recorded; returns the recorded id. */
  async recordKeyId(name: string, keyId: string): Promise<string> {
    await this.ex.query('INSERT INTO service_keys (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      name,
      keyId,
    ]);
    const rows = await this.ex.query<{ value: string }>('SELECT value FROM service_keys WHERE name = $1', [name]);
    return rows[0]?.value ?? keyId;
  }

  /** Replaces the recorded key id while no BMC holds sealed credentials; true when replaced. */
  async replaceKeyIdIfUnused(name: string, keyId: string): Promise<boolean> {
    const rows = await this.ex.query(
      `UPDATE service_keys SET value = $2 WHERE name = $1
         AND NOT EXISTS (SELECT 1 FROM bmcs WHERE credentials IS NOT NULL) RETURNING 1`,
      [name, keyId],
    );
    return rows.length > 0;
  }

  // ---------------------------------------------------------------- jobs

  /** Queues a job; a ConflictError naming the BMC when it has a queued or running job already. */
  async insertJob(rec: JobRecord, bmcName: string): Promise<void> {
    // No error on the constraint (it would abort a surrounding transaction): nothing inserted instead.
    const rows = await this.ex.query(SQL.insertJobIfFree, paramsOf(BMC_JOBS, rec));
    if (rows.length > 0) return;
    const active = await this.activeJob(rec.bmcId);
    throw new ConflictError(holdingConflict(bmcName, active), {
      bmc: bmcName,
      ...(active ? { jobId: active.id } : {}),
    });
  }

  async getJob(id: string): Promise<JobRecord | undefined> {
    const rows = await this.ex.query(`${SQL.selectJobs} WHERE id = $1`, [id]);
    return rows[0] ? recordFromRow(BMC_JOBS, rows[0]) : undefined;
  }

  /** The job holding the BMC (queued or running), if any. */
  async activeJob(bmcId: string): Promise<JobRecord | undefined> {
    const rows = await this.ex.query(`${SQL.selectJobs} WHERE bmc_id = $1 AND state IN ('queued', 'running')`, [bmcId]);
    return rows[0] ? recordFromRow(BMC_JOBS, rows[0]) : undefined;
  }

  /** Every job of the BMC not yet ended (at most one holding it, and following boot jobs), oldest first. */
  async activeJobs(bmcId: string): Promise<JobRecord[]> {
    const rows = await this.ex.query(
      `${SQL.selectJobs} WHERE bmc_id = $1 AND state IN ('queued', 'running', 'following') ORDER BY created_at, id`,
      [bmcId],
    );
    return rows.map((row) => recordFromRow(BMC_JOBS, row));
  }

  /** A BMC's jobs, newest first. */
  async listJobs(bmcId: string, limit: number): Promise<JobRecord[]> {
    const rows = await this.ex.query(`${SQL.selectJobs} WHERE bmc_id = $1 ORDER BY created_at DESC, id LIMIT $2`, [
      bmcId,
      limit,
    ]);
    return rows.map((row) => recordFromRow(BMC_JOBS, row));
  }

  /**
   * Each BMC's last job: the one holding it if any, else a following one, else the last to end
   * (a refresh queued beside a boot may end before the boot does).
   */
  async lastJobs(bmcIds: string[]): Promise<Map<string, JobRecord>> {
    if (bmcIds.length === 0) return new Map();
    const rows = await this.ex.query(
      `SELECT DISTINCT ON (bmc_id) ${SQL.selectJobs.slice('SELECT '.length)}
       WHERE bmc_id = ANY($1::uuid[])
       ORDER BY bmc_id, (state IN ('queued', 'running')) DESC, (state = 'following') DESC,
         finished_at DESC NULLS LAST, created_at DESC, id`,
      [bmcIds],
    );
    return new Map(rows.map((row) => recordFromRow(BMC_JOBS, row)).map((j) => [j.bmcId, j]));
  }

  /** Keeps the newest `keep` finished jobs of a BMC; returns how many were deleted. */
  async trimJobs(bmcId: string, keep: number): Promise<number> {
    const rows = await this.ex.query(
      `DELETE FROM bmc_jobs WHERE id IN (
         SELECT id FROM bmc_jobs WHERE bmc_id = $1 AND state IN ('succeeded', 'failed', 'cancelled')
         ORDER BY created_at DESC, id OFFSET $2)
       RETURNING 1`,
      [bmcId, keep],
    );
    return rows.length;
  }

  /** Whether any job waits for a replica (what claimJobs would take), without claiming it. */
  async hasClaimableJobs(): Promise<boolean> {
    const rows = await this.ex.query(
      `SELECT 1 FROM bmc_jobs
       WHERE state IN ('queued', 'running', 'following') AND (lease_expires_at IS NULL OR lease_expires_at < now()) LIMIT 1`,
    );
    return rows.length > 0;
  }

  /**
   * Claims up to `limit` jobs for `owner`: queued ones, and running or following ones whose lease
   * expired (their replica died or stalled), oldest first. Rows another replica is claiming are
   * skipped. A queued job becomes running; the others keep their state.
   */
  async claimJobs(owner: string, limit: number, leaseMs: number): Promise<JobRecord[]> {
    if (limit <= 0) return [];
    const rows = await this.ex.query(
      `WITH picked AS (
         SELECT id FROM bmc_jobs
         WHERE state IN ('queued', 'running', 'following') AND (lease_expires_at IS NULL OR lease_expires_at < now())
         ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE bmc_jobs j SET lease_owner = $1, lease_expires_at = now() + $3 * interval '1 millisecond',
         state = CASE WHEN j.state = 'queued' THEN 'running' ELSE j.state END,
         started_at = COALESCE(j.started_at, now()), claims = j.claims + 1,
         lost_leases = j.lost_leases + (CASE WHEN j.lease_owner IS NULL THEN 0 ELSE 1 END), updated_at = now()
       FROM picked WHERE j.id = picked.id
       RETURNING ${SQL.selectJobs
         .slice('SELECT '.length, SQL.selectJobs.indexOf(' FROM '))
         .split(', ')
         .map((c) => `j.${c}`)
         .join(', ')}`,
      [owner, limit, leaseMs],
    );
    return rows.map((row) => recordFromRow(BMC_JOBS, row));
  }

  /** The owner's heartbeat: extends the leases it still holds; returns their ids. */
  async renewLeases(owner: string, ids: string[], leaseMs: number): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.ex.query<{ id: string }>(
      `UPDATE bmc_jobs SET lease_expires_at = now() + $3 * interval '1 millisecond'
       WHERE id = ANY($2::uuid[]) AND lease_owner = $1 AND state IN ('running', 'following') RETURNING id`,
      [owner, ids, leaseMs],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Lets another replica take the job at once (a draining replica); false when not held. */
  async releaseLease(owner: string, id: string): Promise<boolean> {
    const rows = await this.ex.query(
      `UPDATE bmc_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2 RETURNING 1`,
      [id, owner],
    );
    return rows.length > 0;
  }

  /**
   * Writes a running job's progress, only while `owner` holds its lease; false when it does not
   * (the caller stops running it). A finished job gives up its lease in the same statement.
   */
  async saveJob(owner: string, id: string, p: JobProgress, at: Date): Promise<boolean> {
    const finished = isFinished(p.state);
    const rows = await this.ex.query(
      `UPDATE bmc_jobs SET state = $3, steps = $4, error = $5, infra_env_id = $6, image_token_hash = $7,
         host_id = $8, finished_at = $9, updated_at = $10
         ${finished ? ', lease_owner = NULL, lease_expires_at = NULL' : ''}
       WHERE id = $1 AND lease_owner = $2 AND state IN ('running', 'following') RETURNING 1`,
      [
        id,
        owner,
        p.state,
        JSON.stringify(p.steps),
        p.error,
        p.infraEnvId,
        p.imageTokenHash,
        p.hostId,
        p.finishedAt,
        at,
      ],
    );
    return rows.length > 0;
  }

  /**
   * A running boot job whose Redfish steps are done lets its BMC go (state following), under the
   * BMC row's lock so that a job queued at the same moment sees it either running (and is refused
   * by the index) or following (and is admitted only beside it: ../jobs/admission.ts).
   */
  async follow(owner: string, bmcId: string, id: string, p: JobProgress, at: Date): Promise<boolean> {
    return this.transaction(async (repo) => {
      await repo.ex.query('SELECT 1 FROM bmcs WHERE id = $1 FOR UPDATE', [bmcId]);
      return repo.saveJob(owner, id, { ...p, state: 'following' }, at);
    });
  }

  /**
   * A following job takes its BMC again (to eject): `held`; `busy` while another job holds it (a
   * refresh or an eject queued beside it: try again later); `lost` when the lease is not the owner's.
   */
  async holdAgain(owner: string, id: string, at: Date): Promise<'held' | 'busy' | 'lost'> {
    try {
      // One statement (no surrounding transaction for the index's refusal to abort).
      const rows = await this.ex.query(
        `UPDATE bmc_jobs SET state = 'running', updated_at = $3
         WHERE id = $1 AND lease_owner = $2 AND state IN ('running', 'following') RETURNING 1`,
        [id, owner, at],
      );
      return rows.length > 0 ? 'held' : 'lost';
    } catch (err) {
      if (uniqueViolation(err) !== undefined) return 'busy';
      throw err;
    }
  }

  /** Marks a running or following job to be cancelled; false when it is not (queued, ended, marked already). */
  async requestCancel(id: string, at: Date): Promise<boolean> {
    const rows = await this.ex.query(
      `UPDATE bmc_jobs SET params = params || jsonb_build_object('cancelRequestedAt', $2::text)
       WHERE id = $1 AND state IN ('running', 'following') AND NOT (params ? 'cancelRequestedAt') RETURNING 1`,
      [id, at.toISOString()],
    );
    return rows.length > 0;
  }

  /** Of these jobs, the ones a cancel was asked for. */
  async cancelRequested(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.ex.query<{ id: string }>(
      `SELECT id FROM bmc_jobs WHERE id = ANY($1::uuid[]) AND params ? 'cancelRequestedAt'`,
      [ids],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Cancels a job that never ran; false when it is not queued (a replica claimed it meanwhile). */
  async cancelQueued(id: string, why: string, at: Date): Promise<boolean> {
    const rows = await this.ex.query(
      `UPDATE bmc_jobs SET state = 'cancelled', error = $2, finished_at = $3, updated_at = $3,
         params = params || jsonb_build_object('cancelRequestedAt', $4::text)
       WHERE id = $1 AND state = 'queued' RETURNING 1`,
      [id, why, at, at.toISOString()],
    );
    return rows.length > 0;
  }

  /** Fails a queued job that never ran (e.g. its BMC's InfraEnv is gone); false when it is not queued. */
  async failQueued(id: string, error: string, at: Date): Promise<boolean> {
    const rows = await this.ex.query(
      `UPDATE bmc_jobs SET state = 'failed', error = $2, finished_at = $3, updated_at = $3
       WHERE id = $1 AND state = 'queued' RETURNING 1`,
      [id, error, at],
    );
    return rows.length > 0;
  }

  /** The job whose ISO URL token hashes to `tokenHash`, with its state; undefined for any other token. */
  async jobOfToken(tokenHash: string): Promise<{ id: string; state: JobState } | undefined> {
    const rows = await this.ex.query<{ id: string; state: JobState }>(
      `SELECT id, state FROM bmc_jobs WHERE image_token_hash = $1 ORDER BY created_at DESC LIMIT 1`,
      [tokenHash],
    );
    return rows[0];
  }

  // ---------------------------------------------------------------- reads of a job's ISO URL

  /** One replica's account of a job's reads, replaced whole (only that replica writes its row). */
  async putReads(rec: JobReadsRecord): Promise<void> {
    try {
      await this.ex.query(SQL.upsertReads, paramsOf(BMC_JOB_READS, rec));
    } catch (err) {
      // The job was deleted meanwhile (its BMC removed): nothing to account for.
      if ((err as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) return;
      throw err;
    }
  }

  async readsOf(jobId: string): Promise<JobReadsRecord[]> {
    const rows = await this.ex.query(`${SQL.selectReads} WHERE job_id = $1 ORDER BY replica`, [jobId]);
    return rows.map((row) => recordFromRow(BMC_JOB_READS, row));
  }

  /** The reads of several jobs, by job id (every replica's row). */
  async readsOfJobs(jobIds: string[]): Promise<Map<string, JobReadsRecord[]>> {
    const out = new Map<string, JobReadsRecord[]>();
    if (jobIds.length === 0) return out;
    const rows = await this.ex.query(`${SQL.selectReads} WHERE job_id = ANY($1::uuid[]) ORDER BY job_id, replica`, [
      jobIds,
    ]);
    for (const row of rows) {
      const rec = recordFromRow(BMC_JOB_READS, row);
      out.set(rec.jobId, [...(out.get(rec.jobId) ?? []), rec]);
    }
    return out;
  }
}
