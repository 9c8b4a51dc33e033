// Reads bootsmith's configuration from the environment (and the --role flag), with the
// same variable names as assisted-image-service / assisted-service where they exist.
// Every value has an embedded default so `npm start` works on a fresh machine, and the
// defaults are safe beyond loopback: AUTH_TYPE=local (an admin token in DATA_DIR/auth), base
// URLs derived from the host's routable address (src/startup/), DATA_DIR ./data of the
// directory the service is started in (`npm start` runs in the checkout).
//
// Invalid values stop the process with a message naming the variable; invalid OS image
// entries do not (they are reported and skipped, see images/os-images-config.ts).
//
// Where a default lives: a layer with settings of its own declares them, with their defaults, in
// one settings module (core/settings.ts, core/event-limits.ts, images/store-settings.ts,
// http/listener-limits.ts, http/request-cap.ts, http/drain.ts); this file reads the environment
// and composes them, and holds the defaults of the process-wide rest. Nothing downstream applies
// a default again. `Config` extends the core's settings, so the core is handed the Config itself.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseDuration } from './duration.js';
import { describeError } from './errors.js';
import { DEMO_IMAGE_PATH } from './package-root.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from './http/transport/drain.js';
import { DEFAULT_LISTENER_LIMITS, type ListenerLimits } from './http/transport/listener-limits.js';
import { DEFAULT_REQUEST_CAP, type RequestCapSettings } from './http/face/request-cap.js';
import type { EmbedCompression } from './initrd/embed-archive.js';
import { BODY_IO_MODES, type BodyIoMode, DEFAULT_BODY_IO } from './kernel-io/body-io-mode.js';
import type { PlainHttpRoutes } from './http/face/plain-route-policy.js';
import type { TlsMinVersion } from './http/transport/tls/tls-material.js';
import { type OsImagesConfig, osImagesFromEnvironment } from './images/os-images-config.js';
import {
  byteSizeFrom,
  type ImageStoreSettings,
  ImageSettingsError,
  imageStoreSettingsFromEnvironment,
} from './images/store-settings.js';
import { type EventSettings, parseEventRateLimits } from './core/event-limits.js';
import { type CoreSettings, DEFAULT_CORE_SETTINGS } from './core/settings.js';
import { type BmcSettings, DEFAULT_BMC_SETTINGS } from './bmc/settings.js';
import { type PxeSettings, PxeSettingsError, parsePxeSettings } from './pxe/pxe-settings.js';
import { type FrontDoorSettings, frontDoorSettingsOf } from './front-door/front-door-settings.js';

export { parseDuration };

export type Role = 'all' | 'image' | 'core';

