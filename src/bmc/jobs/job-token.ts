// Each boot job's own short-token ISO URL: `<image base>/bytoken/<token>/<version>/<arch>/<file>.iso`.
//
// The token is derived from the InfraEnv's image-token key and the job id (HMAC-SHA256, 24 bytes,
// base64url: the length of every short token, url-tokens.ts), so any replica resuming the job gets
// the same URL again and nothing secret is stored: image_url_tokens keeps only its hash, as for
// every short token, marked `standing` so the per-InfraEnv cap on minted tokens (a script calling
// image-url in a loop) never drops a fleet's job tokens (one job per BMC bounds them instead).
// Rotating the InfraEnv's key revokes it with every other token; a job that ejected its media
// revokes it at once (./job-runner.ts).
// Because the token is the job's alone, the first reads of it after the insert are that BMC
// reading the ISO, even when the same BMC fetched an ISO minutes before; this holds with
// AUTH_TYPE=none too (the image side resolves short tokens whatever the auth type).
// Does NOT: serve anything, or log the token (only its hash is ever passed on).
import { createHmac } from 'node:crypto';
import { hashUrlToken, URL_TOKEN_BYTES } from '../../image-ports/url-token-resolver.js';

export function jobToken(imageTokenKey: string, jobId: string): { token: string; hash: string } {
  const token = createHmac('sha256', Buffer.from(imageTokenKey, 'base64url'))
    .update(`bootsmith bmc boot job token|${jobId.toLowerCase()}`)
    .digest()
    .subarray(0, URL_TOKEN_BYTES)
    .toString('base64url');
  return { token, hash: hashUrlToken(token) };
}

export interface ImageBases {
  /** IMAGE_SERVICE_BASE_URL (http:// or https://). */
  imageServiceBaseUrl: string;
  /** A plain-HTTP base that serves ISOs too (HTTP_LISTEN_PORT with HTTP_ROUTES=all); undefined otherwise. */
  imageHttpBaseUrl?: string | undefined;
}

/**
 * The job's ISO URLs: the https one when the service serves ISOs over HTTPS, the http one when over
 * HTTP; `url` builds the job's token URL on a base (../core-port.ts `tokenIsoUrl`).
 */
export function jobIsoUrls(
  bases: ImageBases,
  url: (imageBase: string) => string,
): { imageUrl?: string; imageHttpsUrl?: string } {
  const main = url(bases.imageServiceBaseUrl);
  const https = /^https:/i.test(bases.imageServiceBaseUrl) ? main : undefined;
  const http = https === undefined ? main : bases.imageHttpBaseUrl ? url(bases.imageHttpBaseUrl) : undefined;
  return { ...(http ? { imageUrl: http } : {}), ...(https ? { imageHttpsUrl: https } : {}) };
}
