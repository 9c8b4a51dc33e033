// The front door's assignments in the one database (./migrations.ts): list (bounded, by
// InfraEnv), put (insert or replace one key's), remove, and the lookup the matcher asks at every
// boot (a MAC, else either byte order of a System UUID: one primary-key probe).
// A put naming an InfraEnv that does not exist is an UnknownInfraEnvError (404, as the API
// answers for a missing InfraEnv); the caller checks the key's spelling (../host-identity.ts).
// Does NOT: check authorization (the routes do) or match hosts (../host-match.ts).
import { NotFoundError } from '../../errors.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import type { AssignmentHit } from '../host-match.js';

/** Assignments one list answer holds at most (a page of a big site; narrow with the InfraEnv). */
export const MAX_LISTED_ASSIGNMENTS = 1000;

export type AssignmentKind = 'mac' | 'uuid';

export interface Assignment {
  kind: AssignmentKind;
  key: string;
  infraEnvId: string;
  secureBoot: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** An assignment named an InfraEnv that does not exist: 404 (the API's answer for a missing InfraEnv). */
export class UnknownInfraEnvError extends NotFoundError {}

interface Row {
  kind: AssignmentKind;
  key: string;
  infra_env_id: string;
  secure_boot: boolean;
  created_at: Date;
  updated_at: Date;
}

const fromRow = (r: Row): Assignment => ({
  kind: r.kind,
  key: r.key,
  infraEnvId: r.infra_env_id,
  secureBoot: r.secure_boot,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

export class AssignmentStore {
  constructor(
    private readonly db: SqlExecutor,
    private readonly now: () => Date,
  ) {}

  async list(infraEnvId?: string): Promise<Assignment[]> {
    const rows = infraEnvId
      ? await this.db.query<Row>('SELECT * FROM pxe_assignments WHERE infra_env_id = $1 ORDER BY kind, key LIMIT $2', [
          infraEnvId,
          MAX_LISTED_ASSIGNMENTS,
        ])
      : await this.db.query<Row>('SELECT * FROM pxe_assignments ORDER BY kind, key LIMIT $1', [MAX_LISTED_ASSIGNMENTS]);
    return rows.map(fromRow);
  }

  /** The MACs assigned with Secure Boot (what a site DHCP server can match), at most MAX_LISTED_ASSIGNMENTS. */
  async secureBootMacs(): Promise<string[]> {
    const rows = await this.db.query<{ key: string }>(
      "SELECT key FROM pxe_assignments WHERE kind = 'mac' AND secure_boot ORDER BY key LIMIT $1",
      [MAX_LISTED_ASSIGNMENTS],
    );
    return rows.map((r) => r.key);
  }

  async get(kind: AssignmentKind, key: string): Promise<Assignment | undefined> {
    const [row] = await this.db.query<Row>('SELECT * FROM pxe_assignments WHERE kind = $1 AND key = $2', [kind, key]);
    return row && fromRow(row);
  }

  /** Inserts or replaces the assignment of `key`; returns it, and whether it was new. */
  async put(
    kind: AssignmentKind,
    key: string,
    infraEnvId: string,
    secureBoot: boolean,
  ): Promise<{ assignment: Assignment; created: boolean }> {
    const at = this.now();
    try {
      const [row] = await this.db.query<Row & { inserted: boolean }>(
        `INSERT INTO pxe_assignments (kind, key, infra_env_id, secure_boot, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $5)
         ON CONFLICT (kind, key) DO UPDATE SET infra_env_id = EXCLUDED.infra_env_id,
           secure_boot = EXCLUDED.secure_boot, updated_at = EXCLUDED.updated_at
         RETURNING *, (xmax = 0) AS inserted`,
        [kind, key, infraEnvId, secureBoot, at],
      );
      return { assignment: fromRow(row!), created: row!.inserted };
    } catch (err) {
      if ((err as { code?: string }).code === '23503')
        throw new UnknownInfraEnvError(`InfraEnv ${infraEnvId} does not exist`, { infraEnvId });
      throw err;
    }
  }

  async remove(kind: AssignmentKind, key: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM pxe_assignments WHERE kind = $1 AND key = $2 RETURNING key', [
      kind,
      key,
    ]);
    return rows.length > 0;
  }

  /** The matcher's lookup: the MAC's assignment first, else a UUID's (`uuids`: both byte orders). */
  async lookup(mac: string | undefined, uuids: readonly string[]): Promise<AssignmentHit | undefined> {
    const rows = await this.db.query<Row>(
      `SELECT * FROM pxe_assignments
       WHERE (kind = 'mac' AND key = $1) OR (kind = 'uuid' AND key = ANY($2::text[]))
       ORDER BY kind LIMIT 2`,
      [mac ?? null, uuids],
    );
    const row = rows[0];
    return (
      row && { infraEnvId: row.infra_env_id, key: { kind: row.kind, value: row.key }, secureBoot: row.secure_boot }
    );
  }

  async count(): Promise<number> {
    const [row] = await this.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pxe_assignments');
    return row?.n ?? 0;
  }
}