/** Every setting; the core's (dataDir, databaseUrl, authType, events, …) are declared in CoreSettings. */
export interface Config extends CoreSettings, BmcSettings, FrontDoorSettings {
  role: Role;
  listenAddress: string;
  listenPort: number;
  osImages: OsImagesConfig;
  /** True when OS_IMAGES was not set and the bundled demo fixture is served. */
  usingDemoImage: boolean;
  /** Downloads, disk budget, source credentials (src/images/store-settings.ts). */
  imageStore: ImageStoreSettings;
  /** ProxyDHCP and TFTP (src/pxe/pxe-settings.ts); PXE_INTERFACE unset = off. */
  pxe: PxeSettings;
  /** IMAGE_SERVICE_BASE_URL; undefined = the URL this process listens on (known after listen). */
  imageServiceBaseUrl: string | undefined;
  /** SERVICE_BASE_URL; undefined = the URL this process listens on (known after listen). */
  serviceBaseUrl: string | undefined;
  /** Remote assisted-service for Ignition lookups; undefined = in-process core. */
  assistedServiceUrl: string | undefined;
  /**
   * IMAGE_REPLICA_KEY_FILE: the key a core and the `--role image` replicas fronting it share; the
   * replicas sign their reports of BMC job URL reads with it (src/image-ports/remote/replica-proof.ts).
   */
  imageReplicaKeyFile: string | undefined;
  ignitionCacheTtlMs: number;
  embedCompression: EmbedCompression;
  logLevel: string;
  /** Timeouts and connection caps of the HTTP listener (src/http/transport/listener-limits.ts). */
  listener: ListenerLimits;
  /** SERVICE_CA_CERT_FILE: the CA the discovery agent trusts for SERVICE_BASE_URL (upstream SERVICE_CA_CERT_PATH). */
  serviceCaCertFile: string | undefined;
  /** MAX_CONCURRENT_REQUESTS: artifact requests in flight before 503 (src/http/face/request-cap.ts). */
  maxConcurrentRequests: number;
  /**
   * The fair share of those slots (src/http/face/request-cap.ts): MAX_CONCURRENT_REQUESTS_PER_ADDRESS,
   * ARTIFACT_MIN_PROGRESS_BYTES, ARTIFACT_MIN_PROGRESS_TIME.
   */
  artifactSlots: Omit<RequestCapSettings, 'max'>;
  /** HTTPS_CERT_FILE + HTTPS_KEY_FILE: LISTEN_PORT serves HTTPS; undefined = plain HTTP only. */
  tls: TlsConfig | undefined;
  /** IMAGE_SERVICE_HTTP_BASE_URL: plain-HTTP base for iPXE scripts and PXE artifacts; undefined = derived. */
  imageServiceHttpBaseUrl: string | undefined;
  /** SHUTDOWN_GRACE_SECONDS: how long streams in flight may run after SIGTERM (src/http/transport/drain.ts). */
  shutdownGraceMs: number;
  /**
   * HTTP_BODY_IO: how artifact bodies are read and sent (src/kernel-io/). `auto`: with the kernel
   * I/O addon, pages already cached are read on the event loop (no hand-off to libuv's pool), then
   * written; `sendfile`: as auto, and file bytes go to plain-HTTP sockets by sendfile(2) (one copy
   * fewer in this process; see docs/operator/performance.md for what it trades); `portable`: every
   * read on libuv's pool, without the addon.
   */
  bodyIo: BodyIoMode;
}

/** Native TLS (src/http/transport/tls/, src/http/face/plain-route-policy.ts). */
export interface TlsConfig {
  certFile: string;
  keyFile: string;
  /** TLS_MIN_VERSION */
  minVersion: TlsMinVersion;
  /** HTTP_LISTEN_PORT: a second, plain-HTTP listener; undefined = none. */
  httpListenPort: number | undefined;
  /** HTTP_ROUTES: what the plain listener serves (src/http/face/plain-route-policy.ts). */
  httpRoutes: PlainHttpRoutes;
}

export class ConfigError extends Error {}

/** A day: longer than any stream could reasonably need; a bigger value is a typo. */
const MAX_SHUTDOWN_GRACE_SECONDS = 86_400;

/**
 * DATA_DIR's default, relative to the working directory: `npm start` runs in the checkout, so it
 * is the checkout's ./data; an installed binary keeps its data where it is started, not inside
 * node_modules.
 */
export const DEFAULT_DATA_DIR = DEFAULT_CORE_SETTINGS.dataDir;

