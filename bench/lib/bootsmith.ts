// One bootsmith process under test, started from the built CLI exactly as it is deployed
// (`node dist/src/cli/main.js serve`, configuration in the environment), plus the few API
// calls the workloads need (InfraEnvs, host registration) and a /metrics reader.
import { mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { cpuSeconds, sleep, start, type Started, stop } from './proc.js';

const API = '/api/assisted-install/v2';
/** MAX_CONCURRENT_REQUESTS's default (docs/operator/configuration.md). */
const MAX_CONCURRENT_REQUESTS_DEFAULT = 400;
export const PULL_SECRET = JSON.stringify({
  auths: { 'quay.io': { auth: Buffer.from('bench:bench').toString('base64'), email: 'bench@example.com' } },
});
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bench@bootsmith';

export interface BootsmithOptions {
  /** dist/src/cli/main.js of the build under test. */
  serviceMain: string;
  dataDir: string;
  isoPath: string;
  logFile: string;
  role?: 'all' | 'image' | 'core';
  /** Extra environment (ASSISTED_SERVICE_URL, DATABASE_URL, IGNITION_CACHE_TTL_SECONDS, ...). */
  env?: Record<string, string>;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /**
   * Native TLS: LISTEN_PORT serves HTTPS with this pair (`url` is https://); the bench's own
   * calls (health, API, metrics) go to a plain HTTP_LISTEN_PORT with HTTP_ROUTES=all (`controlUrl`).
   */
  tls?: { certFile: string; keyFile: string };
  /** SERVICE_BASE_URL from the port (default: `url`), e.g. `https://10.0.2.2:<port>` for qemu guests' agents. */
  serviceBaseUrl?: (port: number) => string;
  /** IMAGE_SERVICE_HTTP_BASE_URL from the plain port (with `tls`). */
  httpBaseUrl?: (plainPort: number) => string;
}

export interface InfraEnv {
  id: string;
  downloadUrl: string;
}

/** A free loopback TCP port (asked from the kernel, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export class Bootsmith {
  private constructor(
    readonly process: Started,
    readonly url: string,
    readonly options: BootsmithOptions,
    /** Where the bench's own calls go: `url`, or the plain port with `tls`. */
    readonly controlUrl: string = url,
  ) {}

  /** The admin token with AUTH_TYPE=local (read from DATA_DIR/auth/admin-token once it is ready). */
  adminToken: string | undefined;

  private authHeaders(): Record<string, string> {
    return this.adminToken ? { Authorization: `Bearer ${this.adminToken}` } : {};
  }

  get pid(): number {
    return this.process.pid;
  }

  static async start(options: BootsmithOptions): Promise<Bootsmith> {
    mkdirSync(options.dataDir, { recursive: true });
    const port = await freePort();
    const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
    const plainPort = options.tls ? await freePort() : undefined;
    const controlUrl = plainPort === undefined ? url : `http://127.0.0.1:${plainPort}`;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LISTEN_PORT: String(port),
      LISTEN_ADDRESS: '127.0.0.1',
      DATA_DIR: options.dataDir,
      AUTH_TYPE: 'none',
      // The load generators (wrk, curl) are one client address, 127.0.0.1: the default share of
      // one address (32 artifact requests in flight) would refuse most of a 64-connection storm,
      // which is a test of that cap, not of serving. The documented setting for one address that
      // stands for many (a balancer): the global cap, here its default.
      MAX_CONCURRENT_REQUESTS_PER_ADDRESS: String(MAX_CONCURRENT_REQUESTS_DEFAULT),
      IMAGE_SERVICE_BASE_URL: url,
      SERVICE_BASE_URL: options.serviceBaseUrl ? options.serviceBaseUrl(port) : url,
      OS_IMAGES: JSON.stringify([
        {
          openshift_version: '4.17',
          cpu_architecture: 'x86_64',
          url: pathToFileURL(options.isoPath).toString(),
          version: '417.94.1',
        },
      ]),
      ...(options.tls
        ? {
            HTTPS_CERT_FILE: options.tls.certFile,
            HTTPS_KEY_FILE: options.tls.keyFile,
            HTTP_LISTEN_PORT: String(plainPort),
            HTTP_ROUTES: 'all',
            ...(options.httpBaseUrl ? { IMAGE_SERVICE_HTTP_BASE_URL: options.httpBaseUrl(plainPort!) } : {}),
          }
        : {}),
      ...options.env,
    };
    const args = [
      ...(options.nodeArgs ?? []),
      options.serviceMain,
      'serve',
      ...(options.role ? ['--role', options.role] : []),
    ];
    const proc = start('bootsmith', process.execPath, args, { env, log: options.logFile });
    const service = new Bootsmith(proc, url, options, controlUrl);
    const deadline = Date.now() + 180_000;
    for (;;) {
      const exited = await Promise.race([proc.exited.then(() => true), sleep(200).then(() => false)]);
      if (exited) throw new Error(`bootsmith exited during start-up; see ${options.logFile}`);
      try {
        const r = await fetch(`${controlUrl}/health`);
        if (r.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        await stop(proc);
        throw new Error(`bootsmith did not become ready within 180 s; see ${options.logFile}`);
      }
    }
    if (env.AUTH_TYPE === 'local')
      service.adminToken = readFileSync(`${options.dataDir}/auth/admin-token`, 'utf8').trim();
    return service;
  }

  async stop(): Promise<void> {
    await stop(this.process, 'SIGTERM', 15_000);
  }

  cpuSeconds(): number {
    return cpuSeconds(this.pid);
  }

  async api<T>(method: string, path: string, body?: unknown, prefix: string = API): Promise<T> {
    const r = await fetch(this.controlUrl + prefix + path, {
      method,
      headers: { ...this.authHeaders(), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async createInfraEnv(name: string): Promise<InfraEnv> {
    const created = await this.api<{ id: string; download_url: string }>('POST', '/infra-envs', {
      name,
      pull_secret: PULL_SECRET,
      ssh_authorized_key: SSH_KEY,
      openshift_version: '4.17',
      cpu_architecture: 'x86_64',
      image_type: 'full-iso',
    });
    return { id: created.id, downloadUrl: created.download_url };
  }

  /** Registers a host as its agent does: with the InfraEnv's agent key as X-Secret-Key when given, else as the admin. */
  async registerHost(infraEnvId: string, hostId: string, agentKey?: string): Promise<void> {
    const r = await fetch(`${this.controlUrl}${API}/infra-envs/${infraEnvId}/hosts`, {
      method: 'POST',
      headers: {
        ...(agentKey === undefined ? this.authHeaders() : { 'X-Secret-Key': agentKey }),
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ host_id: hostId, discovery_agent_version: 'bench' }),
    });
    if (r.status >= 300) throw new Error(`registering host ${hostId}: ${r.status} ${(await r.text()).slice(0, 300)}`);
    await r.arrayBuffer();
  }

  /** Sum of the samples of `name` whose labels contain every given label pair. */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    const text = await (await fetch(`${this.controlUrl}/metrics`, { headers: this.authHeaders() })).text();
    return sumMetric(text, name, labels);
  }
}

export function sumMetric(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const labelText = m[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) total += Number(m[3]);
  }
  return total;
}
