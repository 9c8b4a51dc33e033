// The PXE wing: ProxyDHCP (67, 4011) and TFTP (69) on PXE_INTERFACE (src/pxe/), beside the site's
// DHCP server, answering PXE, HTTP Boot and iPXE clients from the pxeFrontDoor port. Off (nothing
// read, bound or shown) while PXE_INTERFACE is unset.
//
// Needs: the PXE settings (src/pxe/pxe-settings.ts, composed in src/config.ts), the service's
// metrics registry and logger, the pxeFrontDoor port. Offers: the `pxe` part of /health (state,
// interface, address, ports, loaders, counts); its start binds the ports, its stop closes them.
// Its prepare, before anything listens, resolves the interface, reads the loaders and binds each
// port once and releases it: a missing loader (named with the package that ships it), an
// interface without IPv4, or a port this process may not bind (root or CAP_NET_BIND_SERVICE)
// refuses the start as a ConfigError (exit 2), never a half-started service.
// Does NOT: know InfraEnvs (the port does). Next: ./console-wing.ts.
import { ConfigError } from '../config.js';
import { PxeStartError } from '../pxe/pxe-start-error.js';
import { createPxeWing, type PreparedPxe, preparePxe } from '../pxe/pxe-wing.js';
import type { Platform, Wing, WingModule } from './wing.js';
import type { WingPorts } from './ports.js';

export const pxeWing: WingModule = {
  name: 'pxe',
  needs: { ports: ['pxeFrontDoor'] },
  offers: {},
  async prepare(config) {
    if (config.pxe.pxeInterface === undefined) return () => Promise.resolve({});
    const prepared = await preparePxe(config.pxe).catch((err: unknown) => Promise.reject(pxeRefusal(err)));
    return (platform, ports) => Promise.resolve(assemble(platform, ports, prepared));
  },
};

/** A PxeStartError (its message names the setting or what to grant) as the start's refusal. */
function pxeRefusal(err: unknown): unknown {
  return err instanceof PxeStartError ? new ConfigError(err.message) : err;
}

function assemble(platform: Platform, ports: WingPorts, prepared: PreparedPxe): Wing {
  const { config } = platform;
  const wing = createPxeWing({
    settings: config.pxe,
    frontDoor: ports.need('pxeFrontDoor'),
    registry: platform.metrics.registry,
    log: platform.logger.child({ wing: 'pxe' }),
    prepared,
  });
  return {
    health: [() => ({ fields: { pxe: wing.status() } })],
    start: () => wing.start().catch((err: unknown) => Promise.reject(pxeRefusal(err))),
    stop: () => wing.stop(),
  };
}
