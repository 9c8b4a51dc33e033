// Image downloads through a loopback egress proxy (RecordingProxy) with the real HTTP source and
// downloadToFile: origins are named `*.test` host names that only the proxy can resolve, so a
// download that succeeds went through it. Covers plain HTTP (absolute form), HTTPS via CONNECT
// with a CA made by openssl, NO_PROXY, loopback bypass, redirects re-routed per URL, resume with
// If-Range through the proxy, and proxy authentication (407 / Basic), with no credential in errors.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { unavailable } from '../../../test/support/requirements.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../load-failure/retry-policy.js';
import { HAVE_OPENSSL, fixtureBytes, selfSignedCert, sha256 } from '../test-support/images.js';
import { IsoServer } from '../test-support/iso-server.js';
import { RecordingProxy } from '../test-support/recording-proxy.js';
import { type DownloadHooks, downloadToFile } from './download.js';
import { HttpSource, type HttpSettings } from './http-source.js';
import { ProxySettings } from './proxy-env.js';

const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, attempts: 3, baseDelayMs: 10 };
const PROXY_PASSWORD = 'pr0xy-S3cret-77';
const body = fixtureBytes();

describe('downloads through an egress proxy', () => {
  const origin = new IsoServer();
  const proxy = new RecordingProxy({ 'mirror.test': '127.0.0.1', 'cdn.test': '127.0.0.1' });
  let dir: string;
  let part: string;
  let n = 0;

  const settings = (env: NodeJS.ProcessEnv, extra: Partial<HttpSettings> = {}): HttpSettings => ({
    headers: {},
    ca: undefined,
    idleTimeoutMs: 5_000,
    proxy: ProxySettings.fromEnvironment(env),
    ...extra,
  });
  const hooks = (): DownloadHooks => ({
    signal: new AbortController().signal,
    onStart: () => undefined,
    onBytes: () => undefined,
    onNotice: () => undefined,
  });
  const download = (url: string, s: HttpSettings) => downloadToFile(new HttpSource(url, s), part, hooks(), policy);
  const named = (host: string, p: string) => origin.url(p).replace('127.0.0.1', host);

  beforeAll(async () => {
    await origin.start();
    await proxy.start();
    dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-proxy-'));
  });
  afterAll(async () => {
    await proxy.stop();
    await origin.stop();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    proxy.requests.length = 0;
    origin.hits.length = 0;
    proxy.credentials = undefined;
    part = path.join(dir, `${++n}.part`);
  });
  beforeAll(() => {
    part = path.join(dir, `${++n}.part`);
  });

  it('sends plain-HTTP requests to the proxy in absolute form, and the image arrives intact', async () => {
    origin.serve('/a.iso', body);
    const url = named('mirror.test', '/a.iso');
    const result = await download(url, settings({ HTTP_PROXY: proxy.url() }));
    expect(result.sha256).toBe(sha256(body));
    expect(proxy.requests.map((r) => [r.method, r.target, r.outcome])).toEqual([['GET', url, 'forwarded']]);
    expect(proxy.requests[0]!.headers.host).toBe(new URL(url).host);
    expect(origin.hitsFor('/a.iso')).toHaveLength(1);
  });

  it('turns userinfo of the source URL into the origin Authorization, never into the proxied request line', async () => {
    origin.serve('/userinfo.iso', body);
    const url = named('mirror.test', '/userinfo.iso').replace('http://', 'http://mirror-user:m1rror-pass@');
    const result = await download(url, settings({ HTTP_PROXY: proxy.url() }));
    expect(result.sha256).toBe(sha256(body));
    expect(proxy.requests.map((r) => r.target)).toEqual([named('mirror.test', '/userinfo.iso')]);
    expect(origin.hitsFor('/userinfo.iso')[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('mirror-user:m1rror-pass').toString('base64')}`,
    );
  });

  it('names the proxy (without credentials) when it cannot be reached', async () => {
    const err = await downloadToFile(
      new HttpSource(
        named('mirror.test', '/a.iso'),
        settings({ HTTP_PROXY: `http://u:${PROXY_PASSWORD}@127.0.0.1:1` }),
      ),
      part,
      hooks(),
      { ...policy, attempts: 1 },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageLoadError);
    expect((err as Error).message).toMatch(/via the proxy http:\/\/127\.0\.0\.1:1\).*ECONNREFUSED/);
    expect((err as Error).message).not.toContain(PROXY_PASSWORD);
  });

  it('goes direct for NO_PROXY hosts (the proxy sees nothing; the name does not resolve without it)', async () => {
    origin.serve('/np.iso', body);
    const url = named('mirror.test', '/np.iso');
    const err = await download(url, settings({ HTTP_PROXY: proxy.url(), NO_PROXY: 'cdn.test,.example,mirror.test' }))
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImageLoadError);
    expect((err as Error).message).toMatch(/ENOTFOUND|EAI_AGAIN|getaddrinfo/);
    expect(proxy.requests).toHaveLength(0);
    // and the same URL with another NO_PROXY goes through the proxy
    const ok = await download(url, settings({ HTTP_PROXY: proxy.url(), NO_PROXY: 'cdn.test' }));
    expect(ok.sha256).toBe(sha256(body));
    expect(proxy.requests).toHaveLength(1);
  });

  it('connects directly to loopback origins even with a proxy set', async () => {
    origin.serve('/lo.iso', body);
    const result = await download(origin.url('/lo.iso'), settings({ HTTP_PROXY: proxy.url() }));
    expect(result.sha256).toBe(sha256(body));
    expect(proxy.requests).toHaveLength(0);
  });

  it('routes every redirect hop afresh: proxied → direct → proxied', async () => {
    origin.serve('/final.iso', body);
    origin.serve('/hop2', body, { redirectTo: named('cdn.test', '/final.iso') });
    origin.serve('/hop1', body, { redirectTo: origin.url('/hop2') });
    const result = await download(named('mirror.test', '/hop1'), settings({ HTTP_PROXY: proxy.url() }));
    expect(result.sha256).toBe(sha256(body));
    // hop1 and final went through the proxy; hop2 (loopback) did not
    expect(proxy.requests.map((r) => new URL(r.target).pathname)).toEqual(['/hop1', '/final.iso']);
    expect(origin.hits.map((h) => h.path)).toEqual(['/hop1', '/hop2', '/final.iso']);
  });

  it('resumes a dropped transfer through the proxy with Range and If-Range', async () => {
    const half = Math.floor(body.length / 2) + 77;
    origin.serve('/drop.iso', body, { dropAfter: half, chunkBytes: 32 * 1024 });
    const url = named('mirror.test', '/drop.iso');
    const result = await download(url, settings({ HTTP_PROXY: proxy.url() }));
    expect(result.sha256).toBe(sha256(body));
    expect((await readFile(part)).equals(body)).toBe(true);
    expect(proxy.requests).toHaveLength(2);
    const resumed = proxy.requests[1]!;
    expect(resumed.target).toBe(url);
    expect(resumed.headers.range).toMatch(/^bytes=[1-9]\d*-$/);
    expect(resumed.headers['if-range']).toBe(`"${sha256(body).slice(0, 16)}"`);
    expect(origin.hitsFor('/drop.iso')[1]!.ifRange).toBe(resumed.headers['if-range']);
  });

  it('answers a 407 without credentials with a typed error, and passes with them (none in errors)', async () => {
    proxy.credentials = { user: 'img', password: PROXY_PASSWORD };
    origin.serve('/auth.iso', body);
    const url = named('mirror.test', '/auth.iso');
    const refused = await download(url, settings({ HTTP_PROXY: proxy.url() })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ImageLoadError);
    expect((refused as ImageLoadError).message).toMatch(
      /proxy http:\/\/127\.0\.0\.1:\d+ answered HTTP 407.*credentials/,
    );
    const wrong = await download(url, settings({ HTTP_PROXY: proxy.url('img:not-it') })).catch((e: unknown) => e);
    expect((wrong as Error).message).toMatch(/407/);
    expect(JSON.stringify({ m: (wrong as Error).message, ctx: (wrong as ImageLoadError).context })).not.toContain(
      'not-it',
    );
    expect(origin.hitsFor('/auth.iso')).toHaveLength(0);
    const ok = await download(url, settings({ HTTP_PROXY: proxy.url(`img:${PROXY_PASSWORD}`) }));
    expect(ok.sha256).toBe(sha256(body));
    expect(proxy.requests.at(-1)!.headers['proxy-authorization']).toBe(
      `Basic ${Buffer.from(`img:${PROXY_PASSWORD}`).toString('base64')}`,
    );
    // the origin never sees the proxy's credentials
    expect(origin.hitsFor('/auth.iso')[0]!.headers['proxy-authorization']).toBeUndefined();
  });

  describe.skipIf(unavailable({ openssl: HAVE_OPENSSL }))('https through CONNECT', () => {
    const tlsOrigin = { server: undefined as IsoServer | undefined, ca: '' };
    const tlsNamed = (host: string, p: string) => tlsOrigin.server!.url(p).replace('127.0.0.1', host);
    beforeAll(async () => {
      const { key, cert } = selfSignedCert(dir, 'mirror.test');
      tlsOrigin.ca = cert;
      tlsOrigin.server = await new IsoServer({ key, cert }).start();
    });
    afterAll(async () => {
      await tlsOrigin.server?.stop();
    });

    it('tunnels with CONNECT, checks the origin certificate against the trusted CA, and verifies the image', async () => {
      tlsOrigin.server!.serve('/tls.iso', body);
      const url = tlsNamed('mirror.test', '/tls.iso');
      const env = { HTTPS_PROXY: proxy.url(), HTTP_PROXY: 'http://unused.invalid:1' };
      const untrusted = await download(url, settings(env)).catch((e: unknown) => e);
      expect((untrusted as Error).message).toMatch(/OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE/);
      const result = await download(url, settings(env, { ca: tlsOrigin.ca }));
      expect(result.sha256).toBe(sha256(body));
      const port = new URL(url).port;
      expect(proxy.requests.map((r) => [r.method, r.target])).toContainEqual(['CONNECT', `mirror.test:${port}`]);
      expect(proxy.requests.every((r) => r.method === 'CONNECT')).toBe(true);
      expect(tlsOrigin.server!.hitsFor('/tls.iso')).toHaveLength(1);
    });

    it('resumes inside a new tunnel with If-Range after a dropped transfer', async () => {
      tlsOrigin.server!.hits.length = 0;
      tlsOrigin.server!.serve('/tls-drop.iso', body, { dropAfter: 300_000, chunkBytes: 32 * 1024 });
      const url = tlsNamed('mirror.test', '/tls-drop.iso');
      const result = await download(url, settings({ HTTPS_PROXY: proxy.url() }, { ca: tlsOrigin.ca }));
      expect(result.sha256).toBe(sha256(body));
      expect(proxy.requests.filter((r) => r.method === 'CONNECT')).toHaveLength(2);
      const hits = tlsOrigin.server!.hitsFor('/tls-drop.iso');
      expect(hits.map((h) => h.ifRange)).toEqual([undefined, `"${sha256(body).slice(0, 16)}"`]);
    });

    it('refuses CONNECT without credentials (407) and tunnels with them', async () => {
      proxy.credentials = { user: 'img', password: PROXY_PASSWORD };
      tlsOrigin.server!.serve('/tls-auth.iso', body);
      const url = tlsNamed('mirror.test', '/tls-auth.iso');
      const refused = await download(url, settings({ HTTPS_PROXY: proxy.url() }, { ca: tlsOrigin.ca })).catch(
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(ImageLoadError);
      expect((refused as Error).message).toMatch(/answered HTTP 407/);
      const ok = await download(
        url,
        settings({ HTTPS_PROXY: proxy.url(`img:${PROXY_PASSWORD}`) }, { ca: tlsOrigin.ca }),
      );
      expect(ok.sha256).toBe(sha256(body));
      expect(proxy.requests.map((r) => r.outcome)).toEqual([407, 'forwarded']);
    });

    it('bounds the wait for a CONNECT answer', async () => {
      const net = await import('node:net');
      const silent = net.createServer(() => undefined); // accepts and never answers
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as import('node:net').AddressInfo).port;
      try {
        const err = await downloadToFile(
          new HttpSource(tlsNamed('mirror.test', '/x.iso'), {
            ...settings({ HTTPS_PROXY: `http://127.0.0.1:${port}` }),
            idleTimeoutMs: 200,
          }),
          part,
          hooks(),
          { ...policy, attempts: 1 },
        ).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ImageLoadError);
        expect((err as Error).message).toMatch(/no CONNECT answer/);
      } finally {
        silent.close();
      }
    });
  });
});
