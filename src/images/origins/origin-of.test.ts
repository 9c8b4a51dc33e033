// Which origin an OS_IMAGES entry resolves to, by its URL or release_image, as a table: the kind,
// its description (what logs name), its failure policy and whether it can be read by range while
// it downloads. Nothing is opened (constructing a remote source connects nowhere).
import { describe, expect, it } from 'vitest';

import { ImageLoadError } from '../load-failure/load-error.js';
import type { OsImageEntry } from '../os-images-config.js';
import { defaultImageStoreSettings } from '../store-settings.js';
import type { ImageOrigin, PartDiscard } from './image-origin.js';
import { LocalFileOrigin } from './local-file-origin.js';
import { originOf, originOfEntry } from './origin-of.js';
import { RegistryOrigin } from './registry-origin.js';
import { RemoteObjectOrigin } from './remote-object-origin.js';
import { ZipOrigin } from './zip-origin.js';

const SETTINGS = defaultImageStoreSettings().sources;

describe('originOf: table', () => {
  it.each<[string, abstract new (...args: never[]) => ImageOrigin, string, PartDiscard, boolean]>([
    ['/srv/rhcos.iso', LocalFileOrigin, '/srv/rhcos.iso', 'any-failure', false],
    ['file:///srv/rhcos.iso', LocalFileOrigin, '/srv/rhcos.iso', 'any-failure', false],
    ['/srv/rhcos.zip', ZipOrigin, '/srv/rhcos.zip', 'content-failure', false],
    ['http://mirror.example/rhcos.iso', RemoteObjectOrigin, 'http://mirror.example/rhcos.iso', 'full-disk', true],
    ['https://mirror.example/rhcos.iso', RemoteObjectOrigin, 'https://mirror.example/rhcos.iso', 'full-disk', true],
    ['https://mirror.example/rhcos.ZIP', ZipOrigin, 'https://mirror.example/rhcos.ZIP', 'content-failure', false],
    ['s3://bucket/rhcos.iso', RemoteObjectOrigin, 's3://bucket/rhcos.iso', 'full-disk', true],
    ['s3://bucket/rhcos.zip', ZipOrigin, 's3://bucket/rhcos.zip', 'content-failure', false],
    [
      'oci://mirror.example:5000/ocp/iso:4.17',
      RegistryOrigin,
      'oci://mirror.example:5000/ocp/iso:4.17',
      'content-failure',
      false,
    ],
  ])('%s → %o', (url, kind, description, discardPartOn, rangeReadable) => {
    const origin = originOf(url, SETTINGS);
    expect(origin).toBeInstanceOf(kind);
    expect(origin.description).toBe(description);
    expect(origin.discardPartOn).toBe(discardPartOn);
    expect(origin.rangeSource !== undefined).toBe(rangeReadable);
    expect(origin.inPlace !== undefined).toBe(kind === LocalFileOrigin);
  });

  it('names an https URL without its query (a presigned URL carries secrets)', () => {
    const origin = originOf('https://mirror.example/rhcos.iso?X-Amz-Signature=secret', SETTINGS);
    expect(origin.description).not.toContain('secret');
  });

  it('refuses an unsupported scheme for good, without the secrets of the URL', () => {
    let thrown: unknown;
    try {
      originOf('ftp://user:password@mirror.example/rhcos.iso', SETTINGS);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ImageLoadError);
    expect((thrown as ImageLoadError).retry).toBe('never');
    expect((thrown as Error).message).toMatch(/unsupported URL scheme/);
    expect((thrown as Error).message).not.toContain('password');
  });

  it('a release_image is a registry origin named after it', () => {
    const entry = {
      openshiftVersion: '4.17',
      cpuArchitecture: 'x86_64',
      releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64',
    } as OsImageEntry;
    const origin = originOfEntry(entry, SETTINGS);
    expect(origin).toBeInstanceOf(RegistryOrigin);
    expect(origin.description).toBe('release_image quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64');
  });
});
