// The console wing: the web console's routes (src/console/), beside the assisted API it calls.
//
// Needs: AUTH_TYPE (whether the console asks for the admin token) and the start's warnings (its
// banner). Offers: its router, at the root. Runs wherever the core wing runs (./wings.ts).
// Does NOT: serve the API it calls (./core-wing.ts). Next: ./remote-image-ports.ts.
import { consoleRoutes } from '../console/console-router.js';
import type { Platform, Wing, WingModule } from './wing.js';

export const consoleWing: WingModule = {
  name: 'console',
  needs: {},
  offers: {},
  prepare: () => Promise.resolve(assemble),
};

function assemble({ config, warnings }: Platform): Promise<Wing> {
  const router = consoleRoutes({ authType: config.authType, warnings });
  return Promise.resolve({ routers: [{ path: undefined, router }] });
}
