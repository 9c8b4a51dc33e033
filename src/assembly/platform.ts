// What the service opens for every wing, beside the listeners (./listeners.ts): the one database,
// opened and migrated with every wing's migrations (src/service-database.ts) when a wing first
// asks, and refused naming DATABASE_URL when its first connection fails; IMAGE_REPLICA_KEY_FILE's
// key, which a core and the `--role image` replicas fronting it share (the replicas sign their
// reports of BMC job URL reads with it, the BMC wing checks them); the gate the image store's writes
// wait behind while the embedded PostgreSQL starts; and the order things stop in (StopOrder).
// Does NOT: choose or assemble wings (src/service.ts, ./wings.ts). Next: ./wings.ts.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { type ReplicaKey, loadReplicaKey } from '../image-ports/remote/replica-proof.js';
import type { Metrics } from '../metrics.js';
import { openMigratedDatabase } from '../platform/db/migrated-database.js';
import type { SqlDatabase } from '../platform/db/sql.js';
import { SERVICE_MIGRATIONS } from '../service-database.js';
import { databaseUrlRefusal } from '../startup/setting-refusals.js';
import type { Listeners } from './listeners.js';
import type { Platform } from './wing.js';

/** What to undo, last opened first: each wing's stop, and the database after the wings that opened it. */
export class StopOrder {
  private readonly steps: Array<() => Promise<void>> = [];

  push(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  /** Runs the steps in reverse order, each once. */
  async unwind(): Promise<void> {
    for (let step = this.steps.pop(); step; step = this.steps.pop()) await step();
  }
}

export interface PlatformParts {
  logger: Logger;
  metrics: Metrics;
  now: (() => Date) | undefined;
  listeners: Listeners;
  warnings: readonly string[];
  /** A wing of the role keeps rows in the database; with no DATABASE_URL it is the embedded server. */
  usesDatabase: boolean;
  stops: StopOrder;
}

export interface OpenPlatform {
  platform: Platform;
  /** The wings on the database are assembled (or the start failed): the image store may write. */
  databaseSettled(): void;
}

export async function openPlatform(config: Config, parts: PlatformParts): Promise<OpenPlatform> {
  const { logger, listeners } = parts;
  let databaseSettled = (): void => undefined;
  const databaseStarted =
    parts.usesDatabase && !config.databaseUrl ? new Promise<void>((resolve) => (databaseSettled = resolve)) : undefined;
  const replicaKey = await loadReplicaKeyOf(config, logger);
  const databaseRefusal = (err: unknown): unknown =>
    config.databaseUrl ? databaseUrlRefusal(err, config.databaseUrl) : err;
  let database: Promise<SqlDatabase> | undefined;
  const platform: Platform = {
    config,
    logger,
    metrics: parts.metrics,
    now: parts.now,
    bases: listeners.bases,
    warnings: parts.warnings,
    connectionCap: listeners.connectionCap,
    replicaKey,
    databaseRefusal,
    databaseStarted,
    database() {
      database ??= openMigratedDatabase(
        {
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          logger,
          embeddedPostgresUser: config.embeddedPostgresUser,
        },
        SERVICE_MIGRATIONS,
      ).then(
        (db) => {
          parts.stops.push(() => db.close()); // the embedded PostgreSQL stops here, after the streams
          return db;
        },
        (err: unknown) => {
          throw databaseRefusal(err);
        },
      );
      return database;
    },
  };
  return { platform, databaseSettled: () => databaseSettled() };
}

async function loadReplicaKeyOf(config: Config, logger: Logger): Promise<ReplicaKey | undefined> {
  const replicaKey = config.imageReplicaKeyFile ? await loadReplicaKey(config.imageReplicaKeyFile) : undefined;
  if (replicaKey && 'problem' in replicaKey)
    logger.error({ problem: replicaKey.problem }, 'image replica key unusable: reports of BMC job URL reads fail');
  return replicaKey;
}
