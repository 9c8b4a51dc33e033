// The ports the wings of one process hand each other while the service assembles them: each
// implemented by one wing and taken by others, as the wings' modules declare (./wing.ts). A wing
// offers what it implements; a wing assembled after it takes what it needs (`need`: missing is a
// mistake in ./wings.ts, thrown naming both); a port a later wing may offer is looked up when it
// is called (`find`), as the core asks the BMC wing to check a mac_interface_map. Remote mode
// swaps the image ports' in-process implementations for the fronted core's
// (./remote-image-ports.ts). A wing that takes or gives a port it did not declare is a bug, thrown.
// Does NOT: implement a port, or know which wing offers which (the wing modules say).
import type { PortName, Ports, WingPorts } from './ports.js';
import type { WingModule } from './wing.js';

export class PortBoard {
  private readonly offered: Partial<Ports> = {};
  private readonly offeredBy = new Map<PortName, string>();

  /** The ports `wing` may take and give, held to its declarations (a breach is a bug: thrown). */
  of(wing: WingModule): WingPorts {
    const { needs, offers, name } = wing;
    const declared = (key: PortName, lists: Array<readonly PortName[] | undefined>, as: string): void => {
      if (!lists.some((list) => list?.includes(key)))
        throw new Error(`the ${name} wing uses ${key} without declaring it in ${as}`);
    };
    return {
      need: (key) => {
        declared(key, [needs.ports], 'needs.ports');
        const port = this.offered[key];
        if (port === undefined) throw new Error(`the ${name} wing needs ${key}, which no wing before it offers`);
        return port;
      },
      find: (key) => {
        declared(key, [needs.ports, needs.ifOffered], 'needs');
        return this.offered[key];
      },
      offer: (ports) => {
        for (const key of Object.keys(ports) as PortName[]) {
          declared(key, [offers.ports], 'offers.ports');
          const before = this.offeredBy.get(key);
          if (before !== undefined) throw new Error(`the ${name} wing offers ${key}, which the ${before} wing offers`);
          this.offeredBy.set(key, name);
        }
        Object.assign(this.offered, ports);
      },
      swap: (ports) => {
        for (const key of Object.keys(ports) as PortName[]) {
          declared(key, [offers.swaps], 'offers.swaps');
          this.offeredBy.set(key, name);
        }
        Object.assign(this.offered, ports);
      },
    };
  }

  /** What the service returns of the wings (the image store), once they are assembled. */
  read<K extends PortName>(key: K): Ports[K] | undefined {
    return this.offered[key];
  }
}
