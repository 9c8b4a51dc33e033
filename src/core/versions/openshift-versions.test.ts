// openshift-versions.ts: one entry per configured openshift_version, architectures merged, failed
// images left out, support level and default as documented, and both filters (alone and together).
import { describe, expect, it } from 'vitest';
import type { CatalogImage } from '../../images/catalog/catalog-image.js';
import { compareVersions, openshiftVersions } from './openshift-versions.js';

function image(
  openshiftVersion: string,
  cpuArchitecture: CatalogImage['cpuArchitecture'] = 'x86_64',
  state: CatalogImage['state'] = 'ready',
): CatalogImage {
  return {
    openshiftVersion,
    version: `${openshiftVersion.replace(/\D/g, '')}.94.0`,
    cpuArchitecture,
    embedAreaBytes: 1,
    kernelArgumentsBytes: 1,
    minimalIsoSupported: true,
    state,
  };
}

const CATALOG = [
  image('4.16'),
  image('4.16', 'aarch64'),
  image('4.16.3', 's390x', 'pending'),
  image('4.9'),
  image('4.18.0-rc.1'),
  image('4.17', 'ppc64le', 'failed'),
];

describe('openshiftVersions', () => {
  it('lists each version once with its architectures, the newest production one as default', () => {
    expect(openshiftVersions(CATALOG)).toEqual({
      '4.9': { display_name: '4.9', support_level: 'production', default: false, cpu_architectures: ['x86_64'] },
      '4.16': {
        display_name: '4.16',
        support_level: 'production',
        default: false,
        cpu_architectures: ['aarch64', 'x86_64'],
      },
      '4.16.3': { display_name: '4.16.3', support_level: 'production', default: true, cpu_architectures: ['s390x'] },
      '4.18.0-rc.1': {
        display_name: '4.18.0-rc.1',
        support_level: 'beta',
        default: false,
        cpu_architectures: ['x86_64'],
      },
    });
  });

  it('filters by substring of the display name and keeps the newest of each major.minor', () => {
    expect(Object.keys(openshiftVersions(CATALOG, { version: '4.1' }))).toEqual(['4.16', '4.16.3', '4.18.0-rc.1']);
    expect(Object.keys(openshiftVersions(CATALOG, { onlyLatest: true }))).toEqual(['4.9', '4.16.3', '4.18.0-rc.1']);
    expect(Object.keys(openshiftVersions(CATALOG, { version: '4.16', onlyLatest: true }))).toEqual(['4.16.3']);
    expect(openshiftVersions([])).toEqual({});
  });

  it('orders versions numerically', () => {
    expect(['4.16', '4.9', '4.16.3', '4.10'].sort(compareVersions)).toEqual(['4.9', '4.10', '4.16', '4.16.3']);
  });
});
