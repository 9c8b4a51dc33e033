// Every spelling of an architecture bootsmith accepts, and the names it refuses: the one table
// (src/cpu-architecture.ts) OS_IMAGES, the InfraEnv API and the image URLs all go through.
import { describe, expect, it } from 'vitest';
import { knownArchitectureNames, normalizeArchitecture } from './cpu-architecture.js';

describe('normalizeArchitecture', () => {
  it.each<[string, string | undefined]>([
    ['x86_64', 'x86_64'],
    ['amd64', 'x86_64'],
    ['X86_64', 'x86_64'],
    ['aarch64', 'aarch64'],
    ['arm64', 'aarch64'],
    ['ARM64', 'aarch64'],
    ['ppc64le', 'ppc64le'],
    ['ppc64el', 'ppc64le'],
    ['s390x', 's390x'],
    ['multi', undefined],
    ['ppc64', undefined],
    ['i386', undefined],
    ['', undefined],
    ['constructor', undefined],
    ['__proto__', undefined],
  ])('%j → %j', (name, cpu) => {
    expect(normalizeArchitecture(name)).toBe(cpu);
  });

  it('names every accepted spelling for messages', () => {
    expect(knownArchitectureNames()).toBe('x86_64 (amd64), aarch64 (arm64), ppc64le (ppc64el), s390x');
  });
});
