// Issue 15, finding 4 and issue 23, finding 7: a full scenario at LOG_LEVEL=debug through real HTTP, every log line of
// the services captured, then grepped for every secret used and its base64 and percent-encoded
// spellings. The scenario: InfraEnv with a pull secret under AUTH_TYPE=local, downloads via
// /byapikey/, /bytoken/, ?api_key=, ?image_token=, headers, in upper/mixed case and
// percent-encoded spellings, short tokens where no route expects one (`/x/<token>`,
// `/bytoken;x/<token>`, an unknown query parameter), errors (404, 401, 416, 400), an image side fronting the core
// remotely (with an unreachable upstream too), and a base image whose source URL carries
// userinfo and an S3-style presigned query. Issue 27: BMCs added and updated with passwords (one
// wrong), a boot job whose own /bytoken/ URL a BMC reads, the credentials key file; /metrics too.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { DEMO_IMAGE_PATH } from './package-root.js';
import { createLogger } from './logger.js';
import { type RunningService, startService } from './service.js';
import { startVirtualBmc } from '../test/support/redfish-emulator/index.js';
import type { EmulatedBmc } from '../test/support/redfish-emulator/index.js';

const API = '/api/assisted-install/v2';
const REGISTRY_PASSWORD = 'reg-user:Sup3r-s3cret-registry-pass';
const PULL_SECRET = JSON.stringify({
  auths: { 'registry.example': { auth: Buffer.from(REGISTRY_PASSWORD).toString('base64'), email: 'a@b.c' } },
});
const SOURCE_PASSWORD = 'src-pass-7f3a9c';
const AMZ_SIGNATURE = '9d1c0ffee2b7a1e5c3f4d8a6b2e1c0d9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3';
const AMZ_CREDENTIAL = 'AKIAEXAMPLESECRET42/20261123/us-east-1/s3/aws4_request';
const UPSTREAM_PASSWORD = 'upstream-pass-91b2';
const BMC_PASSWORD = 'bmc-Pa55word-c4lvin';
const BMC_NEW_PASSWORD = 'bmc-N3w-pass-5e2d';
const BMC_WRONG_PASSWORD = 'bmc-wr0ng-pass-77';

interface Running {
  service: RunningService;
  dir: string;
}

const logs: string[] = [];
const started: Running[] = [];
const emulated: EmulatedBmc[] = [];
let metricsText = '';

async function start(env: Record<string, string>): Promise<RunningService> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-logsecrets-'));
  const config = loadConfig({
    LISTEN_PORT: '0',
    LISTEN_ADDRESS: '127.0.0.1',
    DATA_DIR: dir,
    LOG_LEVEL: 'debug',
    ...env,
  });
  const logger = createLogger(config.logLevel, { write: (line: string) => logs.push(line) });
  const service = await startService(config, logger, { defaultMetrics: false });
  started.push({ service, dir });
  await service.imagesLoaded;
  return service;
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** Every spelling of a secret that would give it away in a log line. */
function spellings(secret: string): string[] {
  const out = new Set([
    secret,
    encodeURIComponent(secret),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
  ]);
  // A JWT also leaks through its signature alone.
  const parts = secret.split('.');
  if (parts.length === 3 && parts[2]!.length >= 16) out.add(parts[2]!);
  return [...out].filter((s) => s.length >= 8);
}

