// What every part of the core is handed: repository, catalog, auth, settings, logger.
//
// One object built by createCore (index.ts) so handlers and services take a single
// argument. Holds no request state.
import type { HostRegistryFiles } from './discovery-ignition/discovery.js';
import type { Logger } from 'pino';
import type { ImageCatalog } from '../images/catalog/catalog-image.js';
import type { Authorizer } from './auth/authorizer.js';
import type { LocalKeys } from './auth/local-keys.js';
import type { UrlTokens } from './auth/url-tokens.js';
import type { Repository } from './db/repository.js';
import type { DiscoveryRenderCache } from './discovery-ignition/render-cache.js';
import type { EventSettings } from './events/event-limits.js';
import type { EventPostLimiter } from './events/post-limits.js';

export interface CoreSettings {
  serviceBaseUrl: string;
  imageServiceBaseUrl: string;
  /** Plain-HTTP bases for what iPXE fetches (HTTP_LISTEN_PORT next to HTTPS); default the two above. */
  pxeServiceBaseUrl?: string;
  pxeImageBaseUrl?: string;
  authType: 'none' | 'local';
  hostMaxDisconnectionMs: number;
  agentImage: string;
  /** PEM CA bundle for the agent's --cacert (SERVICE_CA_CERT_FILE); absent = the system's trust. */
  serviceCaCert?: string;
  /** REGISTRIES_CONF_FILE and REGISTRY_CA_FILE for the hosts (discovery-ignition/discovery.ts). */
  hostRegistry?: HostRegistryFiles;
  imageTokenTtlMs: number;
  /** IMAGE_URL_TTL: lifetime of short image-URL tokens (url-tokens.ts). */
  imageUrlTtlMs: number;
  /** Bounds on posted, kept and listed events (events/event-limits.ts). */
  events: EventSettings;
}

export interface CoreContext {
  repo: Repository;
  catalog: ImageCatalog;
  authorizer: Authorizer;
  /** Present with AUTH_TYPE=local. */
  keys: LocalKeys | undefined;
  /** Short opaque image-URL tokens (download_url, image-url). */
  urlTokens: UrlTokens;
  settings: CoreSettings;
  /** Rendered discovery Ignition per content (discovery-ignition/render-cache.ts). */
  renders: DiscoveryRenderCache;
  /** Per-host and per-InfraEnv buckets of agent-posted events (events/post-limits.ts). */
  eventLimiter: EventPostLimiter;
  logger: Logger;
  now(): Date;
  /** Called after a change to an InfraEnv (update, delete, key rotation) has committed. */
  onInfraEnvChange(infraEnvId: string): void;
}
