// Native TLS end to end, in process: the all-in-one service with HTTPS_CERT_FILE/HTTPS_KEY_FILE
// and HTTP_LISTEN_PORT, spoken to over real loopback sockets and verified against a CA made
// with openssl. LISTEN_PORT speaks HTTPS (HTTP/1.1, keep-alive); the URLs handed out are https://
// for ISOs and the plain port for everything iPXE fetches, which the plain port serves while
// refusing the rest with the HTTPS URL. Certificates are rotated by replacing the files under the
// running server: new connections see the new fingerprint, a download in flight across the swap
// finishes intact on the old one, bad pairs (garbage, key of another certificate) keep the old
// certificate and are logged without key material, and SIGHUP reloads too.
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, rename, rm, truncate, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config.js';
import { PACKAGE_ROOT } from '../../../package-root.js';
import { embeddedBackend } from '../../../platform/db/test-support/backends.js';
import { createLogger } from '../../../logger.js';
import { type RunningService, startService } from '../../../service.js';
import { HAVE_OPENSSL } from '../../../../test/support/probes.js';
import { unavailable } from '../../../../test/support/requirements.js';
import { makeCa, makeLeaf, type TestCa, type TestLeaf } from './test-support/certificates.js';

const missing = unavailable({ openssl: HAVE_OPENSSL });
const API = '/api/assisted-install/v2';
const FIXTURE_ISO = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 'x86_64.iso');
/** Far more than loopback socket buffers hold, so a paused download stays in flight. */
const BIG_ISO_BYTES = 48 * 1024 * 1024;
/** Upper bound for a reload to show (watch + 250 ms debounce, or the 5 s poll); never a timing assertion. */
const RELOAD_BOUND_MS = 20_000;
const PULL_SECRET = JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from('user:pass').toString('base64') } } });

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  fingerprint256?: string;
  alpn?: string | false | null;
  reused: boolean;
}

