// One HTTP(S) GET to a registry (or to the storage a registry redirects blob reads to), with
// every clock the house rules ask for, set in one place (RegistryTimeouts):
//
//   connectMs   TCP connect plus TLS handshake; a dead mirror fails fast so the next one is tried
//   requestMs   from sending the request to the last byte of a small body (manifest, token,
//               error, config) — a slow drip of a 4 MiB manifest cannot hold a pull forever
//   idleMs      no byte on the socket for this long while a blob streams (a stalled registry)
//
// TLS trusts the default roots plus REGISTRY_CA_FILE's bundle; an `insecure` endpoint
// (registries.conf) skips verification. Each request opens its own connection (no pooled
// sockets survive a pull). Bodies are read with byte caps (`readCapped`).
//
// Errors are RegistryErrors naming the registry, repository and step, with the network cause
// and a hint about REGISTRY_CA_FILE for certificate failures; URLs are never put in messages
// (a storage redirect may carry a presigned query). Does not: authenticate, retry or follow
// redirects (registry-client.ts does). Next: registry-client.ts.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { describeError } from '../../../errors.js';
import { retryClassOf } from '../../load-failure/retry-policy.js';
import { type RegistryErrorContext, RegistryError } from './registry-error.js';

export interface RegistryTimeouts {
  connectMs: number;
  requestMs: number;
  idleMs: number;
}

export const DEFAULT_REGISTRY_TIMEOUTS: RegistryTimeouts = {
  /** A registry on the site network answers a TCP+TLS handshake in well under a second; 10 s
   *  leaves room for a loaded host while letting a dead mirror give way quickly. */
  connectMs: 10_000,
  /** Manifests (≤ 4 MiB), tokens and error bodies: a minute is generous on any working link. */
  requestMs: 60_000,
  /** A blob stream silent for a minute is stalled; the pull reconnects with Range or fails. */
  idleMs: 60_000,
};

export interface TlsTrust {
  /** PEM bundle added to the default roots (REGISTRY_CA_FILE); undefined: default roots only. */
  ca: string | undefined;
}

export interface GetRequest {
  url: URL;
  headers: Record<string, string>;
  /** Skip TLS verification (registries.conf `insecure = true`). */
  insecureTls: boolean;
  signal: AbortSignal;
  where: RegistryErrorContext;
}

export interface RegistryResponse {
  res: IncomingMessage;
  /** Clears the whole-request clock once a streamed body takes over (idle clock only). */
  streaming(): void;
}

/** GET; resolves at the response headers with the request clock still running. */
export function registryGet(
  request: GetRequest,
  trust: TlsTrust,
  timeouts: RegistryTimeouts,
): Promise<RegistryResponse> {
  const secure = request.url.protocol === 'https:';
  const ca = trust.ca ? [...tls.rootCertificates, trust.ca] : undefined;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(requestTimer);
      reject(err);
    };
    const options: https.RequestOptions = {
      method: 'GET',
      headers: { 'user-agent': 'bootsmith', ...request.headers },
      agent: false,
      signal: request.signal,
      ...(secure ? { ...(ca ? { ca } : {}), rejectUnauthorized: !request.insecureTls } : {}),
    };
    const req = (secure ? https : http).request(request.url, options);
    const requestTimer = setTimeout(() => {
      req.destroy(timeoutError(`no complete answer within ${timeouts.requestMs / 1000} s`));
    }, timeouts.requestMs);
    req.on('socket', (socket) => {
      socket.setTimeout(timeouts.idleMs, () => {
        socket.destroy(timeoutError(`no data for ${timeouts.idleMs / 1000} s`));
      });
      if (!socket.connecting) return;
      const connectTimer = setTimeout(() => {
        socket.destroy(timeoutError(`no connection within ${timeouts.connectMs / 1000} s`));
      }, timeouts.connectMs);
      socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      socket.once('close', () => clearTimeout(connectTimer));
    });
    req.on('response', (res) => {
      if (settled) {
        res.destroy();
        return;
      }
      settled = true;
      res.once('close', () => clearTimeout(requestTimer));
      res.once('end', () => clearTimeout(requestTimer));
      // a socket error after the headers reaches the body stream
      res.socket?.once('error', (err) => res.destroy(err));
      resolve({ res, streaming: () => clearTimeout(requestTimer) });
    });
    req.on('error', (err) => fail(request.signal.aborted ? request.signal.reason : networkError(err, request.where)));
    req.end();
  });
}

/** Reads a whole small body, refusing more than `cap` bytes (before reading when Content-Length says so). */
export async function readCapped(
  res: IncomingMessage,
  cap: number,
  onTooLarge: (size: number | undefined) => Error,
): Promise<Buffer> {
  const length = res.headers['content-length'];
  if (length !== undefined && /^\d+$/.test(length) && Number(length) > cap) {
    res.destroy();
    throw onTooLarge(Number(length));
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > cap) {
      res.destroy();
      throw onTooLarge(undefined);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** A network failure as a RegistryError (retry class from the error code). */
export function networkError(err: unknown, where: RegistryErrorContext): RegistryError {
  if (err instanceof RegistryError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const hint =
    typeof code === 'string' && /CERT|SIGNATURE|ERR_TLS|SELF_SIGNED/.test(code)
      ? ' (to trust a private CA, set REGISTRY_CA_FILE)'
      : '';
  const repo = where.repository !== undefined ? ` for ${where.repository}` : '';
  return new RegistryError(
    `registry ${where.registry}${repo}: ${where.step} request failed: ${describeError(err)}${hint}`,
    where,
    retryClassOf(err),
    'upstream',
    { cause: err },
  );
}

function timeoutError(message: string): Error {
  return Object.assign(new Error(message), { code: 'ETIMEDOUT' });
}
