// The real service under test: `node dist/src/cli/main.js serve` as a child process, configured
// through the environment as an operator would, with one bootable base image.
//
// `baseUrl` is what the service writes into the URLs it hands out (SERVICE_BASE_URL and
// IMAGE_SERVICE_BASE_URL): the loopback URL for clients on the host (curl, qemu's HTTP block
// driver), `http://10.0.2.2:<port>` for a guest on qemu user networking (slirp maps 10.0.2.2 to
// the host's loopback). The port is chosen before the start so that URL can be configured.
//
// With `tls`, LISTEN_PORT serves HTTPS with the given certificate and HTTP_LISTEN_PORT a plain
// port (`plainUrl`) for what iPXE fetches; the harness's own calls verify against the test CA.
// With `defaults`, nothing else is configured: every address, local auth (API calls carry the
// admin token), base URLs the service derives itself (`baseUrl` is then what it says it uses).
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './paths.js';

export { API_PREFIX as API } from '../../../src/url-grammar.js';
/** The port number in the name of the embedded PostgreSQL's socket (src/platform/db/embedded/server.ts). */
const EMBEDDED_SOCKET_PORT = 5432;
export const OPENSHIFT_VERSION = '4.17';

export interface ServiceOptions {
  name: string;
  cli: string;
  baseIso: string;
  runDir: string;
  /** Base URL for the URLs the service hands out; `port` is substituted. Default: loopback. */
  baseUrl?: (port: number) => string;
  /** More environment (e.g. AUTH_TYPE=local: API calls then carry the admin token). */
  env?: Record<string, string>;
  /** SERVICE_BASE_URL when it differs from `baseUrl` (IMAGE_SERVICE_BASE_URL). */
  serviceBaseUrl?: (port: number) => string;
  /** Native TLS: HTTPS on LISTEN_PORT with this pair, plus a plain HTTP_LISTEN_PORT. */
  tls?: { certFile: string; keyFile: string; caPem: string };
  /** IMAGE_SERVICE_HTTP_BASE_URL (with `tls`); `plainPort` is substituted. */
  httpBaseUrl?: (plainPort: number) => string;
  /** LISTEN_ADDRESS (default 127.0.0.1): another local address, e.g. a veth's for guests in a network namespace. */
  listenAddress?: string;
  /** Only DATA_DIR, LISTEN_PORT and OS_IMAGES: the defaults for everything else. */
  defaults?: boolean;
  /** The base image's cpu_architecture in OS_IMAGES (default x86_64). */
  cpuArchitecture?: string;
}

async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** fetch() as the tests use it, verifying HTTPS against `caPem` (undici's fetch takes no CA per call). */
async function fetchWithCa(url: string, init: RequestInit, caPem: string | undefined): Promise<Response> {
  if (!url.startsWith('https:')) return fetch(url, init);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      { method: init.method ?? 'GET', headers: init.headers as http.OutgoingHttpHeaders, ca: caPem, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
          const status = res.statusCode ?? 0;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, headers }));
        });
      },
    );
    req.on('error', reject);
    req.end(typeof init.body === 'string' ? init.body : undefined);
  });
}

export class BootsmithService {
  private exited: Promise<void>;
  /** Authorization header of API calls (the admin token with AUTH_TYPE=local). */
  private authorization: Record<string, string> = {};
  /** HTTP_LISTEN_PORT's loopback URL (with `tls`). */
  plainUrl: string | undefined;
  /** What the service puts in iPXE URLs (with `tls`). */
  plainBaseUrl: string | undefined;
  /** SERVICE_BASE_URL. */
  serviceBaseUrl: string;
  /** The CA the HTTPS listener's certificate chains to (with `tls`). */
  caPem: string | undefined;
  /** The admin token (AUTH_TYPE=local): what a user types into the console's sign-in. */
  adminToken: string | undefined;

  private constructor(
    readonly name: string,
    /** Loopback URL the tests call. */
    readonly url: string,
    /** What the service puts in the URLs it hands out (with `defaults`: read from its start log). */
    public baseUrl: string,
    readonly logPath: string,
    private readonly child: ChildProcess,
    /** The service's DATA_DIR (its embedded PostgreSQL listens on a socket in postgres/run). */
    readonly dataDir: string,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.serviceBaseUrl = baseUrl;
  }

