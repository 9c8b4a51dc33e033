import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ImageSettingsError, byteSizeFrom, imageStoreSettingsFromEnvironment } from './store-settings.js';

describe('imageStoreSettingsFromEnvironment', () => {
  it('reads the registry files, the auth file searched before the pull secret file; clocks that fail a stall in 2 minutes', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'registry-settings-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const auth = (user: string) =>
      JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from(`${user}:pw`).toString('base64') } } });
    await writeFile(path.join(dir, 'auth.json'), auth('from-auth-file'));
    await writeFile(path.join(dir, 'pull-secret.json'), auth('from-pull-secret'));
    await writeFile(path.join(dir, 'ca.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    await writeFile(
      path.join(dir, 'registries.conf'),
      '[[registry]]\nlocation = "quay.io/ocp"\n[[registry.mirror]]\nlocation = "mirror.example:5000/ocp"\n',
    );
    const s = imageStoreSettingsFromEnvironment({
      REGISTRY_AUTH_FILE: path.join(dir, 'auth.json'),
      PULL_SECRET_FILE: path.join(dir, 'pull-secret.json'),
      REGISTRY_CA_FILE: path.join(dir, 'ca.pem'),
      REGISTRIES_CONF_FILE: path.join(dir, 'registries.conf'),
    }).sources.registry;
    expect(s.authFiles.map((a) => a.source)).toEqual([
      `REGISTRY_AUTH_FILE ${path.join(dir, 'auth.json')}`,
      `PULL_SECRET_FILE ${path.join(dir, 'pull-secret.json')}`,
    ]);
    expect(s.ca).toContain('BEGIN CERTIFICATE');
    expect(s.registriesConf?.registries[0]?.mirrors[0]?.location).toBe('mirror.example:5000/ocp');
    // (reconnects + 1) × idle clock: a stalled registry fails within 2 minutes
    expect((s.maxReconnects + 1) * s.timeouts.idleMs).toBe(120_000);
    expect(imageStoreSettingsFromEnvironment({}).sources.registry).toMatchObject({
      authFiles: [],
      ca: undefined,
      registriesConf: undefined,
    });

    for (const [env, message] of [
      [{ REGISTRY_AUTH_FILE: path.join(dir, 'missing.json') }, /^REGISTRY_AUTH_FILE .*missing\.json: cannot be read/],
      [{ PULL_SECRET_FILE: path.join(dir, 'ca.pem') }, /^PULL_SECRET_FILE .*ca\.pem: not valid JSON/],
      [{ REGISTRY_CA_FILE: path.join(dir, 'auth.json') }, /^REGISTRY_CA_FILE .*auth\.json: holds no PEM certificate/],
      [{ REGISTRIES_CONF_FILE: path.join(dir, 'auth.json') }, /^REGISTRIES_CONF_FILE .*auth\.json line 1/],
    ] as const) {
      const err = (() => {
        try {
          imageStoreSettingsFromEnvironment(env);
        } catch (e) {
          return e as Error;
        }
      })();
      expect(err).toBeInstanceOf(ImageSettingsError);
      expect(err?.message).toMatch(message);
      expect(err?.message).not.toContain(Buffer.from('from-auth-file:pw').toString('base64'));
    }
  });

  it('has working defaults', () => {
    const s = imageStoreSettingsFromEnvironment({});
    expect(s.concurrency).toBe(2);
    expect(s.cacheMaxBytes).toBeUndefined();
    expect(s.sources.http).toMatchObject({ headers: {}, ca: undefined });
    expect(s.sources.s3).toMatchObject({
      region: 'us-east-1',
      endpoint: undefined,
      forcePathStyle: false,
      credentials: undefined,
    });
  });

  it('reads the integrity checks, the quarantine bound and the disk reserve (default by database placement)', () => {
    expect(imageStoreSettingsFromEnvironment({})).toMatchObject({
      integrity: {
        checkIntervalMs: 60_000,
        rehashIntervalMs: 24 * 3_600_000,
        rehashBytesPerSecond: 32 * 2 ** 20,
        quarantineKeep: 2,
      },
      diskReserveBytes: 0,
    });
    expect(imageStoreSettingsFromEnvironment({}, { embeddedDatabase: true }).diskReserveBytes).toBe(256 * 2 ** 20);
    const s = imageStoreSettingsFromEnvironment(
      {
        IMAGE_INTEGRITY_CHECK_INTERVAL: '0',
        IMAGE_INTEGRITY_REHASH_INTERVAL: '6h30m',
        IMAGE_INTEGRITY_REHASH_RATE: '100Mi',
        IMAGE_QUARANTINE_KEEP: '0',
        IMAGE_DISK_RESERVE_BYTES: '1G',
      },
      { embeddedDatabase: true },
    );
    expect(s.integrity).toEqual({
      checkIntervalMs: 0,
      rehashIntervalMs: 6.5 * 3_600_000,
      rehashBytesPerSecond: 100 * 2 ** 20,
      quarantineKeep: 0,
    });
    expect(s.diskReserveBytes).toBe(1e9);
    expect(
      imageStoreSettingsFromEnvironment({ IMAGE_DISK_RESERVE_BYTES: '0' }, { embeddedDatabase: true }).diskReserveBytes,
    ).toBe(0);
    for (const [name, value, message] of [
      ['IMAGE_INTEGRITY_CHECK_INTERVAL', '60', /IMAGE_INTEGRITY_CHECK_INTERVAL must be a duration/],
      ['IMAGE_INTEGRITY_REHASH_INTERVAL', 'daily', /IMAGE_INTEGRITY_REHASH_INTERVAL must be a duration/],
      ['IMAGE_INTEGRITY_REHASH_RATE', '0', /IMAGE_INTEGRITY_REHASH_RATE must be above 0/],
      ['IMAGE_INTEGRITY_REHASH_RATE', '1K', /IMAGE_INTEGRITY_REHASH_RATE must be at least 64Ki/],
      ['IMAGE_QUARANTINE_KEEP', '101', /IMAGE_QUARANTINE_KEEP must be a whole number from 0 to 100/],
      ['IMAGE_DISK_RESERVE_BYTES', 'lots', /IMAGE_DISK_RESERVE_BYTES must be a byte count/],
    ] as const) {
      expect(() => imageStoreSettingsFromEnvironment({ [name]: value })).toThrow(message);
    }
  });

  it('reads the standard AWS variables and the path-style switch', () => {
    const s = imageStoreSettingsFromEnvironment({
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL: 'http://minio:9000',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'key',
    }).sources.s3;
    expect(s).toMatchObject({
      region: 'eu-west-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'id', secretAccessKey: 'key' },
    });
    expect(
      imageStoreSettingsFromEnvironment({ AWS_ENDPOINT_URL: 'http://a', AWS_ENDPOINT_URL_S3: 'http://b' }).sources.s3
        .endpoint,
    ).toBe('http://b');
  });

  it('parses byte sizes with decimal and binary suffixes; 0 means no budget', () => {
    expect(byteSizeFrom('53687091200')).toBe(53_687_091_200);
    expect(byteSizeFrom('50G')).toBe(50e9);
    expect(byteSizeFrom('50Gi')).toBe(50 * 2 ** 30);
    expect(byteSizeFrom('1.5TiB')).toBe(1.5 * 2 ** 40);
    expect(byteSizeFrom('0')).toBeUndefined();
    expect(() => byteSizeFrom('lots')).toThrow(/IMAGE_CACHE_MAX_BYTES must be a byte count/);
  });

  it('reads extra headers as a JSON object and never echoes their values in errors', () => {
    expect(
      imageStoreSettingsFromEnvironment({ OS_IMAGE_DOWNLOAD_HEADERS: '{"Authorization":"Bearer t"}' }).sources.http
        .headers,
    ).toEqual({ authorization: 'Bearer t' });
    for (const bad of ['{"Authorization": 5}', '["x"]', 'Bearer secret-token']) {
      const err = (() => {
        try {
          imageStoreSettingsFromEnvironment({ OS_IMAGE_DOWNLOAD_HEADERS: bad });
        } catch (e) {
          return e as ImageSettingsError;
        }
      })();
      expect(err).toBeInstanceOf(ImageSettingsError);
      expect(err!.variable).toBe('OS_IMAGE_DOWNLOAD_HEADERS');
      expect(err!.message).not.toContain('secret');
    }
  });

  it('reads the trusted CA file and rejects one without a certificate', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-ca-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const good = path.join(dir, 'ca.pem');
    await writeFile(good, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(imageStoreSettingsFromEnvironment({ OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE: good }).sources.http.ca).toContain(
      'BEGIN CERTIFICATE',
    );
    await writeFile(path.join(dir, 'empty.pem'), 'nothing');
    expect(() =>
      imageStoreSettingsFromEnvironment({ OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE: path.join(dir, 'empty.pem') }),
    ).toThrow(/holds no PEM certificate/);
    expect(() =>
      imageStoreSettingsFromEnvironment({ OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE: path.join(dir, 'none.pem') }),
    ).toThrow(/cannot be read/);
  });

  it('rejects bad concurrency and booleans naming the variable', () => {
    expect(() => imageStoreSettingsFromEnvironment({ IMAGE_DOWNLOAD_CONCURRENCY: '0' })).toThrow(
      /^IMAGE_DOWNLOAD_CONCURRENCY must be/,
    );
    expect(imageStoreSettingsFromEnvironment({ IMAGE_DOWNLOAD_CONCURRENCY: '4' }).concurrency).toBe(4);
    expect(() => imageStoreSettingsFromEnvironment({ S3_FORCE_PATH_STYLE: 'yes' })).toThrow(
      /^S3_FORCE_PATH_STYLE must be true or false/,
    );
  });
});
