// Test helpers for the core's suites: a fake ImageCatalog and a core behind a real HTTP server on
// port 0, on a throwaway database (src/platform/db/test-support/backends.ts). Used only by
// *.test.ts files.
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import express from 'express';
import pino from 'pino';
import type { CatalogImage, ImageCatalog } from '../../images/catalog/catalog-image.js';
import { normalizeArchitecture } from '../../images/architecture.js';
import type { EventSettings } from '../event-limits.js';
import { CORE_MIGRATIONS } from '../db/migrations.js';
import { createCore, type Core, type CoreOptions } from '../index.js';
import { openMigratedDatabase } from '../../platform/db/migrated-database.js';
import { type CoreEndpoints, type CoreSettings, DEFAULT_CORE_SETTINGS } from '../settings.js';
import { API_BASE, API_PREFIX } from '../../url-grammar.js';

/** Matches DEFAULT_LISTENER_LIMITS.idleTimeoutMs (src/http/transport/listener-limits.ts). */
const HARNESS_IDLE_TIMEOUT_MS = 65_000;

export function fakeCatalog(images: Partial<CatalogImage>[] = [{}]): ImageCatalog {
  const all: CatalogImage[] = images.map((i) => ({
    openshiftVersion: '4.16',
    version: '416.94.202406251923-0',
    cpuArchitecture: 'x86_64',
    embedAreaBytes: 256 * 1024,
    kernelArgumentsBytes: 1000,
    minimalIsoSupported: true,
    state: 'ready',
    ...i,
  }));
  return {
    images: () => all,
    find: (version, arch) => {
      const a = normalizeArchitecture(arch);
      return all.find((i) => i.cpuArchitecture === a && (i.openshiftVersion === version || i.version === version));
    },
  };
}

export interface Harness {
  core: Core;
  baseUrl: string;
  api: string;
  close(): Promise<void>;
}

/**
 * What a suite may change, in one flat object: any core setting (events: only the bounds it
 * names), any endpoint, and the wiring of CoreOptions. The rest: the defaults of
 * DEFAULT_CORE_SETTINGS, with AUTH_TYPE=none and example.test base URLs.
 */
export type CoreOverrides = Partial<Omit<CoreSettings, 'events'> & CoreEndpoints> & {
  events?: Partial<EventSettings>;
} & Partial<Omit<CoreOptions, 'settings' | 'endpoints' | 'db'>>;

export async function startHarness(
  storage: { dataDir: string; databaseUrl?: string },
  overrides: CoreOverrides = {},
): Promise<Harness> {
  const {
    serviceBaseUrl = 'http://api.example.test:8090',
    imageServiceBaseUrl = 'http://img.example.test:8080',
    pxeServiceBaseUrl,
    pxeImageBaseUrl,
    serviceCaCert,
    events,
    catalog = fakeCatalog(),
    logger = pino({ level: 'silent' }),
    onInfraEnvChange,
    now,
    runMonitor,
    monitorIntervalMs,
    eventRetentionIntervalMs,
    ...settings
  } = overrides;
  const coreSettings: CoreSettings = {
    ...DEFAULT_CORE_SETTINGS,
    dataDir: storage.dataDir,
    databaseUrl: storage.databaseUrl,
    authType: 'none',
    ...settings,
    events: { ...DEFAULT_CORE_SETTINGS.events, ...events },
  };
  // The core's tables alone: the service applies every wing's (src/service-database.ts).
  const db = await openMigratedDatabase(
    {
      databaseUrl: coreSettings.databaseUrl,
      dataDir: coreSettings.dataDir,
      logger,
      embeddedPostgresUser: coreSettings.embeddedPostgresUser,
    },
    [CORE_MIGRATIONS],
  );
  const core = await createCore({
    db,
    settings: coreSettings,
    endpoints: { serviceBaseUrl, imageServiceBaseUrl, pxeServiceBaseUrl, pxeImageBaseUrl, serviceCaCert },
    catalog,
    logger,
    onInfraEnvChange,
    now,
    runMonitor,
    monitorIntervalMs,
    eventRetentionIntervalMs,
  });
  const app = express();
  app.use(API_BASE, core.router);
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  // A long idle timeout (the product's HTTP_IDLE_TIMEOUT default) rather than Node's 5 s: a suite
  // that blocks this process (spawnSync of the CLI) would otherwise let the server close an idle
  // keep-alive socket just as fetch reuses it (ECONNRESET). A number, not an import of http/: the
  // core stands beside the image face, never above it.
  server.keepAliveTimeout = HARNESS_IDLE_TIMEOUT_MS;
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    core,
    baseUrl,
    api: `${baseUrl}${API_PREFIX}`,
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      await core.close();
      await db.close();
    },
  };
}

export const PULL_SECRET = JSON.stringify({
  auths: { 'quay.io': { auth: Buffer.from('user:pass').toString('base64'), email: 'u@example.com' } },
});

/** A syntactically valid ed25519 OpenSSH public key (random key bytes). */
export function sshKey(): string {
  const type = Buffer.from('ssh-ed25519');
  const key = randomBytes(32);
  const blob = Buffer.concat([Buffer.from([0, 0, 0, type.length]), type, Buffer.from([0, 0, 0, 32]), key]);
  return `ssh-ed25519 ${blob.toString('base64')} test@example`;
}

export async function http(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json: json as any };
}

/** A realistic agent inventory. */
export function inventory(
  opts: { hostname?: string; cores?: number; ramGiB?: number; diskGB?: number; mac?: string } = {},
) {
  return {
    hostname: opts.hostname ?? 'worker-0.example.com',
    cpu: { count: opts.cores ?? 4, architecture: 'x86_64', model_name: 'Intel Xeon' },
    memory: { physical_bytes: (opts.ramGiB ?? 16) * 1024 ** 3, usable_bytes: (opts.ramGiB ?? 16) * 1024 ** 3 - 1024 },
    disks: [
      {
        name: 'sda',
        path: '/dev/sda',
        drive_type: 'SSD',
        size_bytes: (opts.diskGB ?? 200) * 1000 ** 3,
        installation_eligibility: { eligible: true, not_eligible_reasons: [] },
      },
    ],
    interfaces: [{ name: 'eth0', mac_address: opts.mac ?? '52:54:00:aa:bb:01', ipv4_addresses: ['192.168.122.10/24'] }],
    system_vendor: { manufacturer: 'QEMU', product_name: 'Standard PC', virtual: true },
  };
}
