// Downloading an image over http(s)://: GET with redirects (at most 10; the configured extra
// headers are dropped when a redirect leaves the origin, so a mirror's Authorization never
// reaches a CDN or a presigned S3 URL), resume with `Range: bytes=N-` guarded by `If-Range`,
// a custom CA bundle added to the default roots, `Accept-Encoding: identity`, and an idle
// timeout on the socket.
//
// It checks what a resumed answer really is: a Range is only ever sent with an If-Range
// validator (without one it asks for the whole object); a 206 must carry `Content-Range`
// starting at the requested offset and, when it names an ETag or Last-Modified, the same one as
// the validator; a 200 means the server ignored the Range or the object changed (the caller
// restarts from 0); a 416 whose size equals the offset means the file is complete.
// With an egress proxy (HTTP_PROXY/HTTPS_PROXY/NO_PROXY, src/images/fetch/proxy-env.ts) each
// request, redirects included, is routed afresh for its own URL: plain HTTP goes to the proxy
// in absolute form, HTTPS through a CONNECT tunnel (src/images/fetch/proxy-connect.ts).
// It does not retry, write files or hash: src/images/fetch/download.ts does.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { describeError } from '../../errors.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { redactUrl } from '../os-images-config.js';
import { retryClassOf, retryClassOfStatus } from '../load-failure/retry-policy.js';
import { proxyRefused, tunnelConnection, viaHttpProxy } from './proxy-connect.js';
import type { ProxySettings } from './proxy-env.js';
import {
  type OpenRequest,
  type RemoteBody,
  type RemoteSource,
  collectExactly,
  parseContentRange,
  parseUnsatisfiedRange,
} from './remote-source.js';

export interface HttpSettings {
  /** Extra request headers (OS_IMAGE_DOWNLOAD_HEADERS); values are secrets, never logged. */
  headers: Record<string, string>;
  /** PEM bundle trusted in addition to the default roots (OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE). */
  ca: string | undefined;
  /** A connection silent for this long is dropped (and the download resumed). */
  idleTimeoutMs: number;
  /** Egress proxy (HTTP_PROXY/HTTPS_PROXY/NO_PROXY); undefined: always direct. */
  proxy?: ProxySettings | undefined;
}

const MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class HttpSource implements RemoteSource {
  readonly description: string;
  /** The default roots plus the configured bundle (a bare `ca` option would replace the roots). */
  private readonly ca: string[] | undefined;

  constructor(
    private readonly url: string,
    private readonly settings: HttpSettings,
  ) {
    this.description = redactUrl(url);
    this.ca = settings.ca ? [...tls.rootCertificates, settings.ca] : undefined;
  }

  async open({ offset, validator, signal }: OpenRequest): Promise<RemoteBody> {
    if (offset > 0 && !validator) return this.open({ offset: 0, validator: undefined, signal });
    const ranged = offset > 0 ? { range: `bytes=${offset}-`, ...(validator ? { 'if-range': validator } : {}) } : {};
    const res = await this.get(ranged, signal);
    const status = res.statusCode ?? 0;
    if (offset > 0 && status === 416) {
      res.resume();
      const total = parseUnsatisfiedRange(res.headers['content-range']);
      if (total === offset) return { kind: 'complete', total };
      return this.open({ offset: 0, validator: undefined, signal });
    }
    if (offset > 0 && status === 206) {
      const range = parseContentRange(res.headers['content-range']);
      if (range?.start !== offset || !sameValidator(res, validator)) {
        // a range we did not ask for: start over rather than guess
        res.destroy();
        return this.open({ offset: 0, validator: undefined, signal });
      }
      return { kind: 'bytes', start: offset, total: range.total, validator, stream: res };
    }
    if (status === 200) {
      this.checkEncoding(res);
      const length = res.headers['content-length'];
      return {
        kind: 'bytes',
        start: 0,
        total: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
        validator: validatorOf(res),
        stream: res,
      };
    }
    res.resume();
    throw new ImageLoadError(
      'upstream',
      `${this.description}: the server answered HTTP ${status}`,
      retryClassOfStatus(status),
      {
        status,
      },
    );
  }

  async readRange(start: number, end: number, validator: string | undefined, signal: AbortSignal): Promise<Buffer> {
    const what = `${this.description} bytes ${start}-${end}`;
    const res = await this.get(
      { range: `bytes=${start}-${end}`, ...(validator ? { 'if-range': validator } : {}) },
      signal,
    );
    const range = parseContentRange(res.headers['content-range']);
    if (
      res.statusCode !== 206 ||
      range?.start !== start ||
      range.end !== end ||
      (validator && !sameValidator(res, validator))
    ) {
      res.destroy();
      const status = res.statusCode ?? 0;
      throw new ImageLoadError(
        'upstream',
        status === 200 && validator
          ? `${what}: the source no longer holds the object being downloaded (it answered the whole, new object)`
          : `${what}: the source answered HTTP ${status}${range ? ` for bytes ${range.start}-${range.end}` : ''} instead of the range`,
        status === 206 || status === 200 ? 'fast' : retryClassOfStatus(status),
        { status },
      );
    }
    this.checkEncoding(res);
    return collectExactly(res, end - start + 1, what);
  }

  close(): void {}

  private checkEncoding(res: IncomingMessage): void {
    const encoding = res.headers['content-encoding'];
    if (encoding && encoding !== 'identity') {
      res.destroy();
      throw new ImageLoadError(
        'upstream',
        `${this.description}: the server sent Content-Encoding ${encoding} despite Accept-Encoding: identity`,
        'never',
      );
    }
  }

  /** GET following redirects; resolves with the first non-redirect response. */
  private async get(extra: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
    let url = new URL(this.url);
    let custom = this.settings.headers;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const res = await this.request(url, { ...custom, ...extra, 'accept-encoding': 'identity' }, signal);
      const location = res.headers.location;
      if (!REDIRECTS.has(res.statusCode ?? 0) || !location) return res;
      res.resume();
      const next = new URL(location, url);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new ImageLoadError(
          'upstream',
          `${this.description}: redirected to an unsupported ${next.protocol} URL`,
          'slow',
        );
      }
      if (next.origin !== url.origin) custom = {};
      url = next;
    }
    throw new ImageLoadError('upstream', `${this.description}: more than ${MAX_REDIRECTS} redirects`, 'slow');
  }

  private request(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
    const secure = url.protocol === 'https:';
    const proxy = this.settings.proxy?.proxyFor(url);
    const target = redactUrl(url.toString());
    return new Promise((resolve, reject) => {
      const options = { method: 'GET', headers, signal, ...(secure && this.ca ? { ca: this.ca } : {}) };
      let req: http.ClientRequest;
      if (!proxy) {
        req = (secure ? https : http).request(url, options, resolve);
      } else if (!secure) {
        req = http.request({ ...viaHttpProxy(url, proxy, headers), method: 'GET', signal }, (res) => {
          if (res.statusCode === 407) {
            res.resume();
            reject(proxyRefused(proxy, 407, target));
          } else resolve(res);
        });
      } else {
        const createConnection = tunnelConnection({
          proxy,
          url,
          ca: this.ca,
          timeoutMs: this.settings.idleTimeoutMs,
          signal,
          target,
        });
        req = https.request(url, { ...options, agent: undefined, createConnection }, resolve);
      }
      req.setTimeout(this.settings.idleTimeoutMs, () => {
        req.destroy(
          Object.assign(new Error(`no data for ${this.settings.idleTimeoutMs / 1000} s`), { code: 'ETIMEDOUT' }),
        );
      });
      req.on('error', (err) =>
        reject(
          signal.aborted
            ? signal.reason
            : err instanceof ImageLoadError
              ? err
              : this.networkError(err, proxy ? `${target} (via the proxy ${proxy.display})` : target),
        ),
      );
      req.end();
    });
  }

  private networkError(err: Error, where: string): ImageLoadError {
    const retry = retryClassOf(err);
    const code = (err as { code?: unknown }).code;
    const hint =
      typeof code === 'string' && /CERT|SIGNATURE|ERR_TLS/.test(code)
        ? ' (to trust a private CA, set OS_IMAGE_DOWNLOAD_TRUSTED_CA_FILE)'
        : '';
    return new ImageLoadError('upstream', `${where}: ${describeError(err)}${hint}`, retry, { code }, { cause: err });
  }
}

/** False when a 206 names an ETag or Last-Modified other than the validator it was asked with. */
function sameValidator(res: IncomingMessage, validator: string | undefined): boolean {
  if (validator === undefined) return false;
  const etag = res.headers.etag;
  const lastModified = res.headers['last-modified'];
  if (validator.startsWith('"')) return etag === undefined || etag === validator;
  return lastModified === undefined || lastModified === validator;
}

/** A strong ETag, else Last-Modified: what If-Range accepts to guard a resume. */
function validatorOf(res: IncomingMessage): string | undefined {
  const etag = res.headers.etag;
  if (etag && !etag.startsWith('W/')) return etag;
  return res.headers['last-modified'];
}