  static async start(options: ServiceOptions): Promise<BootsmithService> {
    const listenAddress = options.listenAddress ?? '127.0.0.1';
    const port = await freePort(listenAddress);
    const plainPort = options.tls ? await freePort(listenAddress) : undefined;
    const url = `${options.tls ? 'https' : 'http'}://${listenAddress}:${port}`;
    const baseUrl = options.baseUrl ? options.baseUrl(port) : url;
    const serviceBaseUrl = options.serviceBaseUrl ? options.serviceBaseUrl(port) : baseUrl;
    const dataDir = path.join(options.runDir, `${options.name}.data`);
    await mkdir(dataDir, { recursive: true });
    const logPath = path.join(options.runDir, `${options.name}.service.log`);
    const log = createWriteStream(logPath);
    const osImages = JSON.stringify([
      {
        openshift_version: OPENSHIFT_VERSION,
        cpu_architecture: options.cpuArchitecture ?? 'x86_64',
        url: pathToFileURL(options.baseIso).toString(),
        version: '417.94.e2e',
      },
    ]);
    const env: NodeJS.ProcessEnv = options.defaults
      ? {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          LISTEN_PORT: String(port),
          DATA_DIR: dataDir,
          OS_IMAGES: osImages,
        }
      : {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          LISTEN_ADDRESS: listenAddress,
          LISTEN_PORT: String(port),
          DATA_DIR: dataDir,
          SERVICE_BASE_URL: serviceBaseUrl,
          IMAGE_SERVICE_BASE_URL: baseUrl,
          ...(options.tls && plainPort !== undefined
            ? {
                HTTPS_CERT_FILE: options.tls.certFile,
                HTTPS_KEY_FILE: options.tls.keyFile,
                HTTP_LISTEN_PORT: String(plainPort),
                ...(options.httpBaseUrl ? { IMAGE_SERVICE_HTTP_BASE_URL: options.httpBaseUrl(plainPort) } : {}),
              }
            : {}),
          AUTH_TYPE: 'none',
          LOG_LEVEL: 'info',
          OS_IMAGES: osImages,
          ...options.env,
        };
    const child = spawn(process.execPath, [options.cli, 'serve'], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    const service = new BootsmithService(options.name, url, baseUrl, logPath, child, dataDir);
    service.serviceBaseUrl = serviceBaseUrl;
    if (options.tls && plainPort !== undefined) {
      service.caPem = options.tls.caPem;
      service.plainUrl = `http://${listenAddress}:${plainPort}`;
      service.plainBaseUrl = options.httpBaseUrl
        ? options.httpBaseUrl(plainPort)
        : `http://${new URL(serviceBaseUrl).hostname}:${plainPort}`;
    }
    await service.waitHealthy(60_000);
    if (options.defaults) {
      // the URL it hands out, as the "bootsmith listening" log line says
      const listening = /"serviceBaseUrl":"([^"]+)"/.exec(await readFile(logPath, 'utf8'))?.[1];
      if (!listening) throw new Error(`no serviceBaseUrl in the start log:\n${await service.logTail()}`);
      service.baseUrl = listening;
      service.serviceBaseUrl = listening;
    }
    if (env.AUTH_TYPE === 'local' || options.defaults) {
      const admin = (await readFile(path.join(dataDir, 'auth', 'admin-token'), 'utf8')).trim();
      service.authorization = { Authorization: `Bearer ${admin}` };
      service.adminToken = admin;
    }
    return service;
  }

  private async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer';
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null)
        throw new Error(
          `bootsmith (${this.name}) exited with ${this.child.exitCode} at start:\n${await this.logTail()}`,
        );
      try {
        const r = await this.fetch(`${this.url}/health`);
        last = `${r.status} ${await r.text()}`;
        if (r.status === 200) return;
      } catch (err) {
        last = String(err);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(
      `bootsmith (${this.name}) not healthy after ${timeoutMs} ms (last: ${last}):\n${await this.logTail()}`,
    );
  }

  /** The URL as a host-side client reaches it (a guest-facing base URL mapped to loopback). */
  onHost(url: string): string {
    if (this.plainBaseUrl && this.plainUrl && url.startsWith(`${this.plainBaseUrl}/`))
      return this.plainUrl + url.slice(this.plainBaseUrl.length);
    for (const base of [this.baseUrl, this.serviceBaseUrl])
      if (url.startsWith(`${base}/`)) return this.url + url.slice(base.length);
    return url;
  }

  /** fetch(), trusting the test CA for this service's HTTPS listener. */
  fetch(url: string, init: RequestInit = {}): Promise<Response> {
    return fetchWithCa(url, init, this.caPem);
  }

  async call(method: string, p: string, body?: unknown): Promise<Response> {
    return this.fetch(this.url + p, {
      method,
      headers: { ...this.authorization, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  /**
   * Runs one statement on the service's embedded PostgreSQL (its Unix socket and generated
   * password in DATA_DIR/postgres): for states the API cannot produce any more, such as a host
   * installed under a release that accepted install progress for unbound hosts.
   */
  async sql(text: string, params: unknown[] = []): Promise<void> {
    const pg = (await import('pg')).default;
    const home = path.join(this.dataDir, 'postgres');
    const client = new pg.Client({
      host: path.join(home, 'run'),
      port: EMBEDDED_SOCKET_PORT,
      user: 'postgres',
      database: 'postgres',
      password: (await readFile(path.join(home, 'password'), 'utf8')).trim(),
    });
    await client.connect();
    try {
      await client.query(text, params);
    } finally {
      await client.end();
    }
  }

  /** Calls the API and insists on `status`; returns the body as text. */
  async expectCall(method: string, p: string, status: number, body?: unknown): Promise<string> {
    const r = await this.call(method, p, body);
    const text = await r.text();
    if (r.status !== status) throw new Error(`${method} ${p}: expected ${status}, got ${r.status}: ${text}`);
    return text;
  }

  /** One sample of a Prometheus counter (0 when the series does not exist yet). */
  async metric(name: string, labels: Record<string, string>): Promise<number> {
    const text = await (await this.fetch(`${this.url}/metrics`)).text();
    for (const line of text.split('\n')) {
      if (!line.startsWith(`${name}{`)) continue;
      const close = line.lastIndexOf('}');
      const series = Object.fromEntries(
        [...line.slice(name.length + 1, close).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      if (Object.entries(labels).every(([k, v]) => series[k] === v)) return Number(line.slice(close + 1).trim());
    }
    return 0;
  }

  async logTail(lines = 40): Promise<string> {
    try {
      const text = await readFile(this.logPath, 'utf8');
      return `--- last ${lines} lines of ${this.logPath}:\n${text
        .split('\n')
        .slice(-lines - 1)
        .join('\n')}`;
    } catch {
      return `(no service log at ${this.logPath})`;
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const killed = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(killed);
  }
}
