// isUuid as a table: the one UUID check of InfraEnv, host and cluster ids.
import { describe, expect, it } from 'vitest';

import { isUuid } from './uuid.js';

describe('isUuid: table', () => {
  it.each<[string, boolean]>([
    ['0f0e0d0c-0b0a-4009-8807-060504030201', true],
    ['0F0E0D0C-0B0A-4009-8807-060504030201', true],
    ['00000000-0000-0000-0000-000000000000', true],
    ['0f0e0d0c0b0a400988070605040302010', false],
    ['0f0e0d0c-0b0a-4009-8807-06050403020', false],
    ['0f0e0d0c-0b0a-4009-8807-0605040302011', false],
    ['0f0e0d0c-0b0a-4009-8807_060504030201', false],
    ['g0e0d0c0-0b0a-4009-8807-060504030201', false],
    [' 0f0e0d0c-0b0a-4009-8807-060504030201', false],
    ['0f0e0d0c-0b0a-4009-8807-060504030201\n', false],
    ['{0f0e0d0c-0b0a-4009-8807-060504030201}', false],
    ['', false],
  ])('%j → %s', (text, expected) => {
    expect(isUuid(text)).toBe(expected);
  });
});
