// ApiClient, the client verbs' HTTP client: where it connects (--url, else BOOTSMITH_URL, else the
// default) and what it refuses, as a table; then its calls against a loopback server: the Bearer
// token, JSON in and out, an empty 204, and API errors turned into one line naming the request
// and the service's reason (the bodies are the core's own error bodies, src/platform/api/error-handler.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { errorBody } from '../../platform/api/error-handler.js';
import { parseArgs } from '../args.js';
import { readArgs, verbSpec } from '../options.js';
import { CliError, type CliIo } from '../verb.js';
import { ApiClient, CLIENT_OPTIONS, DEFAULT_URL, NO_TOKEN_HINT } from './api-client.js';

const SPEC = verbSpec('bootsmith test', '', CLIENT_OPTIONS, {});
const io = (env: NodeJS.ProcessEnv): CliIo => ({ env }) as CliIo;

function from(argv: string[], env: NodeJS.ProcessEnv = {}): ApiClient | string {
  try {
    return ApiClient.from(readArgs(parseArgs(argv, SPEC), CLIENT_OPTIONS, {}).options, io(env));
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    return (err as Error).message;
  }
}

describe('ApiClient.from: table', () => {
  it.each<[string, string[], NodeJS.ProcessEnv, string, Record<string, string>]>([
    ['the default', [], {}, DEFAULT_URL, {}],
    ['BOOTSMITH_URL', [], { BOOTSMITH_URL: 'http://svc.example:8090' }, 'http://svc.example:8090', {}],
    [
      '--url wins over BOOTSMITH_URL',
      ['--url', 'https://a.example'],
      { BOOTSMITH_URL: 'http://b.example' },
      'https://a.example',
      {},
    ],
    [
      'a path kept, its trailing slashes dropped',
      ['--url', 'https://a.example/base//'],
      {},
      'https://a.example/base',
      {},
    ],
    ['query and fragment dropped', ['--url', 'http://a.example/x?y=1#z'], {}, 'http://a.example/x', {}],
    ['BOOTSMITH_TOKEN as a Bearer token', [], { BOOTSMITH_TOKEN: 'tok' }, DEFAULT_URL, { Authorization: 'Bearer tok' }],
    [
      '--token wins over BOOTSMITH_TOKEN',
      ['--token', 'cli'],
      { BOOTSMITH_TOKEN: 'env' },
      DEFAULT_URL,
      { Authorization: 'Bearer cli' },
    ],
    ['an empty BOOTSMITH_TOKEN is none', [], { BOOTSMITH_TOKEN: '' }, DEFAULT_URL, {}],
  ])('%s', (_name, argv, env, baseUrl, headers) => {
    const client = from(argv, env) as ApiClient;
    expect(client.baseUrl).toBe(baseUrl);
    expect(client.headers()).toEqual(headers);
  });

  it.each<[string, string[], string]>([
    ['not a URL', ['--url', 'not a url'], '--url: "not a url" is not a URL'],
    [
      'a host without a scheme (read as the scheme svc.example:)',
      ['--url', 'svc.example:8080'],
      '--url: must be http:// or https://',
    ],
    ['another scheme', ['--url', 'ftp://a.example'], '--url: must be http:// or https://'],
  ])('refuses %s', (_name, argv, message) => {
    expect(from(argv)).toBe(message);
  });
});

describe('ApiClient.call against a loopback server', () => {
  const seen: Array<{ method: string; url: string; authorization?: string; type?: string; body: string }> = [];
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({
          method: req.method!,
          url: req.url!,
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
          ...(req.headers['content-type'] ? { type: req.headers['content-type'] } : {}),
          body,
        });
        const send = (status: number, text: string, type = 'application/json') => {
          res.writeHead(status, { 'content-type': type }).end(text);
        };
        if (req.url!.endsWith('/echo')) send(200, JSON.stringify({ got: body === '' ? null : JSON.parse(body) }));
        else if (req.url!.endsWith('/gone')) send(204, '');
        else if (req.url!.endsWith('/missing')) send(404, JSON.stringify(errorBody(404, 'infra-env not found')));
        else if (req.url!.endsWith('/forbidden')) send(403, JSON.stringify(errorBody(403, 'not yours')));
        else if (req.url!.endsWith('/unauthorized')) send(401, JSON.stringify(errorBody(401, 'credential required')));
        else send(502, 'Bad Gateway from a proxy', 'text/plain');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends JSON with the Bearer token under the API prefix and parses the answer', async () => {
    const client = new ApiClient(base, 'tok');
    expect(await client.call('POST', '/echo', { a: 1 })).toEqual({ got: { a: 1 } });
    expect(seen.at(-1)).toEqual({
      method: 'POST',
      url: '/api/assisted-install/v2/echo',
      authorization: 'Bearer tok',
      type: 'application/json',
      body: '{"a":1}',
    });
  });

  it('sends no body, content type or token when there are none; an empty answer is undefined', async () => {
    expect(await new ApiClient(base, undefined).call('DELETE', '/gone')).toBeUndefined();
    expect(seen.at(-1)).toEqual({ method: 'DELETE', url: '/api/assisted-install/v2/gone', body: '' });
  });

  it.each<[string, string, string]>([
    [
      'the reason of the core’s error body',
      '/missing',
      'GET /api/assisted-install/v2/missing: 404 infra-env not found',
    ],
    ['the message of a 401/403 body', '/forbidden', 'GET /api/assisted-install/v2/forbidden: 403 not yours'],
    [
      'the text of a body that is no JSON',
      '/proxy',
      'GET /api/assisted-install/v2/proxy: 502 Bad Gateway from a proxy',
    ],
  ])('an error answer becomes one line: %s', async (_name, path, reason) => {
    await expect(new ApiClient(base, 'secret-token').call('GET', path)).rejects.toThrow(`${base}: ${reason}`);
  });

  it('a 401 to a call without a token says where the admin token is; with one it does not', async () => {
    await expect(new ApiClient(base, undefined).call('GET', '/unauthorized')).rejects.toThrow(
      `${base}: GET /api/assisted-install/v2/unauthorized: 401 credential required (${NO_TOKEN_HINT})`,
    );
    const withToken = await new ApiClient(base, 'wrong').call('GET', '/unauthorized').catch((e: unknown) => e);
    expect((withToken as Error).message).toBe(
      `${base}: GET /api/assisted-install/v2/unauthorized: 401 credential required`,
    );
  });

  it('a service that is not there: one line naming the request and the cause', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await new ApiClient(url, 'secret-token').call('GET', '/infra-envs').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toMatch(
      new RegExp(`^${url.replace(/\./g, '\\.')}: GET /api/assisted-install/v2/infra-envs: .*ECONNREFUSED`),
    );
    expect((err as Error).message).not.toContain('secret-token');
  });
});