function call(
  url: string,
  options: { ca?: string; agent?: http.Agent; method?: string; body?: unknown } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const secure = url.startsWith('https:');
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = (secure ? https : http).request(
      url,
      {
        method: options.method ?? 'GET',
        ...(secure ? { ca: options.ca, ALPNProtocols: ['h2', 'http/1.1'] } : {}),
        ...(options.agent ? { agent: options.agent } : { agent: false }),
        headers: body ? { 'Content-Type': 'application/json' } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        const socket = res.socket as TLSSocket;
        const peer = secure
          ? { fingerprint256: socket.getPeerCertificate().fingerprint256, alpn: socket.alpnProtocol }
          : {};
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            reused: req.reusedSocket,
            ...peer,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + RELOAD_BOUND_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${RELOAD_BOUND_MS} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(missing)('native TLS, all-in-one service', () => {
  let dir: string;
  let ca: TestCa;
  let leaves: Record<'first' | 'second' | 'third', TestLeaf>;
  let certFile: string;
  let keyFile: string;
  let service: RunningService;
  let cleanup: () => Promise<void>;
  const logs: string[] = [];

  /** Replaces a file the way cert-manager and most tools do: write aside, rename over. */
  async function replace(file: string, content: string): Promise<void> {
    const aside = `${file}.tmp-${Math.random().toString(36).slice(2)}`;
    await writeFile(aside, content);
    await rename(aside, file);
  }
  const fingerprintOfNewConnection = async () => (await call(`${service.url}/live`, { ca: ca.certPem })).fingerprint256;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'native-tls-'));
    ca = makeCa(dir);
    leaves = {
      first: makeLeaf(dir, ca, 'first'),
      second: makeLeaf(dir, ca, 'second'),
      third: makeLeaf(dir, ca, 'third'),
    };
    const tlsDir = path.join(dir, 'tls');
    await (await import('node:fs/promises')).mkdir(tlsDir);
    certFile = path.join(tlsDir, 'tls.crt');
    keyFile = path.join(tlsDir, 'tls.key');
    await copyFile(leaves.first.certFile, certFile);
    await copyFile(leaves.first.keyFile, keyFile);
    const iso = path.join(dir, 'big.iso');
    await copyFile(FIXTURE_ISO, iso);
    await truncate(iso, BIG_ISO_BYTES); // sparse tail after the fixture's volume
    const storage = await embeddedBackend().create();
    cleanup = storage.cleanup;
    const config = loadConfig({
      LISTEN_PORT: '0',
      LISTEN_ADDRESS: '127.0.0.1',
      DATA_DIR: storage.dataDir,
      DATABASE_URL: storage.databaseUrl ?? '',
      AUTH_TYPE: 'none',
      OS_IMAGES: JSON.stringify([
        { openshift_version: '4.17', cpu_architecture: 'x86_64', url: iso, version: '417.94.1' },
      ]),
      HTTPS_CERT_FILE: certFile,
      HTTPS_KEY_FILE: keyFile,
      HTTP_LISTEN_PORT: '0',
      SERVICE_CA_CERT_FILE: ca.certFile,
    });
    service = await startService(config, createLogger('debug', { write: (l: string) => logs.push(l) }), {
      defaultMetrics: false,
    });
    await service.imagesLoaded;
  });
  afterAll(async () => {
    await service?.close();
    await cleanup?.();
    await rm(dir, { recursive: true, force: true });
  });

  it('LISTEN_PORT speaks HTTPS with the configured chain, HTTP/1.1 only, with keep-alive', async () => {
    expect(service.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await call(`${service.url}/live`, { ca: ca.certPem, agent });
      const second = await call(`${service.url}/live`, { ca: ca.certPem, agent });
      expect(first.status).toBe(200);
      expect(first.fingerprint256).toBe(leaves.first.fingerprint256);
      expect(first.alpn).toBe('http/1.1'); // offered h2 first; the server picks HTTP/1.1
      expect(second.reused).toBe(true);
    } finally {
      agent.destroy();
    }
    // Without the CA the chain does not verify: the test CA is the only trust.
    await expect(call(`${service.url}/live`)).rejects.toThrow(/certificate/);
    // A plain-HTTP client on the TLS port gets no answer, and the failed handshake is counted.
    await expect(call(service.url.replace('https:', 'http:') + '/live')).rejects.toThrow();
    const metrics = await service.metrics.registry.getSingleMetricAsString('bootsmith_http_connections_closed_total');
    expect(metrics).toMatch(/reason="tls_handshake_failed"} [1-9]/);
  });

  it('gives the discovery agent the CA of SERVICE_BASE_URL (SERVICE_CA_CERT_FILE) and --cacert, which verify the service', async () => {
    const created = await call(`${service.url}${API}/infra-envs`, {
      ca: ca.certPem,
      method: 'POST',
      body: { name: 'agent-ca', pull_secret: PULL_SECRET, openshift_version: '4.17', cpu_architecture: 'x86_64' },
    });
    expect(created.status).toBe(201);
    const { id } = JSON.parse(created.body.toString()) as { id: string };
    const ignition = JSON.parse(
      (
        await call(`${service.url}${API}/infra-envs/${id}/downloads/files?file_name=discovery.ign`, { ca: ca.certPem })
      ).body.toString(),
    ) as {
      storage: { files: { path: string; mode: number; contents: { source: string } }[] };
      systemd: { units: { name: string; contents: string }[] };
    };
    const caFile = ignition.storage.files.find((f) => f.path === '/etc/assisted-service/service-ca-cert.crt');
    expect(caFile?.mode).toBe(0o644);
    const delivered = Buffer.from(caFile!.contents.source.split(',')[1]!, 'base64').toString();
    const agent = ignition.systemd.units.find((u) => u.name === 'agent.service')!.contents;
    expect(agent).toMatch(
      /^ExecStart=\/usr\/local\/bin\/agent --url https:\/\/.* --cacert \/etc\/assisted-service\/service-ca-cert\.crt$/m,
    );
    // what the agent gets is enough to verify SERVICE_BASE_URL, and needed: nothing else is trusted
    const agentUrl = /--url (\S+)/.exec(agent)![1]!;
    expect((await call(`${agentUrl}/live`, { ca: delivered })).status).toBe(200);
    await expect(call(`${agentUrl}/live`)).rejects.toThrow(/certificate/);
  });

  it('hands out https:// ISO URLs and plain-port iPXE URLs; the plain port serves exactly what iPXE fetches', async () => {
    const plain = service.plainUrl!;
    expect(plain).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const created = await call(`${service.url}${API}/infra-envs`, {
      ca: ca.certPem,
      method: 'POST',
      body: { name: 'tls', pull_secret: PULL_SECRET, openshift_version: '4.17', cpu_architecture: 'x86_64' },
    });
    expect(created.status).toBe(201);
    const infraEnv = JSON.parse(created.body.toString()) as { id: string; download_url: string };
    expect(infraEnv.download_url).toBe(`${service.url}/byid/${infraEnv.id}/4.17/x86_64/full.iso`);
    const imageUrl = JSON.parse(
      (
        await call(`${service.url}${API}/infra-envs/${infraEnv.id}/downloads/image-url`, { ca: ca.certPem })
      ).body.toString(),
    ) as { url: string };
    expect(imageUrl.url.startsWith(`${service.url}/`)).toBe(true);

    // The iPXE script, fetched over the plain port, points iPXE at the plain port.
    const scriptPath = `${API}/infra-envs/${infraEnv.id}/downloads/files?file_name=ipxe-script`;
    const script = await call(`${plain}${scriptPath}`);
    expect(script.status).toBe(200);
    const urls = [...script.body.toString().matchAll(/(?:kernel|initrd --name initrd) (\S+)/g)].map((m) => m[1]!);
    const rootfs = /coreos\.live\.rootfs_url=(\S+)/.exec(script.body.toString())?.[1];
    expect(urls).toHaveLength(2);
    for (const url of [...urls, rootfs!]) {
      expect(url.startsWith(`${plain}/`), url).toBe(true);
      const reply = await call(url);
      expect(reply.status, url).toBe(200);
      expect(reply.body.length).toBe(Number(reply.headers['content-length']));
    }
    const presigned = JSON.parse(
      (
        await call(
          `${service.url}${API}/infra-envs/${infraEnv.id}/downloads/files-presigned?file_name=ipxe-script&ipxe_script_type=boot-order-control`,
          { ca: ca.certPem },
        )
      ).body.toString(),
    ) as { url: string };
    expect(presigned.url.startsWith(`${plain}/`)).toBe(true);
    const chain = await call(presigned.url);
    expect(chain.body.toString()).toContain(`chain ${plain}/`);
    expect((await call(`${plain}/live`)).status).toBe(200);

    // Everything else on the plain port: 403 naming the HTTPS URL of the same resource.
    const isoPath = `/byid/${infraEnv.id}/4.17/x86_64/full.iso`;
    for (const [method, target, httpsBase] of [
      ['GET', isoPath, service.url],
      ['GET', `${API}/infra-envs/${infraEnv.id}/downloads/files?file_name=discovery.ign`, service.url],
      [
        'GET',
        `${API}/infra-envs/${infraEnv.id}/downloads/files?file_name=ipxe-script&file_name=discovery.ign`,
        service.url,
      ],
      ['GET', '/health', service.url],
      ['POST', `${API}/infra-envs`, service.url],
      ['DELETE', `/boot-artifacts/kernel?arch=x86_64&version=4.17`, service.url],
    ] as const) {
      const refused = await call(`${plain}${target}`, { method });
      expect(refused.status, `${method} ${target}`).toBe(403);
      const body = JSON.parse(refused.body.toString()) as { code: number; message: string };
      expect(body.code).toBe(403);
      expect(body.message).toContain(`use ${httpsBase}${target}`);
    }
    // Over HTTPS the ISO is served (range layer and all).
    const head = await call(`${service.url}${isoPath}`, { ca: ca.certPem, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(BIG_ISO_BYTES);
  });

  it('/health shows the serving certificate and never the key', async () => {
    const health = await call(`${service.url}/health`, { ca: ca.certPem });
    const tls = (
      JSON.parse(health.body.toString()) as { tls: { serving: { fingerprint256: string; notAfter: string } } }
    ).tls;
    expect(tls.serving.fingerprint256).toBe(leaves.first.fingerprint256);
    expect(Date.parse(tls.serving.notAfter)).toBeGreaterThan(Date.now());
    expect(health.body.toString()).not.toMatch(/PRIVATE|BEGIN/);
  });

  it('rotates: new connections get the new certificate, a download in flight finishes intact, bad pairs keep the old one, SIGHUP reloads', async () => {
    const infraEnv = JSON.parse(
      (
        await call(`${service.url}${API}/infra-envs`, {
          ca: ca.certPem,
          method: 'POST',
          body: { name: 'rotate', pull_secret: PULL_SECRET, openshift_version: '4.17', cpu_architecture: 'x86_64' },
        })
      ).body.toString(),
    ) as { download_url: string };

    // A download starts on the first certificate and pauses after its first bytes.
    let onPaused: (res: http.IncomingMessage) => void = () => undefined;
    const pausedResponse = new Promise<http.IncomingMessage>((resolve) => (onPaused = resolve));
    const inFlight = new Promise<{ body: Buffer; fingerprint256: string }>((resolve, reject) => {
      const req = https.get(infraEnv.download_url, { ca: ca.certPem, agent: false }, (res) => {
        const socket = res.socket as TLSSocket;
        const fingerprint256 = socket.getPeerCertificate().fingerprint256;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          if (chunks.length === 1) {
            res.pause();
            onPaused(res);
          }
        });
        res.on('end', () => resolve({ body: Buffer.concat(chunks), fingerprint256 }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
    const response = await pausedResponse;

    await replace(keyFile, leaves.second.keyPem);
    await replace(certFile, leaves.second.chainPem);
    await until('a new connection sees the second certificate', async () =>
      (await fingerprintOfNewConnection()) === leaves.second.fingerprint256 ? true : undefined,
    );
    const gauge = await service.metrics.registry.getSingleMetricAsString('bootsmith_artifact_requests_in_flight');
    expect(gauge, 'the download was still in flight across the swap').toMatch(/ 1$/m);
    response.resume();
    const done = await inFlight;
    expect(done.fingerprint256).toBe(leaves.first.fingerprint256);
    const fresh = await call(infraEnv.download_url, { ca: ca.certPem });
    expect(fresh.fingerprint256).toBe(leaves.second.fingerprint256);
    expect(done.body.length).toBe(BIG_ISO_BYTES);
    expect(sha256(done.body)).toBe(sha256(fresh.body));

    // Garbage: refused, logged with the reason, the second certificate stays.
    const failuresBefore = await reloadFailures();
    await replace(certFile, 'not a certificate at all\n');
    await until('the garbage certificate is refused', async () =>
      (await reloadFailures()) > failuresBefore ? true : undefined,
    );
    expect(await fingerprintOfNewConnection()).toBe(leaves.second.fingerprint256);
    // A certificate whose key is not in HTTPS_KEY_FILE (the third's chain over the second's key).
    await replace(certFile, leaves.third.chainPem);
    await until('the mismatched pair is refused', async () =>
      (await reloadFailures()) > failuresBefore + 1 ? true : undefined,
    );
    expect(await fingerprintOfNewConnection()).toBe(leaves.second.fingerprint256);
    const refusals = logs.filter((l) => l.includes('new TLS certificate refused'));
    expect(refusals.some((l) => l.includes('holds no PEM certificate'))).toBe(true);
    expect(refusals.some((l) => l.includes('does not belong to the certificate'))).toBe(true);
    const health = JSON.parse((await call(`${service.url}/health`, { ca: ca.certPem })).body.toString()) as {
      tls: { lastReload: { ok: boolean; error: string }; serving: { fingerprint256: string } };
    };
    expect(health.tls.lastReload.ok).toBe(false);
    expect(health.tls.serving.fingerprint256).toBe(leaves.second.fingerprint256);

    // The matching key arrives; SIGHUP reloads at once (the watcher's debounced reload then finds nothing new).
    await writeFile(keyFile, leaves.third.keyPem);
    process.kill(process.pid, 'SIGHUP');
    await until('a new connection sees the third certificate', async () =>
      (await fingerprintOfNewConnection()) === leaves.third.fingerprint256 ? true : undefined,
    );
    expect(logs.some((l) => l.includes('TLS certificate reloaded') && l.includes('"trigger":"SIGHUP"'))).toBe(true);

    // No log line carries any key material.
    const keyLines = Object.values(leaves).flatMap((leaf) =>
      leaf.keyPem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----')),
    );
    for (const line of logs) {
      expect(line).not.toContain('PRIVATE KEY');
      for (const k of keyLines) expect(line).not.toContain(k);
    }
  });

  async function reloadFailures(): Promise<number> {
    const text = await service.metrics.registry.getSingleMetricAsString('bootsmith_tls_reload_failures_total');
    return Number(/ (\d+)$/m.exec(text)?.[1] ?? 'NaN');
  }

  it('bounds the TLS handshake and counts a silent TCP connection as request-less', async () => {
    // (The handshake timeout equals HTTP_HEADER_TIMEOUT, 20 s by default: listener-limits-tls.tools.test.ts
    // shortens it; here: an unfinished handshake occupies the per-address idle budget.)
    const port = Number(new URL(service.url).port);
    const silent = net.connect(port, '127.0.0.1');
    await new Promise((r) => silent.once('connect', r));
    const gauge = await until('the silent connection is counted', async () => {
      const text = await service.metrics.registry.getSingleMetricAsString('bootsmith_http_connections');
      return /state="idle"} [1-9]/.test(text) ? text : undefined;
    });
    expect(gauge).toMatch(/state="idle"/);
    silent.destroy();
  });
});
