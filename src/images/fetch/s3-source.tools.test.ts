// s3:// sources against s3rver (an S3-compatible server) on loopback with path-style
// addressing and static credentials: a whole download through the store, a resumed one, and
// a missing key.
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import { downloadToFile } from './download.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { ManagedImageStore } from '../managed-image-store.js';
import { DEFAULT_RETRY_POLICY } from '../load-failure/retry-policy.js';
import { type ImageStoreSettings, imageStoreSettingsFromEnvironment } from '../store-settings.js';
import { entry, fixtureBytes, sha256 } from '../test-support/images.js';
import { S3Source } from './s3-source.js';

describe('s3:// sources', () => {
  const iso = fixtureBytes();
  let dir: string;
  let s3: S3rver;
  let settings: ImageStoreSettings;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-s3-'));
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: path.join(dir, 's3'),
      configureBuckets: [{ name: 'isos' }],
    });
    const { port } = await s3.run();
    settings = imageStoreSettingsFromEnvironment({
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    });
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    await client.send(new PutObjectCommand({ Bucket: 'isos', Key: 'rhcos/4.17/live.iso', Body: iso }));
    client.destroy();
  });
  afterAll(async () => {
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('downloads, verifies and serves an image from a path-style S3-compatible store', async () => {
    const imageStore = new ManagedImageStore(
      [entry('4.17', 's3://isos/rhcos/4.17/live.iso', { sha256: sha256(iso) })],
      [],
      createLogger('silent'),
      {
        dataDir: path.join(dir, 'data'),
        settings,
      },
    );
    try {
      await imageStore.loadAll();
      expect(imageStore.health().images[0]).toMatchObject({ state: 'ready', source: 's3://isos/rhcos/4.17/live.iso' });
      const image = imageStore.resolve('4.17', 'x86_64');
      expect((await image.base.readExactly(0, iso.length)).equals(iso)).toBe(true);
    } finally {
      await imageStore.close();
    }
  });

  // (s3rver ignores If-Match, so the refusal of a changed object is not exercised here)
  it('reads a closed byte range with a ranged GetObject', async () => {
    const source = new S3Source('s3://isos/rhcos/4.17/live.iso', settings.sources.s3);
    try {
      const signal = AbortSignal.timeout(30_000);
      const first = await source.open({ offset: 0, validator: undefined, signal });
      if (first.kind !== 'bytes') throw new Error('expected bytes');
      first.stream.destroy();
      const bytes = await source.readRange(40_000, 40_000 + 70_000 - 1, first.validator, signal);
      expect(bytes.equals(iso.subarray(40_000, 110_000))).toBe(true);
      const last = await source.readRange(iso.length - 10, iso.length - 1, first.validator, signal);
      expect(last.equals(iso.subarray(iso.length - 10))).toBe(true);
    } finally {
      source.close();
    }
  });

  it('starts a partial download over when no validator was recorded for it', async () => {
    const part = path.join(dir, 'no-validator.part');
    await writeFile(part, Buffer.alloc(400_000, 0xee)); // bytes of unknown origin: never kept
    const starts: Array<[number | undefined, number]> = [];
    const source = new S3Source('s3://isos/rhcos/4.17/live.iso', settings.sources.s3);
    try {
      const hooks = {
        signal: new AbortController().signal,
        onStart: (t: number | undefined, a: number) => starts.push([t, a]),
        onBytes: () => undefined,
        onNotice: () => undefined,
      };
      expect(await downloadToFile(source, part, hooks, DEFAULT_RETRY_POLICY)).toEqual({
        sha256: sha256(iso),
        size: iso.length,
      });
      expect(starts).toEqual([[iso.length, 0]]);
    } finally {
      source.close();
    }
  });

  it('resumes a partial download with a ranged GetObject', async () => {
    const part = path.join(dir, 'resume.part');
    await writeFile(part, iso.subarray(0, 400_000));
    // the validator recorded by the attempt that wrote those bytes: s3rver's ETag is the MD5 of the object
    await writeFile(
      `${part}.json`,
      JSON.stringify({ validator: `"${createHash('md5').update(iso).digest('hex')}"`, total: iso.length }),
    );
    const starts: Array<[number | undefined, number]> = [];
    const source = new S3Source('s3://isos/rhcos/4.17/live.iso', settings.sources.s3);
    try {
      const result = await downloadToFile(
        source,
        part,
        {
          signal: new AbortController().signal,
          onStart: (t, a) => starts.push([t, a]),
          onBytes: () => undefined,
          onNotice: () => undefined,
        },
        DEFAULT_RETRY_POLICY,
      );
      expect(result).toEqual({ sha256: sha256(iso), size: iso.length });
      expect(starts).toEqual([[iso.length, 400_000]]);
    } finally {
      source.close();
    }
  });

  it('reports a missing key as a slow-retry failure naming the object', async () => {
    const source = new S3Source('s3://isos/missing.iso', settings.sources.s3);
    try {
      const err = await source
        .open({ offset: 0, validator: undefined, signal: new AbortController().signal })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImageLoadError);
      expect((err as ImageLoadError).retry).toBe('slow');
      expect((err as Error).message).toMatch(/^s3:\/\/isos\/missing\.iso: .*\(HTTP 404\)/);
    } finally {
      source.close();
    }
  });
});
