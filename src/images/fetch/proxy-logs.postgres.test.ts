// The egress proxy end to end in the running service at LOG_LEVEL=debug: a base image named by
// a host only the loopback proxy resolves is downloaded through it and verified (ready in
// /health) when HTTP_PROXY carries the right credentials, and fails with a 407 reason when it
// carries wrong ones. Every log line and every /health body is then grepped for the proxy
// passwords in every spelling (plain, percent-encoded, base64 of user:password).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../logger.js';
import { type RunningService, startService } from '../../service.js';
import { fixtureBytes, sha256 } from '../test-support/images.js';
import { IsoServer } from '../test-support/iso-server.js';
import { RecordingProxy } from '../test-support/recording-proxy.js';

const USER = 'egress-user';
const PASSWORD = 'Pr0xy:pa$$-5ecret/9';
const WRONG = 'Wr0ng-pr0xy-pa55';
const body = fixtureBytes();

interface Health {
  images: Array<{ state: string; reason?: string; source?: string; sha256?: string }>;
}

describe('egress proxy in the running service: credentials stay out of logs and /health', () => {
  const origin = new IsoServer();
  const proxy = new RecordingProxy({ 'mirror.test': '127.0.0.1' });
  const logs: string[] = [];
  const healthBodies: string[] = [];
  const running: Array<{ service: RunningService; dir: string }> = [];
  const health: Record<string, Health> = {};

  async function runWith(name: string, userinfo: string): Promise<void> {
    const dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-proxy-logs-'));
    const osImages = [
      {
        openshift_version: '4.17',
        cpu_architecture: 'x86_64',
        url: origin.url('/rhcos.iso').replace('127.0.0.1', 'mirror.test'),
        version: '417.94.202410090854-0',
      },
    ];
    const config = loadConfig({
      LISTEN_PORT: '0',
      LISTEN_ADDRESS: '127.0.0.1',
      DATA_DIR: dir,
      LOG_LEVEL: 'debug',
      OS_IMAGES: JSON.stringify(osImages),
      HTTP_PROXY: proxy.url(userinfo),
      NO_PROXY: 'registry.example',
    });
    const logger = createLogger(config.logLevel, { write: (line: string) => logs.push(line) });
    const service = await startService(config, logger, { defaultMetrics: false });
    running.push({ service, dir });
    await service.imagesLoaded;
    const text = await (await fetch(`${service.url}/health`)).text();
    healthBodies.push(text);
    health[name] = JSON.parse(text) as Health;
  }

  beforeAll(async () => {
    await origin.start();
    await proxy.start();
    proxy.credentials = { user: USER, password: PASSWORD };
    origin.serve('/rhcos.iso', body);
    await runWith('wrong', `${USER}:${WRONG}`);
    await runWith('right', `${encodeURIComponent(USER)}:${encodeURIComponent(PASSWORD)}`);
  }, 120_000);

  afterAll(async () => {
    for (const r of running.splice(0).reverse()) {
      await r.service.close();
      await rm(r.dir, { recursive: true, force: true });
    }
    await proxy.stop();
    await origin.stop();
  });

  it('downloads through the proxy with the right credentials and fails with a 407 reason with wrong ones', () => {
    const wrong = health.wrong!.images[0]!;
    expect(wrong.state).toBe('failed');
    expect(wrong.reason).toMatch(/proxy http:\/\/127\.0\.0\.1:\d+ answered HTTP 407/);
    const right = health.right!.images[0]!;
    expect(right.state).toBe('ready');
    expect(right.sha256).toBe(sha256(body));
    expect(proxy.requests.filter((r) => r.outcome === 'forwarded').length).toBeGreaterThan(0);
    expect(proxy.requests.some((r) => r.outcome === 407)).toBe(true);
    expect(logs.join('')).toMatch(/egress proxy/);
  });

  it('no log line and no /health body holds a proxy credential, in any spelling', () => {
    expect(logs.length).toBeGreaterThan(5);
    const spellings = [PASSWORD, WRONG].flatMap((p) => [
      p,
      encodeURIComponent(p),
      Buffer.from(`${USER}:${p}`).toString('base64'),
      Buffer.from(p).toString('base64'),
    ]);
    const leaks: string[] = [];
    for (const text of [...logs, ...healthBodies]) {
      for (const s of spellings) if (text.includes(s)) leaks.push(`${s.slice(0, 6)}… in ${text.slice(0, 300)}`);
    }
    expect(leaks).toEqual([]);
  });
});
