// Which wings each role runs, one row per wing, in the order they are assembled (a wing comes
// after the wings whose ports it needs, ./port-board.ts) and stopped in reverse. Its routers are
// mounted in this order too, the image face's last.
//
//   wing                  all  core  image   module
//   images                 x    x     x      ./images-wing.ts
//   core                   x    x            ./core-wing.ts
//   front door             x    x            ./front-door-wing.ts
//   bmc                    x    x            ./bmc-wing.ts
//   pxe                    x    x            ./pxe-wing.ts (off while PXE_INTERFACE is unset)
//   console                x    x            ./console-wing.ts
//   remote image ports     r          r      ./remote-image-ports.ts (r: with ASSISTED_SERVICE_URL)
//   remote token reads                r      ./remote-image-ports.ts
//   image face             x          x      ./image-face-wing.ts
//
// `--role image` needs ASSISTED_SERVICE_URL (src/config.ts refuses it otherwise); with `--role
// all` it swaps the image ports of the in-process core for the fronted one's, while BMC job reads
// stay with the BMC wing here; `--role core` serves no image face, so it ignores it. A new wing
// is one module (the shape of ./wing.ts) and one row here.
// Does NOT: assemble (src/service.ts runs the rows' modules).
import type { Role } from '../config.js';
import { bmcWing } from './bmc-wing.js';
import { consoleWing } from './console-wing.js';
import { coreWing } from './core-wing.js';
import { frontDoorWing } from './front-door-wing.js';
import { imageFaceWing } from './image-face-wing.js';
import { imagesWing } from './images-wing.js';
import { pxeWing } from './pxe-wing.js';
import { remoteImagePorts, remoteTokenReads } from './remote-image-ports.js';
import type { WingModule } from './wing.js';

export interface WingRow {
  wing: WingModule;
  /** The roles that run it. */
  roles: readonly Role[];
  /** 'remote': only when the image side fronts an assisted-service (ASSISTED_SERVICE_URL). */
  when: 'always' | 'remote';
}

export const WINGS: readonly WingRow[] = [
  { wing: imagesWing, roles: ['all', 'core', 'image'], when: 'always' },
  { wing: coreWing, roles: ['all', 'core'], when: 'always' },
  { wing: frontDoorWing, roles: ['all', 'core'], when: 'always' },
  { wing: bmcWing, roles: ['all', 'core'], when: 'always' },
  { wing: pxeWing, roles: ['all', 'core'], when: 'always' },
  { wing: consoleWing, roles: ['all', 'core'], when: 'always' },
  { wing: remoteImagePorts, roles: ['all', 'image'], when: 'remote' },
  { wing: remoteTokenReads, roles: ['image'], when: 'remote' },
  { wing: imageFaceWing, roles: ['all', 'image'], when: 'always' },
];

/** The wings a process of `role` runs, in order; `remote`: ASSISTED_SERVICE_URL is set. */
export function wingsOf(role: Role, remote: boolean, rows: readonly WingRow[] = WINGS): WingModule[] {
  return rows.filter((row) => row.roles.includes(role) && (row.when === 'always' || remote)).map((row) => row.wing);
}
