// The platform's listeners, opened before any wing is assembled, so that default base URLs
// (IMAGE_SERVICE_BASE_URL, SERVICE_BASE_URL) are the address the process really listens on: on
// every address (0.0.0.0, ::), the host's routable address (src/startup/: the default route's
// interface, or the only non-loopback address), and a start with no address to hand out is
// refused. What exposes the service (AUTH_TYPE=none beyond loopback, when a wing serves the API)
// or hands out URLs only this machine reaches becomes a warning. With HTTPS_CERT_FILE and
// HTTPS_KEY_FILE, LISTEN_PORT serves HTTPS (certificates reloaded on change and on SIGHUP) and
// HTTP_LISTEN_PORT adds a plain listener for what iPXE fetches; iPXE scripts and PXE URLs then
// point at the plain one. Until `serve` is called they answer 503 `starting`.
// Does NOT: know a wing or a route (src/service.ts hands the app over). Next: ./wing.ts.
import type http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { writeErrorResponse } from '../http/representation/error-response.js';
import { plainBaseUrl } from '../http/face/plain-base-url.js';
import { plainHttpRefusal } from '../http/face/plain-route-policy.js';
import { Drain } from '../http/transport/drain.js';
import { createLimitedServer } from '../http/transport/listener-limits.js';
import { CertificateReloader } from '../http/transport/tls/certificate-reloader.js';
import type { TlsMaterial } from '../http/transport/tls/tls-material.js';
import { TlsMetrics } from '../http/transport/tls/tls-metrics.js';
import type { Metrics } from '../metrics.js';
import { type HostNetwork, readHostNetwork } from '../startup/host-routes.js';
import { type HandedOutUrl, exposureWarnings, resolveBaseUrls } from '../startup/reachability.js';
import { chooseAddress } from '../startup/routable-address.js';
import { type ListenTarget, listenRefusal } from '../startup/setting-refusals.js';
import type { HandedOutBases } from './wing.js';

export interface Listeners {
  /** LISTEN_PORT's server (an https.Server with native TLS). */
  server: http.Server;
  /** The URL it listens on, e.g. http://127.0.0.1:8080 (https:// with native TLS). */
  url: string;
  /** HTTP_LISTEN_PORT's plain server and URL, next to HTTPS. */
  plainServer: http.Server | undefined;
  plainUrl: string | undefined;
  connectionCap: number;
  drain: Drain;
  bases: HandedOutBases;
  /** This listener as others reach it; undefined when no address could be chosen. */
  advertisedUrl: string | undefined;
  /** Which address the derived URLs use and how to change it. */
  notes: string[];
  /** What exposes the service or hands out URLs only this machine reaches. */
  warnings: string[];
  /** Native TLS: reloads the certificate (also on SIGHUP). */
  certificates: CertificateReloader | undefined;
  /** Hands the requests to `handler` (until then: 503 `starting`). */
  serve(handler: http.RequestListener): void;
  /** Stops the certificate reloads and the SIGHUP hook. */
  stopCertificates(): void;
  /** Closes both listeners at once (a refused start; a stop drains them instead). */
  close(): void;
}

export interface ListenerOptions {
  logger: Logger;
  metrics: Metrics;
  /** HTTPS_CERT_FILE and HTTPS_KEY_FILE, loaded (and checked) before anything listens. */
  tlsMaterial: TlsMaterial | undefined;
  /** A wing serves the assisted API: SERVICE_BASE_URL is handed out and AUTH_TYPE=none warned of. */
  servesApi: boolean;
  /** This host's routes and addresses; read from /proc and os.networkInterfaces() when absent. */
  hostNetwork: HostNetwork | undefined;
}