export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = []): Config {
  const core = DEFAULT_CORE_SETTINGS;
  const role = roleFrom(argv, env);
  const listenPort = integer(env, 'LISTEN_PORT', 8080, 0, 65535);
  const listenAddress = env.LISTEN_ADDRESS || '0.0.0.0';
  const configured = osImagesOf(env);
  const assistedServiceUrl = assistedServiceUrlFrom(env);
  if (role === 'image' && !assistedServiceUrl) {
    throw new ConfigError(
      '--role image needs ASSISTED_SERVICE_URL (or ASSISTED_SERVICE_SCHEME and ASSISTED_SERVICE_HOST) to fetch Ignition from',
    );
  }
  return {
    role,
    listenAddress,
    listenPort,
    dataDir: path.resolve(env.DATA_DIR || DEFAULT_DATA_DIR),
    osImages: configured ?? demoImages(),
    usingDemoImage: configured === undefined,
    imageStore: imageStoreSettings(env, role !== 'image' && !env.DATABASE_URL),
    pxe: pxeSettings(env, role),
    imageServiceBaseUrl: optionalBaseUrl(env, 'IMAGE_SERVICE_BASE_URL'),
    serviceBaseUrl: optionalBaseUrl(env, 'SERVICE_BASE_URL'),
    assistedServiceUrl,
    imageReplicaKeyFile: env.IMAGE_REPLICA_KEY_FILE || undefined,
    ignitionCacheTtlMs: integer(env, 'IGNITION_CACHE_TTL_SECONDS', 60, 0, 86_400) * 1000,
    embedCompression: oneOf(env, 'EMBED_COMPRESSION', ['gzip', 'xz'] as const, 'gzip'),
    authType: oneOf(env, 'AUTH_TYPE', ['none', 'local'] as const, core.authType),
    databaseUrl: env.DATABASE_URL || core.databaseUrl,
    hostMaxDisconnectionMs: duration(env, 'HOST_MAX_DISCONNECTION_TIME', core.hostMaxDisconnectionMs),
    adminTokenTtlMs: env.ADMIN_TOKEN_TTL ? duration(env, 'ADMIN_TOKEN_TTL', 0) : core.adminTokenTtlMs,
    logLevel: env.LOG_LEVEL || 'info',
    listener: listenerLimits(env),
    agentImage: env.AGENT_DOCKER_IMAGE || core.agentImage,
    serviceCaCertFile: env.SERVICE_CA_CERT_FILE || undefined,
    embeddedPostgresUser: env.EMBEDDED_POSTGRES_USER || core.embeddedPostgresUser,
    maxConcurrentRequests: integer(env, 'MAX_CONCURRENT_REQUESTS', DEFAULT_REQUEST_CAP.max, 1, 1_000_000),
    artifactSlots: artifactSlots(env),
    imageTokenTtlMs: core.imageTokenTtlMs, // no variable yet: upstream's IMAGE_EXPIRATION_TIME default
    imageUrlTtlMs: imageUrlTtl(env),
    tls: tlsConfig(env, listenPort),
    imageServiceHttpBaseUrl: optionalBaseUrl(env, 'IMAGE_SERVICE_HTTP_BASE_URL'),
    shutdownGraceMs:
      integer(env, 'SHUTDOWN_GRACE_SECONDS', DEFAULT_SHUTDOWN_GRACE_MS / 1000, 0, MAX_SHUTDOWN_GRACE_SECONDS) * 1000,
    events: eventSettings(env),
    bodyIo: oneOf(env, 'HTTP_BODY_IO', BODY_IO_MODES, DEFAULT_BODY_IO),
    ...bmcSettings(env),
    ...frontDoorSettings(env),
  };
}

function frontDoorSettings(env: NodeJS.ProcessEnv): FrontDoorSettings {
  try {
    return frontDoorSettingsOf(env, parseDuration);
  } catch (err) {
    throw new ConfigError(describeError(err));
  }
}

/** The longest a followed boot step may be given: a day (a longer one is a typo). */
const MAX_BMC_STEP_TIMEOUT_MS = 24 * 3_600_000;

