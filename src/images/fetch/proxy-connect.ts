// Connections through an egress proxy for the http(s):// image source:
//   - plain HTTP: request options that send the request to the proxy with an absolute-form
//     target (`GET http://mirror/rhcos.iso HTTP/1.1`), the origin's Host and Proxy-Authorization;
//   - HTTPS: a `createConnection` for https.request that opens a CONNECT tunnel to the origin
//     (Proxy-Authorization on the CONNECT only) and runs TLS to the origin inside it, with the
//     caller's CA list and the origin's name for SNI and certificate checks.
// The CONNECT answer must arrive within the timeout (the same bound as the direct path's idle
// timeout); anything but 2xx fails with a typed error naming the proxy without credentials.
//
// It does not decide whether to use a proxy (proxy-env.ts), follow redirects or resume
// (http-source.ts). Nothing here logs.
import http, { type RequestOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { describeError } from '../../errors.js';
import { ImageLoadError } from '../load-failure/load-error.js';
import { retryClassOf, retryClassOfStatus } from '../load-failure/retry-policy.js';
import type { ProxyEndpoint } from './proxy-env.js';

/** Options for http.request sending a plain-HTTP GET for `url` through `proxy`. */
export function viaHttpProxy(url: URL, proxy: ProxyEndpoint, headers: Record<string, string>): RequestOptions {
  // Userinfo in the source URL becomes the origin's Authorization (as node does on a direct
  // request); it never goes into the request line the proxy sees.
  const target = new URL(url.href);
  target.username = '';
  target.password = '';
  target.hash = '';
  const userinfo = url.username || url.password ? `${safeDecode(url.username)}:${safeDecode(url.password)}` : '';
  return {
    host: proxy.host,
    port: proxy.port,
    path: target.href,
    headers: {
      ...(userinfo ? { authorization: `Basic ${Buffer.from(userinfo).toString('base64')}` } : {}),
      ...headers,
      host: url.host,
      ...(proxy.authorization ? { 'proxy-authorization': proxy.authorization } : {}),
    },
  };
}

/** The error a proxy's refusal (a non-2xx answer, 407 above all) becomes. */
export function proxyRefused(proxy: ProxyEndpoint, status: number, target: string): ImageLoadError {
  const hint =
    status === 407
      ? proxy.authorization
        ? ' (the proxy refused the credentials in the proxy URL)'
        : ' (the proxy wants credentials: put them in the proxy URL, http://user:password@host:port)'
      : '';
  return new ImageLoadError(
    'upstream',
    `${target}: the proxy ${proxy.display} answered HTTP ${status}${hint}`,
    status === 407 ? 'slow' : retryClassOfStatus(status),
    { status, proxy: proxy.display },
  );
}

export interface TunnelOptions {
  proxy: ProxyEndpoint;
  /** The origin (`https://host:port/...`). */
  url: URL;
  /** Trusted roots for the origin's certificate (undefined: Node's defaults). */
  ca: string[] | undefined;
  /** Bound on the wait for the proxy's CONNECT answer. */
  timeoutMs: number;
  signal: AbortSignal;
  /** Redacted origin URL for error messages. */
  target: string;
}

/** A `createConnection` for https.request that reaches the origin through a CONNECT tunnel. */
export function tunnelConnection(options: TunnelOptions) {
  return (_opts: unknown, callback: (err: Error | null, socket: Duplex) => void): undefined => {
    openTunnel(options).then(
      (socket) => callback(null, socket),
      // node reads no socket when it is handed an error
      (err: Error) => callback(err, undefined as unknown as Duplex),
    );
    return undefined;
  };
}

async function openTunnel({ proxy, url, ca, timeoutMs, signal, target }: TunnelOptions): Promise<tls.TLSSocket> {
  const port = url.port || '443';
  const authority = `${url.hostname}:${port}`;
  const raw = await new Promise<Duplex>((resolve, reject) => {
    const req = http.request({
      host: proxy.host,
      port: proxy.port,
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...(proxy.authorization ? { 'proxy-authorization': proxy.authorization } : {}) },
      signal,
    });
    req.setTimeout(timeoutMs, () =>
      req.destroy(
        Object.assign(new Error(`the proxy gave no CONNECT answer within ${timeoutMs / 1000} s`), {
          code: 'ETIMEDOUT',
        }),
      ),
    );
    req.once('connect', (res, socket, head) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        socket.destroy();
        reject(proxyRefused(proxy, status, target));
        return;
      }
      req.setTimeout(0);
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once('response', (res) => {
      // a proxy that answers CONNECT with an ordinary response (no upgrade): refused
      res.resume();
      reject(proxyRefused(proxy, res.statusCode ?? 0, target));
    });
    req.once('error', (err) => reject(signal.aborted ? signal.reason : proxyNetworkError(err, proxy, target)));
    req.end();
  });
  const servername = url.hostname.replace(/^\[|\]$/g, '');
  return tls.connect({
    socket: raw,
    ...(servername && !/^[\d.]+$|:/.test(servername) ? { servername } : {}),
    host: servername,
    ...(ca ? { ca } : {}),
    ALPNProtocols: ['http/1.1'],
  });
}

function proxyNetworkError(err: Error, proxy: ProxyEndpoint, target: string): ImageLoadError {
  const code = (err as { code?: unknown }).code;
  return new ImageLoadError(
    'upstream',
    `${target}: cannot reach the proxy ${proxy.display}: ${describeError(err)}`,
    retryClassOf(err),
    { code, proxy: proxy.display },
    { cause: err },
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