export async function openListeners(config: Config, options: ListenerOptions): Promise<Listeners> {
  const { logger, metrics, tlsMaterial, servesApi } = options;
  let handler: http.RequestListener = (_req, res) => {
    res
      .writeHead(503, { 'Retry-After': '1', 'Content-Type': 'application/json' })
      .end('{"code":503,"message":"starting"}');
  };
  const {
    server,
    connectionCap,
    metrics: listenerMetrics,
  } = await createLimitedServer(
    config.listener,
    { logger, registry: metrics.registry },
    (req, res) => handler(req, res),
    tlsMaterial,
  );
  await listen(server, { portVariable: 'LISTEN_PORT', port: config.listenPort, address: config.listenAddress });
  const bound = server.address() as AddressInfo;
  const scheme = tlsMaterial ? 'https' : 'http';
  const url = listeningUrl(bound, scheme);
  let baseUrls;
  try {
    baseUrls = resolveBaseUrls({
      scheme,
      port: bound.port,
      listenAddress: config.listenAddress,
      imageServiceBaseUrl: config.imageServiceBaseUrl,
      serviceBaseUrl: config.serviceBaseUrl,
      choice: chooseAddress(bound.address, options.hostNetwork ?? (await readHostNetwork())),
    });
  } catch (err) {
    server.close();
    throw err;
  }
  const { imageServiceBaseUrl, serviceBaseUrl } = baseUrls;
  const drain = new Drain(server);

  // HTTP_LISTEN_PORT: plain HTTP next to HTTPS, by default only for what iPXE fetches.
  let plainServer: http.Server | undefined;
  let plainUrl: string | undefined;
  if (config.tls?.httpListenPort !== undefined) {
    const routes = config.tls.httpRoutes;
    plainServer = (
      await createLimitedServer(
        config.listener,
        { logger, registry: metrics.registry, metrics: listenerMetrics },
        (req, res) => {
          const httpsBase = req.url?.startsWith('/api/') ? serviceBaseUrl : imageServiceBaseUrl;
          const refusal = plainHttpRefusal(req.method, req.url, routes, httpsBase);
          if (refusal) writeErrorResponse(req, res, refusal);
          else handler(req, res);
        },
      )
    ).server;
    try {
      await listen(plainServer, {
        portVariable: 'HTTP_LISTEN_PORT',
        port: config.tls.httpListenPort,
        address: config.listenAddress,
      });
    } catch (err) {
      server.close();
      throw err;
    }
    plainUrl = listeningUrl(plainServer.address() as AddressInfo, 'http');
    drain.add(plainServer);
  }
  const plainPort = plainServer ? (plainServer.address() as AddressInfo).port : undefined;
  // The plain listener as others reach it: same host as the derived base URLs.
  const plainAdvertised =
    plainUrl && plainPort !== undefined && baseUrls.advertisedHost !== undefined
      ? `http://${baseUrls.advertisedHost}:${plainPort}`
      : plainUrl;
  // Where iPXE scripts and PXE artifacts point (iPXE speaks plain HTTP only).
  const pxeImageBaseUrl =
    config.imageServiceHttpBaseUrl ??
    (plainAdvertised && plainPort !== undefined
      ? plainBaseUrl(config.imageServiceBaseUrl, plainAdvertised, plainPort)
      : imageServiceBaseUrl);
  const pxeServiceBaseUrl =
    plainAdvertised && plainPort !== undefined
      ? plainBaseUrl(config.serviceBaseUrl, plainAdvertised, plainPort)
      : serviceBaseUrl;
  const handedOut: HandedOutUrl[] = [
    { variable: 'IMAGE_SERVICE_BASE_URL', url: imageServiceBaseUrl, configured: !!config.imageServiceBaseUrl },
    ...(servesApi
      ? [{ variable: 'SERVICE_BASE_URL' as const, url: serviceBaseUrl, configured: !!config.serviceBaseUrl }]
      : []),
    ...(pxeImageBaseUrl !== imageServiceBaseUrl
      ? [
          {
            variable: 'IMAGE_SERVICE_HTTP_BASE_URL' as const,
            url: pxeImageBaseUrl,
            configured: !!config.imageServiceHttpBaseUrl,
          },
        ]
      : []),
  ];
  const warnings = exposureWarnings({
    bound: bound.address,
    port: bound.port,
    authType: config.authType,
    servesApi,
    handedOut,
  });

  let certificates: CertificateReloader | undefined;
  if (config.tls && tlsMaterial) {
    const tlsMetrics = new TlsMetrics(metrics.registry, () => certificates?.status());
    certificates = new CertificateReloader({
      files: config.tls,
      initial: tlsMaterial,
      apply: (material) => (server as https.Server).setSecureContext(material.secureContext),
      logger,
      onFailure: () => tlsMetrics.reloadFailures.inc(),
    });
    await certificates.start();
  }
  const onHangup = () => void certificates?.reload('SIGHUP');
  if (certificates) process.on('SIGHUP', onHangup);

  return {
    server,
    url,
    plainServer,
    plainUrl,
    connectionCap,
    drain,
    bases: {
      imageServiceBaseUrl,
      serviceBaseUrl,
      pxeImageBaseUrl,
      pxeServiceBaseUrl,
      // the plain port serves ISOs only with HTTP_ROUTES=all (BMCs without HTTPS virtual media)
      plainIsoBaseUrl: plainServer && config.tls?.httpRoutes === 'all' ? pxeImageBaseUrl : undefined,
    },
    advertisedUrl: baseUrls.advertisedUrl,
    notes: baseUrls.notes,
    warnings,
    certificates,
    serve(app) {
      handler = app;
    },
    stopCertificates() {
      process.off('SIGHUP', onHangup);
      certificates?.stop();
    },
    close() {
      server.close();
      plainServer?.close();
    },
  };
}

function listeningUrl(address: AddressInfo, scheme: 'http' | 'https'): string {
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${host}:${address.port}`;
}

/** Listens as `target` says; a bind its setting makes impossible is a ConfigError naming the setting. */
function listen(server: http.Server, target: ListenTarget): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const refused = (err: unknown) => reject(listenRefusal(err, target));
    server.once('error', refused);
    server.listen(target.port, target.address, () => {
      server.off('error', refused);
      resolve();
    });
  });
}
