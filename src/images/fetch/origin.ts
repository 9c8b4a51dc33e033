// Where a configured image comes from: a local file used in place (`/abs/path`, `file://`),
// or a remote source (`http(s)://`, `s3://`) downloaded into the cache; either may be a
// `.zip` holding the ISO (recognised by the URL path ending in `.zip`).
// It resolves the URL to an origin; it opens nothing.
import { fileURLToPath } from 'node:url';
import { ImageLoadError } from '../loader/load-error.js';
import { redactUrl } from '../os-images-config.js';
import { type HttpSettings, HttpSource } from './http-source.js';
import type { RemoteSource } from './remote-source.js';
import { type S3Settings, S3Source } from './s3-source.js';

export interface SourceSettings {
  http: HttpSettings;
  s3: S3Settings;
}

export type ImageOrigin =
  { kind: 'local'; path: string; zip: boolean } | { kind: 'remote'; source: RemoteSource; zip: boolean };

export function originOf(url: string, settings: SourceSettings): ImageOrigin {
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
