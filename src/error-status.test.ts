import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  FormatError,
  NotFoundError,
  PayloadTooLargeError,
  RangeNotSatisfiableError,
  UnauthorizedError,
  UnavailableError,
  UpstreamError,
} from './errors.js';
import { GENERIC_INTERNAL_MESSAGE, errorStatus } from './error-status.js';

describe('errorStatus', () => {
  it.each([
    [new BadRequestError('bad arch'), 400],
    [new UnauthorizedError('no key'), 401],
    [new ForbiddenError('not yours'), 403],
    [new NotFoundError('no such image'), 404],
    [new ConflictError('exists'), 409],
    [new PayloadTooLargeError('ignition', 300, 200), 413],
    [new RangeNotSatisfiableError(100, 'bytes=200-'), 416],
    [new FormatError('not an ISO'), 422],
    [new UpstreamError('assisted-service down', undefined), 502],
    [new UpstreamError('assisted-service said 500', 500), 502],
    [new UpstreamError('assisted-service said 401', 401), 401],
    [new UpstreamError('assisted-service said 403', 403), 403],
    [new UpstreamError('assisted-service said 404', 404), 404],
    [new UnavailableError('still downloading', 7), 503],
  ])('%s → %i with its own message', (err, status) => {
    const out = errorStatus(err);
    expect(out.status).toBe(status);
    expect(out.message).toBe(err.message);
    expect(out.typed).toBe(true);
  });

  it('416 carries Content-Range with the representation size', () => {
    expect(errorStatus(new RangeNotSatisfiableError(4096, 'bytes=5000-')).headers).toEqual({
      'Content-Range': 'bytes */4096',
    });
  });

  it('503 carries Retry-After and no-store', () => {
    expect(errorStatus(new UnavailableError('loading', 12)).headers).toEqual({
      'Retry-After': '12',
      'Cache-Control': 'no-store',
    });
  });

  it('other typed errors carry no extra headers', () => {
    expect(errorStatus(new BadRequestError('x')).headers).toEqual({});
  });

  it('an untyped error is a 500 with a generic message that hides the original', () => {
    const out = errorStatus(new Error('connect ECONNREFUSED 10.0.0.1:5432 password=hunter2'));
    expect(out).toEqual({ status: 500, headers: {}, message: GENERIC_INTERNAL_MESSAGE, typed: false });
    expect(errorStatus('thrown string').status).toBe(500);
    expect(errorStatus(undefined).status).toBe(500);
  });

  it('a body-parser error keeps its client status and exposed message but is not typed', () => {
    const parserError = Object.assign(new Error('request entity too large'), { status: 413, expose: true });
    expect(errorStatus(parserError)).toEqual({
      status: 413,
      headers: {},
      message: 'request entity too large',
      typed: false,
    });
    const hidden = Object.assign(new Error('secret detail'), { status: 400, expose: false });
    expect(errorStatus(hidden)).toMatchObject({ status: 500, message: GENERIC_INTERNAL_MESSAGE });
  });
});
