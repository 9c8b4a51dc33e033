// Where bootsmith is installed: the folder holding its package.json (the checkout under
// `npm start` and the tests, the package folder when installed), and the demo image bundled there.
//
// Does: find that folder once, from this module's own location, so it is the same under tsx,
// vitest and the compiled dist/ tree.
// Does NOT: import anything of bootsmith's (a leaf: config.ts, the console's assets, the CLI and
// test support all read it), or read the environment (src/config.ts does).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above this module holding a package.json (this module's folder when none does). */
function findPackageRoot(start: string): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
/** The bundled demo image: `build-live-iso.sh --with-miniso`, so minimal ISOs work out of the box. */
export const DEMO_IMAGE_PATH = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 'x86_64-miniso.iso');
