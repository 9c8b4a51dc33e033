// Node versions agree: package.json's `engines`, the Dockerfile's pinned base image and every
// package in package-lock.json (devDependencies too), so `npm ci` on the oldest supported Node
// prints no EBADENGINE warning (issue 24: devDependencies once required Node 22).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/probes.js';

interface LockPackage {
  version?: string;
  optional?: boolean;
  engines?: { node?: string } | string[];
}

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockPackage>;
};
const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');

describe('Node versions', () => {
  const floor = semver.minVersion(pkg.engines.node)!.version;

  it('engines, the Dockerfile and the running Node are on the same major', () => {
    expect(pkg.engines.node).toBe('>=20.19');
    const image = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-/m.exec(dockerfile)?.[1];
    expect(image, 'ARG NODE_IMAGE=node:X.Y.Z-…').toBeDefined();
    expect(semver.satisfies(image!, pkg.engines.node)).toBe(true);
    expect(semver.major(image!)).toBe(semver.major(floor));
  });

  it(`every locked package (devDependencies too) runs on Node ${floor}`, () => {
    const refusing = Object.entries(lock.packages)
      .filter(([name, p]) => name !== '' && !p.optional && p.engines && !Array.isArray(p.engines) && p.engines.node)
      .filter(([, p]) => !semver.satisfies(floor, (p.engines as { node: string }).node))
      .map(([name, p]) => `${name}@${p.version}: node ${(p.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});
