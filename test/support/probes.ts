// What this machine offers the tests: the tools they run as independent readers or builders
// (xorriso, xz, zip, openssl, cpio, gzip, prlimit), the isolinux files the fixture scripts need, and
// ../shared (the coreos-installer fixture ISOs, the upstream swagger). One probe per thing,
// run once per test file that imports this module.
//
// Does: probe (run `tool --version`-style commands, check paths) and export the results.
// Does NOT: decide what happens when something is missing: suites pass the results to
// `unavailable()` (requirements.ts), which skips outside CI and fails under CI=true.
import { existsSync } from 'node:fs';
import path from 'node:path';

import { PACKAGE_ROOT } from '../../src/package-root.js';
import { toolWorks } from './requirements.js';

export const REPO_ROOT = PACKAGE_ROOT;
/** `../shared` beside the checkout: fixtures and contracts shared by the project's engineers. */
export const SHARED_DIR = path.resolve(REPO_ROOT, '../shared');
/** The coreos-installer fixture ISOs (`*.iso.xz` and their INDEX). */
export const FIXTURE_DIR = path.join(SHARED_DIR, 'fixtures/coreos-installer');
/** The upstream assisted-service swagger the contract tests validate against. */
export const SWAGGER_PATH = path.join(SHARED_DIR, 'contracts/assisted-service-swagger.yaml');
/** The isolinux/syslinux files fixtures/build-live-iso.sh puts into the ISOs it builds. */
export const ISOLINUX_FILES = [
  '/usr/lib/ISOLINUX/isolinux.bin',
  '/usr/lib/ISOLINUX/isohdpfx.bin',
  '/usr/lib/syslinux/modules/bios/ldlinux.c32',
];

export const HAVE_FIXTURES = existsSync(FIXTURE_DIR);
export const HAVE_SWAGGER = existsSync(SWAGGER_PATH);
export const HAVE_ISOLINUX = ISOLINUX_FILES.every((f) => existsSync(f));
export const HAVE_XORRISO = toolWorks('xorriso', ['-version']);
export const HAVE_XZ = toolWorks('xz', ['--version']);
export const HAVE_ZIP = toolWorks('zip', ['-v']);
export const HAVE_OPENSSL = toolWorks('openssl', ['version']);
export const HAVE_CPIO = toolWorks('cpio', ['--version']);
export const HAVE_GZIP = toolWorks('gzip', ['--version']);
export const HAVE_PRLIMIT = toolWorks('prlimit', ['--version']);
