import { afterEach, describe, expect, it, vi } from 'vitest';
import { MissingRequirementError, toolWorks, unavailable } from './requirements.js';

describe('unavailable', () => {
  const ci = process.env.CI;
  afterEach(() => {
    if (ci === undefined) delete process.env.CI;
    else process.env.CI = ci;
    vi.restoreAllMocks();
  });

  it('is false when everything is present', () => {
    process.env.CI = 'true';
    expect(unavailable({ node: toolWorks('node'), shared: true })).toBe(false);
  });

  it('skips with a message outside CI', () => {
    delete process.env.CI;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(unavailable({ 'no-such-tool': toolWorks('bootsmith-no-such-tool'), present: true })).toBe(true);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('no-such-tool'));
  });

  it('fails instead of skipping under CI', () => {
    process.env.CI = 'true';
    expect(() => unavailable({ 'no-such-tool': false })).toThrow(MissingRequirementError);
    expect(() => unavailable({ 'no-such-tool': false })).toThrow(/no-such-tool/);
  });
});
