// The front door's clock: a call settles with its result, or a PortTimeoutError once its time is up.
import { describe, expect, it } from 'vitest';
import { boundedCall, PortTimeoutError } from './bounded-call.js';

describe('boundedCall', () => {
  it('passes a result and a failure through', async () => {
    await expect(boundedCall(() => 42, 1_000, 'x')).resolves.toBe(42);
    await expect(boundedCall(() => Promise.resolve('y'), 1_000, 'x')).resolves.toBe('y');
    await expect(boundedCall(() => Promise.reject(new Error('no')), 1_000, 'x')).rejects.toThrow('no');
    await expect(
      boundedCall(
        () => {
          throw new Error('thrown');
        },
        1_000,
        'x',
      ),
    ).rejects.toThrow('thrown');
  });

  it('fires when the call never settles', async () => {
    const never = new Promise<never>(() => undefined);
    const err = await boundedCall(() => never, 50, 'the front door (boot choice)').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortTimeoutError);
    expect((err as Error).message).toBe('the front door (boot choice) did not answer within 50 ms');
  });
});
