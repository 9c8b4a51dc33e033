// What upstream's generated server answers before any handler runs, as bootsmith builds it: each
// builder's go-openapi code, HTTP status (src/error-status.ts: a code of 600 or more is 422) and
// message wording, one row per builder. Pure.
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../error-status.js';
import { FrameworkError, frameworkErrors } from './framework-error.js';

describe('frameworkErrors', () => {
  it.each([
    {
      error: frameworkErrors.required('host_id', 'body'),
      code: 602,
      status: 422,
      message: 'host_id in body is required',
    },
    {
      error: frameworkErrors.invalidType('infra_env_id', 'path', 'strfmt.UUID', 'x"y'),
      code: 601,
      status: 422,
      message: 'infra_env_id in path must be of type strfmt.UUID: "x\\"y"',
    },
    {
      error: frameworkErrors.enumFail('role', 'body', ['auto-assign', 'master', 3]),
      code: 606,
      status: 422,
      message: 'role in body should be one of [auto-assign master 3]',
    },
    {
      error: frameworkErrors.tooLong('name', 'query', 54),
      code: 603,
      status: 422,
      message: 'name in query should be at most 54 chars long',
    },
    {
      error: frameworkErrors.pattern('name', 'body', '^[a-z]+$'),
      code: 605,
      status: 422,
      message: "name in body should match '^[a-z]+$'",
    },
    {
      error: frameworkErrors.minimum('limit', 'query', 0),
      code: 609,
      status: 422,
      message: 'limit in query should be greater than or equal to 0',
    },
    {
      error: frameworkErrors.parse('new-host-params', 'body', 'unexpected end'),
      code: 400,
      status: 400,
      message: 'parsing new-host-params body from "" failed, because unexpected end',
    },
    {
      error: frameworkErrors.routeNotFound('/api/x'),
      code: 404,
      status: 404,
      message: 'path /api/x was not found',
    },
    {
      error: frameworkErrors.methodNotAllowed('PUT', ['GET', 'HEAD']),
      code: 405,
      status: 405,
      message: 'method PUT is not allowed, but [GET,HEAD] are',
    },
  ])('$message: code $code, status $status', ({ error, code, status, message }) => {
    expect(error).toBeInstanceOf(FrameworkError);
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(errorStatus(error).status).toBe(status);
  });

  it('carries the methods a 405 allows, for the Allow header, and none otherwise', () => {
    expect(frameworkErrors.methodNotAllowed('PUT', ['GET', 'HEAD']).allowed).toEqual(['GET', 'HEAD']);
    expect(frameworkErrors.routeNotFound('/x').allowed).toEqual([]);
  });
});
