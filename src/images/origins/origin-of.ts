// Which origin an OS_IMAGES entry's ISO comes from, by its URL (or `release_image`), one row each:
//
//   /abs/path, file://        local-file-origin.ts (a regular file used in place; a block device
//                             copied by block-device-origin.ts)
//   http(s)://, s3://         remote-object-origin.ts, over src/images/fetch/http-source.ts or
//                             src/images/fetch/s3-source.ts
//   any of these ending .zip  zip-origin.ts, around the local file or the remote object
//   oci://, release_image     registry-origin.ts
//
// Does: resolve an entry to its ImageOrigin (src/images/origins/image-origin.ts); an unsupported
// scheme is a `never` load error. Does NOT: open, stat or fetch anything (a remote source opens its
// connections when a write asks for bytes).
// Next: src/images/origins/local-file-origin.ts.
import { fileURLToPath } from 'node:url';
import { type HttpSettings, HttpSource } from '../fetch/http-source.js';
import type { OciSettings } from '../fetch/oci/oci-pull.js';
import type { RemoteSource } from '../fetch/remote-source.js';
import { type S3Settings, S3Source } from '../fetch/s3-source.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { type OsImageEntry, redactUrl } from '../os-images-config.js';
import type { ImageOrigin } from './image-origin.js';
import { LocalFileOrigin } from './local-file-origin.js';
import { RegistryOrigin } from './registry-origin.js';
import { RemoteObjectOrigin } from './remote-object-origin.js';
import { ZipOrigin } from './zip-origin.js';

export interface SourceSettings {
  http: HttpSettings;
  s3: S3Settings;
  /** REGISTRY_AUTH_FILE, PULL_SECRET_FILE, REGISTRY_CA_FILE, REGISTRIES_CONF_FILE and the registry clocks. */
  registry: OciSettings;
}

/** The origin of `entry`'s ISO. */
export function originOfEntry(entry: OsImageEntry, settings: SourceSettings): ImageOrigin {
  if (entry.releaseImage !== undefined)
    return new RegistryOrigin(
      { kind: 'release', releaseImage: entry.releaseImage },
      settings.registry,
      `release_image ${entry.releaseImage}`,
    );
  return originOf(entry.url!, settings);
}

export function originOf(url: string, settings: SourceSettings): ImageOrigin {
  if (/^oci:\/\//i.test(url)) return new RegistryOrigin({ kind: 'image', reference: url }, settings.registry, url);
  if (url.startsWith('/') || url.startsWith('file://')) {
    const path = url.startsWith('/') ? url : fileURLToPath(url);
    return isZip(path) ? new ZipOrigin({ kind: 'local', path }) : new LocalFileOrigin(path);
  }
  const parsed = new URL(url);
  const remote = (source: RemoteSource): ImageOrigin =>
    isZip(parsed.pathname) ? new ZipOrigin({ kind: 'remote', source }) : new RemoteObjectOrigin(source);
  switch (parsed.protocol) {
    case 'http:':
    case 'https:':
      return remote(new HttpSource(url, settings.http));
    case 's3:':
      return remote(new S3Source(url, settings.s3));
    default:
      throw new ImageLoadError('upstream', `${redactUrl(url)}: unsupported URL scheme`, 'never');
  }
}

function isZip(pathname: string): boolean {
  return pathname.toLowerCase().endsWith('.zip');
}