function bmcSettings(env: NodeJS.ProcessEnv): BmcSettings {
  const d = DEFAULT_BMC_SETTINGS;
  const stepTimeout = (name: string, fallback: number): number => {
    const value = duration(env, name, fallback);
    if (value > MAX_BMC_STEP_TIMEOUT_MS)
      throw new ConfigError(`${name} must be at most 24h, not ${JSON.stringify(env[name])}`);
    return value;
  };
  const leaseMs = duration(env, 'BMC_JOB_LEASE', d.bmcJobLeaseMs);
  if (leaseMs < 3_000 || leaseMs > 600_000)
    throw new ConfigError(`BMC_JOB_LEASE must be from 3s to 10m, not ${JSON.stringify(env.BMC_JOB_LEASE)}`);
  return {
    bmcCredentialsKeyFile: env.BMC_CREDENTIALS_KEY_FILE
      ? path.resolve(env.BMC_CREDENTIALS_KEY_FILE)
      : d.bmcCredentialsKeyFile,
    bmcIsoReadTimeoutMs: stepTimeout('BMC_ISO_READ_TIMEOUT', d.bmcIsoReadTimeoutMs),
    bmcBootTimeoutMs: stepTimeout('BMC_BOOT_TIMEOUT', d.bmcBootTimeoutMs),
    bmcRegisterTimeoutMs: stepTimeout('BMC_REGISTER_TIMEOUT', d.bmcRegisterTimeoutMs),
    bmcJobsMaxRunning: integer(env, 'BMC_JOBS_MAX_RUNNING', d.bmcJobsMaxRunning, 1, 10_000),
    bmcJobLeaseMs: leaseMs,
    bmcConnectTimeoutMs: callClock(env, 'BMC_CONNECT_TIMEOUT', d.bmcConnectTimeoutMs, 120_000),
    bmcTlsTimeoutMs: callClock(env, 'BMC_TLS_TIMEOUT', d.bmcTlsTimeoutMs, 120_000),
    bmcReadTimeoutMs: callClock(env, 'BMC_READ_TIMEOUT', d.bmcReadTimeoutMs, 600_000),
  };
}

/** One clock of a Redfish call: from 1 s (a BMC is slower than that) to `max`. */
function callClock(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const value = duration(env, name, fallback);
  if (value < 1_000 || value > max)
    throw new ConfigError(`${name} must be from 1s to ${max / 60_000}m, not ${JSON.stringify(env[name])}`);
  return value;
}

/** A million a minute per key is already no limit; beyond is a typo. */
const MAX_EVENTS_PER_MINUTE = 1_000_000;

function eventSettings(env: NodeJS.ProcessEnv): EventSettings {
  const d = DEFAULT_CORE_SETTINGS.events;
  let nameIntervalsMs: Record<string, number>;
  try {
    nameIntervalsMs = parseEventRateLimits(env.EVENT_RATE_LIMITS, parseDuration);
  } catch (err) {
    throw new ConfigError(describeError(err));
  }
  return {
    perHostPerMinute: integer(env, 'EVENTS_PER_HOST_PER_MINUTE', d.perHostPerMinute, 1, MAX_EVENTS_PER_MINUTE),
    perInfraEnvPerMinute: integer(
      env,
      'EVENTS_PER_INFRA_ENV_PER_MINUTE',
      d.perInfraEnvPerMinute,
      1,
      MAX_EVENTS_PER_MINUTE,
    ),
    bytesPerHostPerMinute: byteSize(env, 'EVENT_BYTES_PER_HOST_PER_MINUTE', d.bytesPerHostPerMinute),
    bytesPerInfraEnvPerMinute: byteSize(env, 'EVENT_BYTES_PER_INFRA_ENV_PER_MINUTE', d.bytesPerInfraEnvPerMinute),
    nameIntervalsMs,
    maxAgeMs: duration(env, 'EVENTS_MAX_AGE', d.maxAgeMs),
    maxPerInfraEnv: integer(env, 'EVENTS_MAX_PER_INFRA_ENV', d.maxPerInfraEnv, 1, 100_000_000),
    maxTotal: integer(env, 'EVENTS_MAX_TOTAL', d.maxTotal, 1, 1_000_000_000),
    maxPage: integer(env, 'EVENTS_MAX_PAGE', d.maxPage, 1, 100_000),
  };
}

/** A byte count with the IMAGE_CACHE_MAX_BYTES syntax (`512Ki`, `8Mi`, `1000000`), at least 1. */
function byteSize(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let value: number | undefined;
  try {
    value = byteSizeFrom(raw);
  } catch {
    value = undefined;
  }
  if (value === undefined || value < 1)
    throw new ConfigError(`${name} must be a byte count such as 524288, 512Ki or 8Mi, not ${JSON.stringify(raw)}`);
  return value;
}

/** Short image-URL lifetime: at least a minute (a BMC mounts within it), at most 30 days. */
const MIN_IMAGE_URL_TTL_MS = 60_000;
const MAX_IMAGE_URL_TTL_MS = 30 * 24 * 3_600_000;

