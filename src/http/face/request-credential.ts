// Extracts the caller's credential from an image-side request, the way
// assisted-image-service forwards it: the `api_key` query, then the `image_token` query
// or `Image-Token` header, then the `Authorization` header. Path-style URLs
// (/byapikey/, /bytoken/) supply theirs explicitly.
//
// It does not validate anything: the IgnitionSource decides what a credential opens.
import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'express';
import type { Credential } from '../../image-ports/ignition-source.js';
import { stringQuery } from './request-params.js';

export function credentialFromRequest(req: Request): Credential {
  const apiKey = stringQuery(req, 'api_key');
  if (apiKey) return { kind: 'api-key', value: apiKey };
  const imageToken = stringQuery(req, 'image_token');
  if (imageToken) return { kind: 'image-token', value: imageToken };
  return credentialFromHeaders(req.headers);
}

/** The credential of a request without a query string: the `Image-Token`, then the `Authorization` header. */
export function credentialFromHeaders(headers: IncomingHttpHeaders): Credential {
  const imageToken = headers['image-token'];
  if (typeof imageToken === 'string' && imageToken !== '') return { kind: 'image-token', value: imageToken };
  const authorization = headers.authorization;
  if (authorization) return { kind: 'authorization', value: authorization };
  return { kind: 'none' };
}
