// bindBody over real HTTP (express.json, the core's error handler): go-swagger's binding order and
// wording for missing bodies, JSON that does not fit the Go model (400), undeclared fields (dropped
// and reported), and schema violations (422 with go-openapi's codes); and firstViolation's order.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistedErrorHandler } from '../../platform/api/error-handler.js';
import { bindBody, firstViolation, type BodyDefinition } from './body-schema.js';
import { INFRA_ENV_CREATE, STEP_REPLY, TRIGGER_EVENT } from './body-models.js';

const DEFS: Record<string, BodyDefinition> = { create: INFRA_ENV_CREATE, reply: STEP_REPLY, event: TRIGGER_EVENT };

describe('bindBody', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.post('/:def', (req, res, next) => {
      try {
        res.json(bindBody(req, DEFS[req.params.def]!));
      } catch (err) {
        next(err);
      }
    });
    app.use(assistedErrorHandler(pino({ level: 'silent' })));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  async function post(def: string, body?: string, type = 'application/json') {
    const res = await fetch(`${base}/${def}`, {
      method: 'POST',
      ...(body !== undefined ? { body, headers: { 'content-type': type } } : {}),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  it('drops undeclared fields at any depth and reports their paths', async () => {
    // JSON text: a `__proto__` key in an object literal would set the prototype, not a field
    const r = await post(
      'create',
      '{"name":"n","pull_secret":"p","newer":1,"proxy":{"http_proxy":"","extra":true},' +
        '"kernel_arguments":[{"operation":"append","value":"quiet","why":"x"}],"__proto__":{"polluted":true}}',
    );
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      body: {
        name: 'n',
        pull_secret: 'p',
        proxy: { http_proxy: '' },
        kernel_arguments: [{ operation: 'append', value: 'quiet' }],
      },
      ignored: ['newer', 'proxy.extra', 'kernel_arguments.why', '__proto__'],
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['no body', undefined, 422, 602, 'infraenvCreateParams in body is required'],
    ['empty body', '', 422, 602, 'infraenvCreateParams in body is required'],
    [
      'an array',
      '[]',
      400,
      400,
      'parsing infraenvCreateParams body from "" failed, because json: cannot unmarshal array into Go value of type models.InfraEnvCreateParams',
    ],
    [
      'a number for a string',
      '{"name":1.5,"pull_secret":"p"}',
      400,
      400,
      'parsing infraenvCreateParams body from "" failed, because json: cannot unmarshal number 1.5 into Go struct field InfraEnvCreateParams.name of type string',
    ],
    [
      'a fraction for an integer',
      '{"name":"n","pull_secret":"p","network_discovery_delay_seconds":0.5}',
      400,
      400,
      'parsing infraenvCreateParams body from "" failed, because json: cannot unmarshal number 0.5 into Go struct field InfraEnvCreateParams.network_discovery_delay_seconds of type int64',
    ],
    ['null for a required field', '{"name":null,"pull_secret":"p"}', 422, 602, 'name in body is required'],
    [
      'a nested required field',
      '{"name":"n","pull_secret":"p","static_network_config":[{"mac_interface_map":[{}]}]}',
      422,
      602,
      'static_network_config.0.mac_interface_map.0.mac_address in body is required',
    ],
    [
      'the first violation in Go field order',
      '{"pull_secret":"p","name":"n","image_type":"x","cpu_architecture":"y"}',
      422,
      606,
      'cpu_architecture in body should be one of [x86_64 aarch64 arm64 ppc64le s390x]',
    ],
  ])('%s → %s', async (_what, body, status, code, message) => {
    const r = await post('create', body);
    expect(r.status).toBe(status);
    expect(r.json).toEqual({ code, message });
  });

  it('a step reply body is optional; a date-time that does not parse is a parse error', async () => {
    expect((await post('reply')).json).toEqual({ body: {}, ignored: [] });
    const r = await post('event', '{"severity":"info","message":"m","event_time":"2024-13-45"}');
    expect(r.status).toBe(400);
    expect(r.json.code).toBe(400);
    expect(r.json.message).toMatch(
      /^parsing triggerEventParams body from "" failed, because parsing time "2024-13-45"/,
    );
    const notJson = await post('create', 'name=n', 'application/x-www-form-urlencoded');
    expect(notJson.status).toBe(400);
    expect(notJson.json.message).toMatch(/not application\/json/);
  });
});

describe('firstViolation', () => {
  it('checks format, maxLength, pattern and enum of strings and the minimum of integers', () => {
    const s = (schema: Parameters<typeof firstViolation>[1], v: unknown) =>
      firstViolation(v, schema, 'f')?.message ?? 'ok';
    expect(s({ type: 'string', format: 'uuid' }, 'x')).toBe('f in body must be of type uuid: "x"');
    expect(s({ type: 'string', format: 'uuid' }, '8B3F6C8E-7A47-4B3A-9C9E-2F1C1B1B1B1B')).toBe('ok');
    expect(s({ type: 'string', maxLength: 2 }, 'abc')).toBe('f in body should be at most 2 chars long');
    expect(s({ type: 'string', maxLength: 2 }, '😀😀')).toBe('ok'); // counted in characters, as Go counts runes
    expect(s({ type: 'string', pattern: '^a+$' }, 'b')).toBe("f in body should match '^a+$'");
    expect(s({ type: 'string', enum: ['a', 'b'] }, 'c')).toBe('f in body should be one of [a b]');
    expect(s({ type: 'integer', minimum: 0 }, -1)).toBe('f in body should be greater than or equal to 0');
    expect(s({ type: 'integer', minimum: 0 }, null)).toBe('ok');
  });
});