describe('no secret reaches any log line (LOG_LEVEL=debug)', () => {
  let core: RunningService;
  let secrets: string[] = [];
  const statuses: Record<string, number> = {};

  beforeAll(async () => {
    const deadPort = await closedPort();
    const presigned = `http://img-user:${SOURCE_PASSWORD}@127.0.0.1:${deadPort}/bucket/rhcos.iso?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${encodeURIComponent(AMZ_CREDENTIAL)}&X-Amz-Signature=${AMZ_SIGNATURE}`;
    const osImages = [
      {
        openshift_version: '4.17',
        cpu_architecture: 'x86_64',
        url: pathToFileURL(DEMO_IMAGE_PATH).toString(),
        version: '417.94.202410090854-0',
      },
      { openshift_version: '4.18', cpu_architecture: 'x86_64', url: presigned, version: '418.94.202501010000-0' },
    ];
    core = await start({ AUTH_TYPE: 'local', OS_IMAGES: JSON.stringify(osImages) });
    const coreDir = started[0]!.dir;
    const admin = (await readFile(path.join(coreDir, 'auth', 'admin-token'), 'utf8')).trim();
    const adminAuth = { Authorization: `Bearer ${admin}` };

    const created = await fetch(`${core.url}${API}/infra-envs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...adminAuth },
      body: JSON.stringify({ name: 'secrets', pull_secret: PULL_SECRET, openshift_version: '4.17' }),
    });
    expect(created.status).toBe(201);
    const infraEnv = (await created.json()) as { id: string; download_url: string };
    // download_url carries the short standing token; the InfraEnv's API key is in its iPXE script.
    const standingToken = new URL(infraEnv.download_url).pathname.split('/')[2]!;
    const script = await (
      await fetch(`${core.url}${API}/infra-envs/${infraEnv.id}/downloads/files?file_name=ipxe-script`, {
        headers: adminAuth,
      })
    ).text();
    const apiKey = decodeURIComponent(/[?&]api_key=([^&\s]+)/.exec(script)![1]!);
    const imageUrl = (await (
      await fetch(`${core.url}${API}/infra-envs/${infraEnv.id}/downloads/image-url`, { headers: adminAuth })
    ).json()) as { url: string };
    const imageToken = new URL(imageUrl.url).pathname.split('/')[2]!;
    secrets = [
      admin,
      apiKey,
      imageToken,
      standingToken,
      PULL_SECRET,
      REGISTRY_PASSWORD,
      SOURCE_PASSWORD,
      AMZ_SIGNATURE,
      AMZ_CREDENTIAL,
      UPSTREAM_PASSWORD,
    ];

    const id = infraEnv.id;
    const tail = '4.17/x86_64/full.iso';
    const pctKey = encodeURIComponent(apiKey);
    const targets: Array<[string, RequestInit?]> = [
      [`/byapikey/${apiKey}/${tail}`],
      [`/BYAPIKEY/${apiKey}/${tail}`],
      [`/ByApiKey/${apiKey}/${tail}`],
      [`/bytoken/${imageToken}/${tail}`],
      [`/bytoken/${standingToken}/${tail}`],
      [`/BYTOKEN/${imageToken}/${tail}`],
      [`/images/${id}?version=4.17&type=full-iso&api_key=${apiKey}`],
      [`/images/${id}?version=4.17&type=full-iso&%61pi_key=${apiKey}`],
      [`/images/${id}?version=4.17&type=full-iso&api%5Fkey=${pctKey}`],
      [`/images/${id}?version=4.17&type=full-iso&API_KEY=${apiKey}`],
      [`/images/${id}?version=4.17&type=full-iso&image_token=${imageToken}`],
      [`/images/${id}?version=4.17&type=full-iso&image%5Ftoken=${imageToken}`],
      [`/images/${id}?version=4.17&type=full-iso`, { headers: { 'Image-Token': imageToken } }],
      [`/images/${id}?version=4.17&type=full-iso`, { headers: adminAuth }],
      [`/images/${id}/pxe-initrd?version=4.17&api_key=${apiKey}`],
      // errors
      [`/byapikey/${apiKey}/9.99/x86_64/full.iso`],
      [`/BYAPIKEY/${apiKey}/4.17/x86_64/nope.iso`],
      [`/images/${id}?version=4.17&type=full-iso&api_key=${apiKey}x`],
      [`/images/${id}?version=4.17&type=full-iso&api_key=${apiKey}`, { headers: { Range: 'bytes=999999999999-' } }],
      [`/images/${id}?version=4.18&type=full-iso&api_key=${apiKey}`],
      [`/nowhere/${apiKey}?api_key=${apiKey}&image_token=${imageToken}`],
      // short tokens where no route expects a credential (issue 23, finding 7): still never logged
      [`/x/${imageToken}`],
      [`/bytoken%2F${imageToken}/${tail}`],
      [`/bytoken;x/${standingToken}/${tail}`],
      [`/images/${id}?version=4.17&type=full-iso&x=${imageToken}`],
      [`/${standingToken}`],
      [`${API}/infra-envs/${id}/downloads/files?file_name=${imageToken}`],
      [`${API}/infra-envs/${id}?api_key=${apiKey}`],
      [`${API}/infra-envs/${id}`, { headers: { 'X-Secret-Key': apiKey } }],
      [`${API}/infra-envs/${id}/downloads/files?file_name=discovery.ign&api_key=${apiKey}`],
      [`${API}/infra-envs/${id}/downloads/files?file_name=ipxe-script&api_key=${apiKey}`],
      [
        `${API}/infra-envs?api_key=${apiKey}`,
        { method: 'POST', headers: { 'Content-Type': 'application/json', ...adminAuth }, body: '{"name":' },
      ],
    ];
    for (const [target, init] of targets) {
      const res = await fetch(core.url + target, {
        ...(init ?? {}),
        headers: { Range: 'bytes=0-99', ...((init?.headers as Record<string, string>) ?? {}) },
      });
      statuses[target] = res.status;
      await res.arrayBuffer();
    }

    // BMCs: added with a password, one wrong, one changed; a boot job whose own URL its BMC reads.
    const bmcs = '/api/bootsmith/v1/bmcs';
    const bmcCall = (method: string, p: string, body?: unknown) =>
      fetch(core.url + p, {
        method,
        headers: { 'Content-Type': 'application/json', ...adminAuth },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const { bmc, guest } = await startVirtualBmc({
      name: 'secret-bmc',
      profile: 'generic',
      username: 'root',
      password: BMC_NEW_PASSWORD,
      initialPower: 'On',
    });
    emulated.push(bmc);
    const addBmc = async (name: string, password: string) => {
      const res = await bmcCall('POST', bmcs, {
        name,
        address: bmc.rootUrl,
        username: 'root',
        password,
        infra_env_id: id,
      });
      statuses[`bmc add ${name}`] = res.status;
      await res.arrayBuffer();
    };
    await addBmc('secret-bmc', BMC_PASSWORD);
    await addBmc('wrong-bmc', BMC_WRONG_PASSWORD);
    statuses['bmc update'] = (await bmcCall('PATCH', `${bmcs}/secret-bmc`, { password: BMC_NEW_PASSWORD })).status;
    let jobRes = await bmcCall('POST', `${bmcs}/secret-bmc/jobs`, { action: 'boot-discovery', eject: 'never' });
    for (let i = 0; i < 50 && jobRes.status === 409; i++) {
      await new Promise((r) => setTimeout(r, 200)); // the refresh queued by the add is still running
      jobRes = await bmcCall('POST', `${bmcs}/secret-bmc/jobs`, { action: 'boot-discovery', eject: 'never' });
    }
    statuses['bmc boot'] = jobRes.status;
    for (let i = 0; i < 150 && !guest.boots.at(-1)?.done; i++) await new Promise((r) => setTimeout(r, 200));
    const jobUrl = guest.boots.at(-1)?.url ?? '';
    statuses['bmc job url read'] = guest.boots.at(-1)?.done ? 200 : 0;
    const jobToken = new URL(jobUrl).pathname.split('/')[2]!;
    const keyFile = (await readFile(path.join(coreDir, 'auth', 'bmc-credentials.key'), 'utf8')).trim();
    await new Promise((r) => setTimeout(r, 3_000)); // the job follows the reads: its steps are logged
    metricsText = await (await fetch(`${core.url}/metrics`)).text();
    secrets.push(BMC_PASSWORD, BMC_NEW_PASSWORD, BMC_WRONG_PASSWORD, jobToken, keyFile);

    // The image side fronting the core remotely, with credentials forwarded upstream.
    const remote = await start({ BOOTSMITH_ROLE: 'image', ASSISTED_SERVICE_URL: core.url });
    for (const target of [
      `/byapikey/${apiKey}/${tail}`,
      `/BYAPIKEY/${apiKey}/${tail}`,
      `/images/${id}?version=4.17&type=full-iso&%61pi_key=${apiKey}`,
      `/images/${id}?version=4.17&type=full-iso&api_key=${apiKey}x`,
    ]) {
      const res = await fetch(remote.url + target, { headers: { Range: 'bytes=0-99' } });
      statuses[`remote ${target}`] = res.status;
      await res.arrayBuffer();
    }
    // ... and one whose upstream is unreachable and carries a password in its URL.
    const broken = await start({
      BOOTSMITH_ROLE: 'image',
      ASSISTED_SERVICE_URL: `http://svc:${UPSTREAM_PASSWORD}@127.0.0.1:${deadPort}`,
    });
    for (const target of [
      `/BYAPIKEY/${apiKey}/${tail}`,
      `/images/${id}?version=4.17&type=full-iso&api%5Fkey=${apiKey}`,
    ]) {
      const res = await fetch(broken.url + target);
      statuses[`broken ${target}`] = res.status;
      await res.arrayBuffer();
    }
  }, 120_000);

  afterAll(async () => {
    for (const b of emulated.splice(0)) await b.close();
    for (const r of started.splice(0).reverse()) {
      await r.service.close();
      await rm(r.dir, { recursive: true, force: true });
    }
  });

  it('ran the scenario: the credential spellings were accepted, errors were answered', () => {
    const accepted = Object.entries(statuses)
      .filter(([, s]) => s === 200 || s === 206)
      .map(([t]) => t);
    expect(accepted.some((t) => t.startsWith('/BYAPIKEY/') && !t.includes('nope'))).toBe(true);
    expect(accepted.some((t) => t.includes('%61pi_key='))).toBe(true);
    expect(accepted.some((t) => t.includes('api%5Fkey='))).toBe(true);
    expect(accepted.some((t) => t.startsWith('/BYTOKEN/'))).toBe(true);
    expect(accepted.some((t) => t.startsWith('remote /BYAPIKEY/'))).toBe(true);
    const statusSet = new Set(Object.values(statuses));
    for (const s of [401, 404, 502]) expect(statusSet, `a ${s} answer in ${JSON.stringify(statuses)}`).toContain(s);
    // debug access logs, the upstream failure and the image download failure were logged
    const text = logs.join('');
    expect(text).toContain('"msg":"request"');
    expect(text).toMatch(/BYAPIKEY\/\[redacted\]/);
    expect(text).toMatch(/4\.18/);
    expect(statuses).toMatchObject({
      'bmc add secret-bmc': 201,
      'bmc add wrong-bmc': 201,
      'bmc update': 200,
      'bmc boot': 201,
      'bmc job url read': 200,
    });
    expect(text).toContain('"msg":"BMC call"');
  });

  it('no log line holds any secret, in any spelling', () => {
    expect(logs.length).toBeGreaterThan(40);
    const leaks: string[] = [];
    for (const secret of secrets) {
      for (const spelling of spellings(secret)) {
        const line = logs.find((l) => l.includes(spelling));
        if (line) leaks.push(`${spelling.slice(0, 12)}… in ${line.slice(0, 300)}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it('/metrics holds no secret either', () => {
    expect(metricsText).toContain('bootsmith_');
    for (const secret of secrets) for (const spelling of spellings(secret)) expect(metricsText).not.toContain(spelling);
  });
});
