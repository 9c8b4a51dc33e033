// downloadToFile over HTTPS against a loopback server with a self-signed certificate (made with
// openssl): refused with a hint until the certificate is trusted through the CA setting.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailable } from '../../../test/support/requirements.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../load-failure/retry-policy.js';
import { HAVE_OPENSSL, fixtureBytes, selfSignedCert, sha256 } from '../test-support/images.js';
import { IsoServer } from '../test-support/iso-server.js';
import { type DownloadHooks, downloadToFile } from './download.js';
import { HttpSource, type HttpSettings } from './http-source.js';

const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, attempts: 3, baseDelayMs: 10 };
const settings: HttpSettings = { headers: {}, ca: undefined, idleTimeoutMs: 5_000 };

describe('downloadToFile over HTTP', () => {
  const body = fixtureBytes();
  let dir: string;
  let part: string;
  const hooks = (): DownloadHooks => ({
    signal: new AbortController().signal,
    onStart: () => undefined,
    onBytes: () => undefined,
    onNotice: () => undefined,
  });

  describe.skipIf(unavailable({ openssl: HAVE_OPENSSL }))('https', () => {
    let tls: IsoServer;
    let cert: { key: string; cert: string; certFile: string };
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-download-https-'));
      part = path.join(dir, 'tls.part');
      cert = selfSignedCert(dir);
      tls = await new IsoServer(cert).start();
      tls.serve('/tls.iso', body);
    });
    afterAll(async () => {
      await tls.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it('refuses an untrusted certificate with a hint, and trusts it from the CA file', async () => {
      const refused = await downloadToFile(new HttpSource(tls.url('/tls.iso'), settings), part, hooks(), policy).catch(
        (e: unknown) => e,
      );
      expect((refused as ImageLoadError).retry).toBe('slow');
      expect((refused as Error).message).toMatch(/OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE/);
      const trusted = await downloadToFile(
        new HttpSource(tls.url('/tls.iso'), { ...settings, ca: cert.cert }),
        part,
        hooks(),
        policy,
      );
      expect(trusted.sha256).toBe(sha256(body));
    });
  });
});
