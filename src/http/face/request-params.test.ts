// The image side's request parameter parsing as tables: each row an input (a path segment, a
// token, a file name, or a query string sent to a real express app over loopback, parsed by
// express's own `simple` query parser as src/http/app.ts sets it) and what it must give: the
// value, or the typed error with its HTTP status and message. Tokens are never echoed back.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { statusForError } from '../../error-status.js';
import {
  infraEnvIdFromToken,
  infraEnvIdParam,
  isoTypeFromFilename,
  isoTypeFromQuery,
  stringQuery,
} from './request-params.js';

const ID = '0f0e0d0c-0b0a-4009-8807-060504030201';

type Outcome = { value: string | undefined } | { status: number; message: string };

function outcome(f: () => string | undefined): Outcome {
  try {
    return { value: f() };
  } catch (err) {
    return { status: statusForError(err), message: (err as Error).message };
  }
}

const jwt = (claims: unknown): string =>
  [
    Buffer.from('{"alg":"HS256"}').toString('base64url'),
    Buffer.from(typeof claims === 'string' ? claims : JSON.stringify(claims)).toString('base64url'),
    'signature-not-checked-here',
  ].join('.');

const NOT_AN_INFRA_ENV = { status: 404, message: 'the token in the URL does not name an InfraEnv' };

describe('infraEnvIdParam: table', () => {
  it.each<[string, string | undefined, Outcome]>([
    ['a UUID', ID, { value: ID }],
    ['an upper-case UUID, lower-cased', ID.toUpperCase(), { value: ID }],
    ['missing', undefined, { status: 400, message: 'invalid image id "": expected a UUID' }],
    ['empty', '', { status: 400, message: 'invalid image id "": expected a UUID' }],
    [
      'no dashes',
      ID.replace(/-/g, ''),
      { status: 400, message: `invalid image id "${ID.replace(/-/g, '')}": expected a UUID` },
    ],
    [
      'one character short',
      ID.slice(1),
      { status: 400, message: `invalid image id "${ID.slice(1)}": expected a UUID` },
    ],
    ['with a trailing newline', `${ID}\n`, { status: 400, message: `invalid image id "${ID}\\n": expected a UUID` }],
    [
      'a non-hex digit',
      `g${ID.slice(1)}`,
      { status: 400, message: `invalid image id "g${ID.slice(1)}": expected a UUID` },
    ],
  ])('%s', (_name, input, expected) => {
    expect(outcome(() => infraEnvIdParam(input))).toEqual(expected);
  });
});

describe('infraEnvIdFromToken: table', () => {
  it.each<[string, string, Outcome]>([
    ['infra_env_id (local and image-URL tokens)', jwt({ infra_env_id: ID }), { value: ID }],
    ['sub (OCM and image tokens)', jwt({ sub: ID.toUpperCase() }), { value: ID }],
    ['infra_env_id wins over sub', jwt({ infra_env_id: ID, sub: 'someone' }), { value: ID }],
    ['a non-string infra_env_id falls back to sub', jwt({ infra_env_id: 7, sub: ID }), { value: ID }],
    ['an infra_env_id that is no UUID', jwt({ infra_env_id: 'not-a-uuid' }), NOT_AN_INFRA_ENV],
    ['no claim naming an InfraEnv', jwt({ role: 'admin' }), NOT_AN_INFRA_ENV],
    ['a payload that is not JSON', jwt('{"infra_env_id":'), NOT_AN_INFRA_ENV],
    ['a payload that is JSON null', jwt('null'), NOT_AN_INFRA_ENV],
    ['one segment (an opaque URL token)', 'AbCdEf0123456789AbCdEf0123456789', NOT_AN_INFRA_ENV],
    ['empty', '', NOT_AN_INFRA_ENV],
  ])('%s', (_name, token, expected) => {
    const result = outcome(() => infraEnvIdFromToken(token));
    expect(result).toEqual(expected);
    if ('message' in result && token !== '') expect(result.message).not.toContain(token);
  });
});

describe('isoTypeFromFilename: table', () => {
  it.each<[string | undefined, Outcome]>([
    ['full.iso', { value: 'full-iso' }],
    ['minimal.iso', { value: 'minimal-iso' }],
    ['FULL.ISO', { status: 404, message: 'unrecognized file name "FULL.ISO": expected full.iso or minimal.iso' }],
    [
      'full.iso.sha256',
      { status: 404, message: 'unrecognized file name "full.iso.sha256": expected full.iso or minimal.iso' },
    ],
    [undefined, { status: 404, message: 'unrecognized file name "": expected full.iso or minimal.iso' }],
  ])('%s', (input, expected) => {
    expect(outcome(() => isoTypeFromFilename(input))).toEqual(expected);
  });
});

describe('query parameters through express (query parser "simple", as the image service sets it)', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.set('query parser', 'simple');
    app.get('/type', (req, res) => {
      res.json(outcome(() => isoTypeFromQuery(req)));
    });
    app.get('/string', (req, res) => {
      res.json(outcome(() => stringQuery(req, 'version')));
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const ask = async (path: string): Promise<Outcome> => {
    const json = (await (await fetch(`${base}${path}`)).json()) as {
      value?: string;
      status?: number;
      message?: string;
    };
    // JSON has no undefined: a missing `value` key is the undefined value.
    return json.status === undefined ? { value: json.value } : { status: json.status, message: json.message! };
  };

  it.each<[string, Outcome]>([
    ['?type=full-iso', { value: 'full-iso' }],
    ['?type=minimal-iso', { value: 'minimal-iso' }],
    ['?type=minimal%2Diso', { value: 'minimal-iso' }],
    ['', { status: 400, message: "'type' parameter required (full-iso or minimal-iso)" }],
    ['?type=', { status: 400, message: "'type' parameter required (full-iso or minimal-iso)" }],
    ['?type=raw', { status: 400, message: 'invalid value "raw" for parameter \'type\' (full-iso or minimal-iso)' }],
    [
      '?type=full-iso&type=minimal-iso',
      {
        status: 400,
        message: 'invalid value ["full-iso","minimal-iso"] for parameter \'type\' (full-iso or minimal-iso)',
      },
    ],
    ['?type[x]=full-iso', { status: 400, message: "'type' parameter required (full-iso or minimal-iso)" }],
  ])('isoTypeFromQuery %s', async (query, expected) => {
    expect(await ask(`/type${query}`)).toEqual(expected);
  });

  it.each<[string, Outcome]>([
    ['?version=4.16', { value: '4.16' }],
    ['?version=4.16%20rc', { value: '4.16 rc' }],
    ['', { value: undefined }],
    ['?version=', { value: undefined }],
    ['?other=1', { value: undefined }],
    ['?version=4.16&version=4.17', { status: 400, message: "parameter 'version' must be given once" }],
    ['?version=&version=', { status: 400, message: "parameter 'version' must be given once" }],
  ])('stringQuery %s', async (query, expected) => {
    expect(await ask(`/string${query}`)).toEqual(expected);
  });
});
