// Test support: Debian's `docker-registry` (distribution 2.8) as a child process on loopback with
// TLS (the test PKI), and htpasswd auth (`htpasswd -B`), token auth (a realm such as
// token-realm.ts; distribution checks the token's x5c chain against the token certificate) or
// none. Two instances may share one storage directory (one to push to with Basic, one to read
// with Bearer). `blobDataPath` finds a blob's file in the storage tree, for tests that corrupt
// it. Stopped with SIGTERM (SIGKILL after a few seconds). Used only by tests.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import type { TestPki } from './test-pki.js';

export type RegistryAuth =
  | { kind: 'none' }
  | { kind: 'htpasswd'; users: Record<string, string> }
  | { kind: 'token'; realm: string; service: string; issuer: string };

export interface RegistryOptions {
  /** Working directory for config, logs and (unless `storageDir`) storage. */
  dir: string;
  pki: TestPki;
  auth: RegistryAuth;
  storageDir?: string;
  /** false: plain HTTP (for registries.conf `insecure = true` endpoints). Default true. */
  tls?: boolean;
}

export interface RunningRegistry {
  /** `127.0.0.1:PORT` */
  host: string;
  port: number;
  storageDir: string;
  logFile: string;
  stop(): Promise<void>;
}

/** The registry answers /v2/ within a second on an idle machine; a loaded one gets 30 s. */
const START_TIMEOUT_MS = 30_000;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startRegistry(options: RegistryOptions): Promise<RunningRegistry> {
  mkdirSync(options.dir, { recursive: true });
  const storageDir = options.storageDir ?? path.join(options.dir, 'storage');
  mkdirSync(storageDir, { recursive: true });
  const port = await freePort();
  const auth = authSection(options);
  const config = [
    'version: 0.1',
    'log:',
    '  level: info',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${storageDir}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: 127.0.0.1:${port}`,
    ...(options.tls === false
      ? []
      : ['  tls:', `    certificate: ${options.pki.certFile}`, `    key: ${options.pki.keyFile}`]),
    ...auth,
    '',
  ].join('\n');
  const configFile = path.join(options.dir, 'config.yml');
  writeFileSync(configFile, config);
  const logFile = path.join(options.dir, 'registry.log');
  const log = openSync(logFile, 'a');
  const child = spawn('docker-registry', ['serve', configFile], { stdio: ['ignore', log, log] });
  const host = `127.0.0.1:${port}`;
  try {
    await waitUntilUp(host, options.pki.caPem, child, options.tls !== false);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return { host, port, storageDir, logFile, stop: () => stopChild(child) };
}

function authSection(options: RegistryOptions): string[] {
  const auth = options.auth;
  switch (auth.kind) {
    case 'none':
      return [];
    case 'htpasswd': {
      const file = path.join(options.dir, 'htpasswd');
      const lines = Object.entries(auth.users).map(([user, password]) =>
        execFileSync('htpasswd', ['-Bbn', user, password], { encoding: 'utf8' }).trim(),
      );
      writeFileSync(file, `${lines.join('\n')}\n`);
      return ['auth:', '  htpasswd:', '    realm: bootsmith-test', `    path: ${file}`];
    }
    case 'token':
      return [
        'auth:',
        '  token:',
        `    realm: ${auth.realm}`,
        `    service: ${auth.service}`,
        `    issuer: ${auth.issuer}`,
        `    rootcertbundle: ${options.pki.tokenCertFile}`,
      ];
  }
}

async function waitUntilUp(host: string, ca: string, child: ChildProcess, tls: boolean): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with ${child.exitCode} before answering`);
    const up = await new Promise<boolean>((resolve) => {
      const get = tls ? https.get : http.get;
      const req = get(`${tls ? 'https' : 'http'}://${host}/v2/`, { ca, agent: false, timeout: 1000 }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`docker-registry did not answer on ${host} within ${START_TIMEOUT_MS / 1000} s`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** The file holding a blob's bytes in distribution's filesystem storage. */
export function blobDataPath(storageDir: string, digest: string): string {
  const hex = digest.replace(/^sha256:/, '');
  return path.join(storageDir, 'docker/registry/v2/blobs/sha256', hex.slice(0, 2), hex, 'data');
}