/** IMAGE_URL_TTL: whole seconds (`14400`) or a Go duration (`4h`, `90m`). */
function imageUrlTtl(env: NodeJS.ProcessEnv): number {
  const raw = env.IMAGE_URL_TTL;
  if (raw === undefined || raw === '') return DEFAULT_CORE_SETTINGS.imageUrlTtlMs;
  const value = /^\d+$/.test(raw) ? Number(raw) * 1000 : parseDuration(raw);
  if (value === undefined || value < MIN_IMAGE_URL_TTL_MS || value > MAX_IMAGE_URL_TTL_MS)
    throw new ConfigError(
      `IMAGE_URL_TTL must be seconds or a duration such as 4h or 90m, from 1m to 720h, not ${JSON.stringify(raw)}`,
    );
  return value;
}

function tlsConfig(env: NodeJS.ProcessEnv, listenPort: number): TlsConfig | undefined {
  const certFile = env.HTTPS_CERT_FILE || undefined;
  const keyFile = env.HTTPS_KEY_FILE || undefined;
  const minVersion = oneOf(env, 'TLS_MIN_VERSION', ['TLSv1.2', 'TLSv1.3'] as const, 'TLSv1.2');
  const httpRoutes = oneOf(env, 'HTTP_ROUTES', ['ipxe', 'all'] as const, 'ipxe');
  const httpListenPort = env.HTTP_LISTEN_PORT ? integer(env, 'HTTP_LISTEN_PORT', 0, 0, 65535) : undefined;
  if (!certFile !== !keyFile) {
    throw new ConfigError(
      `HTTPS_CERT_FILE and HTTPS_KEY_FILE go together: ${certFile ? 'HTTPS_KEY_FILE' : 'HTTPS_CERT_FILE'} is not set`,
    );
  }
  if (!certFile || !keyFile) {
    if (httpListenPort !== undefined)
      throw new ConfigError(
        'HTTP_LISTEN_PORT adds a plain-HTTP port next to HTTPS: set HTTPS_CERT_FILE and HTTPS_KEY_FILE too (without them LISTEN_PORT already serves plain HTTP)',
      );
    return undefined;
  }
  if (httpListenPort !== undefined && httpListenPort !== 0 && httpListenPort === listenPort)
    throw new ConfigError(`HTTP_LISTEN_PORT must differ from LISTEN_PORT (${listenPort})`);
  return { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile), minVersion, httpListenPort, httpRoutes };
}

function listenerLimits(env: NodeJS.ProcessEnv): ListenerLimits {
  const d = DEFAULT_LISTENER_LIMITS;
  const maxConnections = env.HTTP_MAX_CONNECTIONS ? integer(env, 'HTTP_MAX_CONNECTIONS', 0, 1, 1_000_000) : undefined;
  return {
    headerTimeoutMs: duration(env, 'HTTP_HEADER_TIMEOUT', d.headerTimeoutMs),
    bodyTimeoutMs: duration(env, 'HTTP_BODY_TIMEOUT', d.bodyTimeoutMs),
    idleTimeoutMs: duration(env, 'HTTP_IDLE_TIMEOUT', d.idleTimeoutMs),
    sendTimeoutMs: duration(env, 'HTTP_SEND_TIMEOUT', d.sendTimeoutMs),
    maxIdlePerAddress: integer(env, 'HTTP_MAX_IDLE_PER_ADDRESS', d.maxIdlePerAddress, 1, 100_000),
    maxConnections,
  };
}

/** Above a GiB per window the rule would cut every real client: a typo. */
const MAX_MIN_PROGRESS_BYTES = 2 ** 30;

function artifactSlots(env: NodeJS.ProcessEnv): Config['artifactSlots'] {
  const d = DEFAULT_REQUEST_CAP;
  return {
    perAddress: integer(env, 'MAX_CONCURRENT_REQUESTS_PER_ADDRESS', d.perAddress, 1, 1_000_000),
    minProgressBytes: integer(env, 'ARTIFACT_MIN_PROGRESS_BYTES', d.minProgressBytes, 0, MAX_MIN_PROGRESS_BYTES),
    minProgressWindowMs: duration(env, 'ARTIFACT_MIN_PROGRESS_TIME', d.minProgressWindowMs),
  };
}

