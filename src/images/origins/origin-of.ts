// Where a configured image comes from: a local file used in place (`/abs/path`, `file://`; a
// regular file or a block device), a remote source (`http(s)://`, `s3://`) downloaded into the
// cache — either may be a `.zip` holding the ISO (recognised by the URL path ending in `.zip`) —,
// or an OCI registry (`oci://` images and artifacts, `release_image` payloads) pulled into the
// cache by src/images/fetch/oci/oci-pull.ts.
// It resolves the entry to an origin; it opens nothing.
import { fileURLToPath } from 'node:url';
import { ImageLoadError } from '../load-failure/load-error.js';
import { type OsImageEntry, redactUrl } from '../os-images-config.js';
import { type HttpSettings, HttpSource } from '../fetch/http-source.js';
import type { OciSettings, OciSource } from '../fetch/oci/oci-pull.js';
import type { RemoteSource } from '../fetch/remote-source.js';
import { type S3Settings, S3Source } from '../fetch/s3-source.js';

export interface SourceSettings {
  http: HttpSettings;
  s3: S3Settings;
  /** REGISTRY_AUTH_FILE, PULL_SECRET_FILE, REGISTRY_CA_FILE, REGISTRIES_CONF_FILE and the registry clocks. */
  registry: OciSettings;
}

export type ImageOrigin =
  | { kind: 'local'; path: string; zip: boolean }
  | { kind: 'remote'; source: RemoteSource; zip: boolean }
  | { kind: 'registry'; source: OciSource; settings: OciSettings; description: string };

/** The origin of `entry`'s ISO. */
export function originOfEntry(entry: OsImageEntry, settings: SourceSettings): ImageOrigin {
  if (entry.releaseImage !== undefined)
    return {
      kind: 'registry',
      source: { kind: 'release', releaseImage: entry.releaseImage },
      settings: settings.registry,
      description: `release_image ${entry.releaseImage}`,
    };
  return originOf(entry.url!, settings);
}

export function originOf(url: string, settings: SourceSettings): ImageOrigin {
  if (/^oci:\/\//i.test(url))
    return {
      kind: 'registry',
      source: { kind: 'image', reference: url },
      settings: settings.registry,
      description: url,
    };
  if (url.startsWith('/') || url.startsWith('file://')) {
    const path = url.startsWith('/') ? url : fileURLToPath(url);
    return { kind: 'local', path, zip: isZip(path) };
  }
  const parsed = new URL(url);
  const zip = isZip(parsed.pathname);
  switch (parsed.protocol) {
    case 'http:':
    case 'https:':
      return { kind: 'remote', source: new HttpSource(url, settings.http), zip };
    case 's3:':
      return { kind: 'remote', source: new S3Source(url, settings.s3), zip };
    default:
      throw new ImageLoadError('upstream', `${redactUrl(url)}: unsupported URL scheme`, 'never');
  }
}

function isZip(pathname: string): boolean {
  return pathname.toLowerCase().endsWith('.zip');
}
