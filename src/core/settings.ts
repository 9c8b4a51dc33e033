// The assisted core's settings, declared once with their defaults.
//
// `CoreSettings` is what an operator configures about the core. src/config.ts reads it from the
// environment, and its `Config` extends CoreSettings, so the process's Config is what createCore
// (./index.ts) is handed, unchanged. `CoreEndpoints` is what the process knows only once it
// listens (the base URLs it hands out) or has read a file (the CA bundle the agent trusts);
// the service resolves them (src/assembly/listeners.ts, core-wing.ts). The core sees both as
// `ctx.settings` (./context.ts).
//
// Adding a core setting: a field in CoreSettings (its variable in the doc comment) with its
// default in DEFAULT_CORE_SETTINGS, then its variable in loadConfig (src/config.ts; the compiler
// asks for it) and its row in docs/operator/configuration.md; the core reads ctx.settings.x.
// Nothing between config.ts and the reader is touched, and nothing downstream applies a default.
//
// Does: declare the settings and their defaults, and pick them out of a bigger object (a Config).
// Does NOT: read the environment or check bounds (src/config.ts does), or hold runtime wiring
// (catalog, logger, clock: CoreOptions in ./index.ts).
import { DEFAULT_IMAGE_TOKEN_TTL_MS } from './auth/image-tokens.js';
import { DEFAULT_EVENT_SETTINGS, type EventSettings } from './event-limits.js';

export interface CoreSettings {
  /** DATA_DIR: where the embedded PostgreSQL and the local signing keys live (absolute). */
  dataDir: string;
  /** DATABASE_URL: an external PostgreSQL; undefined = the embedded server in DATA_DIR. */
  databaseUrl: string | undefined;
  /** EMBEDDED_POSTGRES_USER: who runs the embedded PostgreSQL when bootsmith is root; undefined = automatic. */
  embeddedPostgresUser: string | undefined;
  /** AUTH_TYPE: `local` (ES256 keys in DATA_DIR/auth, an admin token) or `none`. */
  authType: 'none' | 'local';
  /** HOST_MAX_DISCONNECTION_TIME: a host silent this long is disconnected. */
  hostMaxDisconnectionMs: number;
  /** ADMIN_TOKEN_TTL: admin tokens expire this long after signing; undefined = never. */
  adminTokenTtlMs: number | undefined;
  /** AGENT_DOCKER_IMAGE: the discovery agent image the discovery Ignition pulls. */
  agentImage: string;
  /** Lifetime of image tokens (upstream IMAGE_EXPIRATION_TIME's default; no variable yet). */
  imageTokenTtlMs: number;
  /** IMAGE_URL_TTL: lifetime of short image-URL tokens (./auth/url-tokens.ts). */
  imageUrlTtlMs: number;
  /** EVENTS_* / EVENT_*: bounds on posted, kept and listed events (./event-limits.ts). */
  events: EventSettings;
}

/** Upstream assisted-service's default agent image (AGENT_DOCKER_IMAGE). */
export const DEFAULT_AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';

/** Every core setting's default; its keys are the keys coreSettingsOf picks. */
export const DEFAULT_CORE_SETTINGS: Readonly<CoreSettings> = {
  /** Relative to the working directory; src/config.ts resolves it (`npm start` runs in the checkout). */
  dataDir: 'data',
  databaseUrl: undefined,
  embeddedPostgresUser: undefined,
  authType: 'local',
  hostMaxDisconnectionMs: 3 * 60_000, // upstream HOST_MAX_DISCONNECTION_TIME
  adminTokenTtlMs: undefined,
  agentImage: DEFAULT_AGENT_IMAGE,
  imageTokenTtlMs: DEFAULT_IMAGE_TOKEN_TTL_MS,
  imageUrlTtlMs: 4 * 3_600_000, // upstream IMAGE_EXPIRATION_TIME default
  events: DEFAULT_EVENT_SETTINGS,
};

/**
 * The registry files every discovery host gets (src/images/fetch/oci/registries-conf-render.ts
 * makes them from the image store's settings; ./discovery-ignition/discovery.ts writes them).
 */
export interface HostRegistryFiles {
  /** registries.conf v2 rendered from REGISTRIES_CONF_FILE, and the policy.json that goes with it. */
  registriesConf?: { text: string; policyJson: string } | undefined;
  /** REGISTRY_CA_FILE's PEM. */
  caPem?: string | undefined;
}

/** Where hosts and BMCs are sent, resolved at start (src/assembly/core-wing.ts). */
export interface CoreEndpoints {
  /** SERVICE_BASE_URL, configured or derived from the bound listener. */
  serviceBaseUrl: string;
  /** IMAGE_SERVICE_BASE_URL, configured or derived. */
  imageServiceBaseUrl: string;
  /** Plain-HTTP bases for what iPXE fetches (HTTP_LISTEN_PORT next to HTTPS); undefined = the two above. */
  pxeServiceBaseUrl?: string;
  pxeImageBaseUrl?: string;
  /** The PEM of SERVICE_CA_CERT_FILE, for the agent's --cacert; undefined = the system's trust. */
  serviceCaCert?: string;
  /**
   * The image store's REGISTRIES_CONF_FILE (rendered) and REGISTRY_CA_FILE, written into every
   * discovery Ignition so hosts pull through the same mirrors; undefined = neither is set.
   */
  hostRegistry?: HostRegistryFiles | undefined;
}

/** Just the core's settings out of `source` (a whole Config): the core holds nothing else of it. */
export function coreSettingsOf(source: CoreSettings): CoreSettings {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULT_CORE_SETTINGS) as (keyof CoreSettings)[]) picked[key] = source[key];
  return picked as unknown as CoreSettings;
}

/** How often the host monitor looks for silent hosts: a third of the allowance, 100 ms to 30 s. */
export function hostMonitorIntervalMs(settings: Pick<CoreSettings, 'hostMaxDisconnectionMs'>): number {
  return Math.max(100, Math.min(settings.hostMaxDisconnectionMs / 3, 30_000));
}
