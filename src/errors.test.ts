// withContext: the failed step is named in front of the cause's message, the cause is kept, the
// caller's typed error is what is thrown, and a step that succeeds returns its value untouched —
// for synchronous steps, promises, and throws of things that are not Errors. The real file-system
// errors come from node:fs on a path that does not exist.
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BadRequestError, FormatError, withContext } from './errors.js';

const asFormat = (message: string, cause: unknown) => new FormatError(message, { path: '/nope' }, { cause });

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('withContext', () => {
  it('returns what a step returns, synchronously or as a promise', async () => {
    expect(withContext('adding', () => 1 + 1, asFormat)).toBe(2);
    await expect(withContext('reading', () => Promise.resolve('text'), asFormat)).resolves.toBe('text');
  });

  it('names a failed synchronous step, keeps the cause and throws the typed error', () => {
    const err = caught(() => withContext('reading /nope', () => readFileSync('/nope/x.json'), asFormat));
    expect(err).toBeInstanceOf(FormatError);
    expect((err as FormatError).message).toMatch(/^reading \/nope: ENOENT: no such file or directory/);
    expect((err as FormatError).context).toEqual({ path: '/nope' });
    expect(((err as FormatError).cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('names a rejected promise the same way', async () => {
    const pending = withContext('opening /nope/x.json', () => readFile('/nope/x.json'), asFormat);
    const err = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FormatError);
    expect((err as Error).message).toMatch(/^opening \/nope\/x\.json: ENOENT/);
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('describes a thrown value that is not an Error', () => {
    const err = caught(() =>
      withContext(
        'parsing',
        () => {
          throw 'a string';
        },
        (m) => new BadRequestError(m),
      ),
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toBe('parsing: a string');
  });

  it('lets the factory pass an error through unchanged', () => {
    const own = new FormatError('already precise');
    const err = caught(() =>
      withContext(
        'decoding',
        () => {
          throw own;
        },
        (m, cause) => (cause instanceof FormatError ? cause : asFormat(m, cause)),
      ),
    );
    expect(err).toBe(own);
  });

  it('keeps the message text of JSON.parse failures the CLI and dump import print', () => {
    const err = caught(() =>
      withContext(
        'not a JSON document',
        () => JSON.parse('{'),
        (m) => new BadRequestError(m),
      ),
    );
    expect((err as Error).message).toMatch(/^not a JSON document: .*JSON/);
  });
});
