// Checks that the swagger-backed contract validator is live (skips when ../shared is absent,
// fails under CI=true),
// so the conforms() checks in handlers/*.test.ts and auth.test.ts cannot pass vacuously.
import { describe, expect, it } from 'vitest';
import { HAVE_SWAGGER } from '../test-support/probes.js';
import { unavailable } from '../test-support/requirements.js';
import { loadContract } from './test-support/contract-schema.js';

describe.skipIf(unavailable({ '../shared/contracts (the upstream swagger)': HAVE_SWAGGER }))(
  'swagger contract validator',
  () => {
    it('rejects bodies that break the definitions and accepts conforming ones', () => {
      const c = loadContract()!;
      expect(c.validate('error', { kind: 'Error', id: 400, href: '', code: '400', reason: 'x' })).toEqual([]);
      expect(c.validate('error', { kind: 'Oops', id: 400 })).not.toEqual([]);
      expect(
        c.validate('host', { kind: 'Host', id: 'not-a-uuid', href: '', status: 'known', status_info: '' }),
      ).not.toEqual([]);
      expect(
        c.validate('host', {
          kind: 'Host',
          id: '8b3f6c8e-7a47-4b3a-9c9e-2f1c1b1b1b1b',
          href: '',
          status: 'flying',
          status_info: '',
        }),
      ).not.toEqual([]);
      expect(c.validate('infra_error', { code: 401, message: 'no' })).toEqual([]);
    });
  },
);
