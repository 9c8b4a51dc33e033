// The shape every wing of the service has when src/service.ts assembles it: a WingModule declares
// what the wing needs (its settings come in the Config; the platform's database; the ports of the
// wings before it) and what it offers (the assisted API, the ports it implements); its assembly
// returns its routers, its parts of /health, its start and stop. The board holds a wing to its
// declarations (./port-board.ts) and ./wings.test.ts checks them against the table for every role.
// One module per wing beside this file; ./wings.ts says which run in which role.
//
// The order of a start: each module of the role prepares (before anything listens: what its
// settings name is read and checked here, so a refusal names the setting); the listeners open;
// each wing is assembled in the table's order on the Platform, taking the ports it needs from the
// PortBoard (./port-board.ts) and offering its own; the app is built from the wings' routers,
// health parts and image face; each wing starts; then the service reports ready. A stop runs the
// wings' stops in reverse order, after the listeners drained.
// Does NOT: assemble anything (the wing modules do), or choose the wings (./wings.ts).
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ImageFace, MountedRouter } from '../http/face/app.js';
import type { HealthPart } from '../http/face/routes/health.js';
import type { ReplicaKey } from '../image-ports/remote/replica-proof.js';
import type { Metrics } from '../metrics.js';
import type { SqlDatabase } from '../platform/db/sql.js';
import type { PortName, WingPorts } from './ports.js';

export interface WingModule {
  /** For messages: the wing a port is missing for. */
  readonly name: string;
  readonly needs: WingNeeds;
  readonly offers: WingOffers;
  /** Before anything listens: reads and checks what its settings name; returns how to assemble it. */
  prepare(config: Config): Promise<AssembleWing>;
}

/** What a wing needs beside its settings and the platform every wing is handed. */
export interface WingNeeds {
  /** It keeps rows in the one database: with the embedded server, the image store's writes wait for it. */
  database?: true;
  /** Ports it takes while it is assembled: a wing before it in the table offers each. */
  ports?: readonly PortName[];
  /** Ports it calls when some wing offers them, looked up at each call (a wing after it may offer them). */
  ifOffered?: readonly PortName[];
}

/** What a wing offers beside what its assembly returns (routers, health parts, start and stop). */
export interface WingOffers {
  /** It answers the assisted API at SERVICE_BASE_URL: the start hands that URL out and warns of AUTH_TYPE=none. */
  api?: true;
  /** Ports it implements; no other wing of a role offers them. */
  ports?: readonly PortName[];
  /** Remote mode: ports whose in-process implementations it replaces. */
  swaps?: readonly PortName[];
}

/** Assembles a prepared wing once the listeners are bound, in the table's order. */
export type AssembleWing = (platform: Platform, ports: WingPorts) => Promise<Wing>;

/** What an assembled wing hands the service. */
export interface Wing {
  /** Its routers, mounted in the table's order (before the image face). */
  routers?: readonly MountedRouter[];
  /** Its parts of /health. */
  health?: readonly HealthPart[];
  /** The image face's artifacts, request cap and image ports (the image face wing only). */
  imageFace?: ImageFace;
  /** After every wing is assembled and the app answers, before the service reports ready. */
  start?(): Promise<void>;
  /** Undoes the wing; called in reverse order, after the listeners drained (or when a start fails). */
  stop?(): Promise<void>;
}

/** The URLs handed to hosts and BMCs, resolved once the listeners are bound (./listeners.ts). */
export interface HandedOutBases {
  /** IMAGE_SERVICE_BASE_URL, configured or derived. */
  imageServiceBaseUrl: string;
  /** SERVICE_BASE_URL, configured or derived. */
  serviceBaseUrl: string;
  /** Where iPXE scripts and PXE artifacts point (iPXE speaks plain HTTP only): the plain listener's base. */
  pxeImageBaseUrl: string;
  pxeServiceBaseUrl: string;
  /** The plain listener's base for ISOs when it serves them (HTTP_ROUTES=all: BMCs without HTTPS virtual media). */
  plainIsoBaseUrl: string | undefined;
}

/** What every wing is handed: the settings and what the service opened for all of them. */
export interface Platform {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The clock tests inject (the core's, the BMC wing's, the boot-event dedupe's); undefined = the system's. */
  readonly now: (() => Date) | undefined;
  readonly bases: HandedOutBases;
  /** The start's warnings: in /health and the console's banner. */
  readonly warnings: readonly string[];
  /** LISTEN_PORT's connection cap (src/http/transport/listener-limits.ts). */
  readonly connectionCap: number;
  /** IMAGE_REPLICA_KEY_FILE's key (or why it is unusable, logged once); undefined when not set. */
  readonly replicaKey: ReplicaKey | undefined;
  /** The one database (src/platform/db/), opened and migrated when a wing first asks; closed after it stops. */
  database(): Promise<SqlDatabase>;
  /** A failure of the first queries on DATABASE_URL as the setting to fix (src/startup/setting-refusals.ts). */
  databaseRefusal(err: unknown): unknown;
  /**
   * With the embedded server: resolves once the wings on it are assembled (the image store's writes
   * wait for it); undefined on DATABASE_URL or when no wing of the role uses the database.
   */
  readonly databaseStarted: Promise<void> | undefined;
}
