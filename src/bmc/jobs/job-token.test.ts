// jobToken and jobIsoUrls (./job-token.ts): the job's short token is the same for every replica
// (derived, not stored), has the length of every short token, is stored only by its hash, and
// changes with the job and the InfraEnv's key; the job's ISO URLs follow the image bases' schemes.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashUrlToken, URL_TOKEN_LENGTH } from '../../image-ports/url-token-resolver.js';
import { jobIsoUrls, jobToken } from './job-token.js';

const KEY = randomBytes(32).toString('base64url');
const JOB = '5b0f3c2e-8d7a-4a51-9a53-0d2f0f6a9c11';

describe('jobToken', () => {
  it('is derived: the same key and job give the same token on any replica, any case of the id', () => {
    expect(jobToken(KEY, JOB)).toEqual(jobToken(KEY, JOB.toUpperCase()));
  });

  it('has the length of every short token, and its hash is the one hash of short tokens', () => {
    const { token, hash } = jobToken(KEY, JOB);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(token).toHaveLength(URL_TOKEN_LENGTH);
    expect(hash).toBe(hashUrlToken(token));
  });

  it('changes with the job and with the InfraEnv key (a rotated key revokes it)', () => {
    const base = jobToken(KEY, JOB).token;
    expect(jobToken(KEY, JOB.replace('5b0f', '5b0e')).token).not.toBe(base);
    expect(jobToken(randomBytes(32).toString('base64url'), JOB).token).not.toBe(base);
  });
});

describe('jobIsoUrls', () => {
  const url = (base: string) => `${base}/bytoken/t/4.17/x86_64/full.iso`;
  it.each([
    [
      'an HTTP image base',
      { imageServiceBaseUrl: 'http://a:8080' },
      { imageUrl: 'http://a:8080/bytoken/t/4.17/x86_64/full.iso' },
    ],
    [
      'an HTTPS image base alone',
      { imageServiceBaseUrl: 'https://a' },
      { imageHttpsUrl: 'https://a/bytoken/t/4.17/x86_64/full.iso' },
    ],
    [
      'HTTPS with a plain port serving ISOs',
      { imageServiceBaseUrl: 'https://a', imageHttpBaseUrl: 'http://a:8081' },
      {
        imageUrl: 'http://a:8081/bytoken/t/4.17/x86_64/full.iso',
        imageHttpsUrl: 'https://a/bytoken/t/4.17/x86_64/full.iso',
      },
    ],
  ])('%s', (_name, bases, expected) => {
    expect(jobIsoUrls(bases, url)).toEqual(expected);
  });
});
