// What every part of the core is handed: repository, catalog, auth, settings, logger.
//
// One object built by createCore (index.ts) so handlers and services take a single
// argument. Holds no request state.
import type { Logger } from 'pino';
import type { ImageCatalog } from '../images/catalog/catalog-image.js';
import type { Authorizer } from './auth/authorizer.js';
import type { LocalKeys } from './auth/local-keys.js';
import type { UrlTokens } from './auth/url-tokens.js';
import type { Repository } from './db/repository.js';
import type { StaticNetworkConfigEntry } from './model.js';
import type { DiscoveryRenderCache } from './discovery-ignition/render-cache.js';
import type { EventPostLimiter } from './events/post-limits.js';
import type { CoreEndpoints, CoreSettings } from './settings.js';

export interface CoreContext {
  repo: Repository;
  catalog: ImageCatalog;
  authorizer: Authorizer;
  /** Present with AUTH_TYPE=local. */
  keys: LocalKeys | undefined;
  /** Short opaque image-URL tokens (download_url, image-url). */
  urlTokens: UrlTokens;
  /** What the operator configured and the process resolved at start (./settings.ts). */
  settings: CoreSettings & CoreEndpoints;
  /** Rendered discovery Ignition per content (discovery-ignition/render-cache.ts). */
  renders: DiscoveryRenderCache;
  /** Per-host and per-InfraEnv buckets of agent-posted events (events/post-limits.ts). */
  eventLimiter: EventPostLimiter;
  logger: Logger;
  now(): Date;
  /** Called after a change to an InfraEnv (update, delete, key rotation) has committed. */
  onInfraEnvChange(infraEnvId: string): void;
  /**
   * Checks an InfraEnv's new static network config against what else the process knows of its
   * machines (the MACs its BMCs reported: src/bmc/); throws a BadRequestError to refuse it.
   */
  checkStaticNetwork?: (infraEnvId: string, entries: StaticNetworkConfigEntry[] | null) => Promise<void>;
}