/** `embeddedDatabase`: the embedded PostgreSQL shares DATA_DIR with the image cache (its disk reserve). */
function imageStoreSettings(env: NodeJS.ProcessEnv, embeddedDatabase: boolean): ImageStoreSettings {
  try {
    return imageStoreSettingsFromEnvironment(env, { embeddedDatabase });
  } catch (err) {
    if (err instanceof ImageSettingsError) throw new ConfigError(err.message);
    throw err;
  }
}

/** The PXE wing runs where the core does (src/assembly/wings.ts): `--role image` refuses PXE_INTERFACE. */
function pxeSettings(env: NodeJS.ProcessEnv, role: Role): PxeSettings {
  try {
    const settings = parsePxeSettings(env);
    if (role === 'image' && settings.pxeInterface !== undefined)
      throw new ConfigError(
        'PXE_INTERFACE is set, but --role image runs no PXE wing: set it on the --role core or --role all process, which knows the InfraEnvs',
      );
    return settings;
  } catch (err) {
    if (err instanceof PxeSettingsError) throw new ConfigError(err.message);
    throw err;
  }
}

function osImagesOf(env: NodeJS.ProcessEnv): OsImagesConfig | undefined {
  try {
    return osImagesFromEnvironment(env);
  } catch (err) {
    if (err instanceof ImageSettingsError) throw new ConfigError(err.message);
    throw err;
  }
}

function roleFrom(argv: readonly string[], env: NodeJS.ProcessEnv): Role {
  const index = argv.findIndex((a) => a === '--role' || a.startsWith('--role='));
  let value = env.BOOTSMITH_ROLE || 'all';
  if (index >= 0) {
    const arg = argv[index]!;
    value = arg.includes('=') ? arg.slice('--role='.length) : (argv[index + 1] ?? '');
  }
  if (value === 'all' || value === 'image' || value === 'core') return value;
  throw new ConfigError(`--role must be all, image or core, not ${JSON.stringify(value)}`);
}

function assistedServiceUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
  if (env.ASSISTED_SERVICE_URL) return optionalBaseUrl(env, 'ASSISTED_SERVICE_URL');
  if (env.ASSISTED_SERVICE_HOST) {
    const scheme = env.ASSISTED_SERVICE_SCHEME || 'http';
    if (scheme !== 'http' && scheme !== 'https')
      throw new ConfigError(`ASSISTED_SERVICE_SCHEME must be http or https, not ${JSON.stringify(scheme)}`);
    return checkedUrl(`${scheme}://${env.ASSISTED_SERVICE_HOST}`, 'ASSISTED_SERVICE_HOST');
  }
  return undefined;
}

function demoImages(): OsImagesConfig {
  // The production container image leaves the demo ISO out (Dockerfile, DEMO=0): say what to set.
  if (!existsSync(DEMO_IMAGE_PATH)) {
    return {
      entries: [],
      problems: [
        `OS_IMAGES is not set and the demo image ${DEMO_IMAGE_PATH} is not installed: set OS_IMAGES or OS_IMAGES_FILE`,
      ],
    };
  }
  return {
    entries: [
      {
        openshiftVersion: '4.17',
        version: '417.94.202410090854-0',
        cpuArchitecture: 'x86_64',
        url: pathToFileURL(DEMO_IMAGE_PATH).toString(),
        type: 'full-iso',
      },
    ],
    problems: [],
  };
}

function optionalBaseUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value ? checkedUrl(value, name).replace(/\/+$/, '') : undefined;
}

function checkedUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must use http or https`);
  return value;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  }
  return value;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, not ${JSON.stringify(raw)}`);
}

function duration(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = parseDuration(raw);
  if (value === undefined || value <= 0)
    throw new ConfigError(`${name} must be a duration such as 3m or 90s, not ${JSON.stringify(raw)}`);
  return value;
}
