// Test support for the image routes' suites (src/http/face/routes/*.test.ts): the image role of the
// real service on loopback, fed by real fixture ISOs and a fake assisted-service upstream
// (remote Ignition source), plus a raw HTTP client that keeps bytes and headers exact.
// Does NOT: mock anything inside the service, or assert anything. Used only by *.test.ts files.
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { PACKAGE_ROOT } from '../../src/package-root.js';
import { createLogger } from '../../src/logger.js';
import { type RunningService, startService } from '../../src/service.js';
import { FakeAssistedService } from './fake-assisted-service.js';

export const ID = '0b0c2f5e-7c8d-4e6f-9a1b-2c3d4e5f6a7b';
export const IGNITION = JSON.stringify({
  ignition: { version: '3.1.0' },
  passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA test'] }] },
});
export const X86_ISO = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 'x86_64.iso');
export const S390X_ISO = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 's390x.iso');
export const MINISO_ISO = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 'x86_64-miniso.iso');

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 16 });

export function request(
  url: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: keepAlive },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** An unsigned JWT-shaped string with the given claims (the image side does not verify it). */
export function fakeJwt(claims: Record<string, unknown>): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.sig`;
}

export interface ImageService {
  service: RunningService;
  upstream: FakeAssistedService;
  base: string;
  /** A scratch directory (DATA_DIR) removed by close(). */
  dir: string;
  close(): Promise<void>;
}

/**
 * The default image list: 4.17 x86_64 and s390x ready, 4.18 x86_64 failing (missing file),
 * 4.16 x86_64 with miniso.dat (minimal ISO). `osImages` replaces it; `env` adds configuration.
 */
export async function startImageService(
  options: { osImages?: unknown[]; upstream?: FakeAssistedService; env?: Record<string, string> } = {},
): Promise<ImageService> {
  const dir = await mkdtemp(path.join(tmpdir(), 'image-routes-'));
  const upstream = options.upstream ?? new FakeAssistedService(ID, IGNITION);
  await upstream.start();
  const osImages = options.osImages ?? [
    { openshift_version: '4.17', cpu_architecture: 'x86_64', url: `file://${X86_ISO}`, version: '417.94.1' },
    { openshift_version: '4.17', cpu_architecture: 's390x', url: S390X_ISO, version: '417.94.1' },
    { openshift_version: '4.18', cpu_architecture: 'x86_64', url: path.join(dir, 'missing.iso'), version: '418.94.1' },
    { openshift_version: '4.16', cpu_architecture: 'x86_64', url: MINISO_ISO, version: '416.94.1' },
  ];
  const config = loadConfig(
    {
      LISTEN_PORT: '0',
      LISTEN_ADDRESS: '127.0.0.1',
      DATA_DIR: dir,
      ASSISTED_SERVICE_URL: upstream.url,
      OS_IMAGES: JSON.stringify(osImages),
      ...options.env,
    },
    ['--role', 'image'],
  );
  let service: RunningService;
  try {
    service = await startService(config, createLogger('silent'), { defaultMetrics: false });
    await service.imagesLoaded;
  } catch (err) {
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    service,
    upstream,
    base: service.url,
    dir,
    async close() {
      await service.close();
      await upstream.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
