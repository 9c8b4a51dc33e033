// The ports the wings of one process hand each other (each implemented by one wing and taken by
// others), and the board as one wing sees it. ./port-board.ts holds them; ./wing.ts declares
// which a wing needs and offers.
// Does NOT: implement a port or hold one.
import type { Core, CoreOptions } from '../core/index.js';
import type { CoreDomain } from '../core/domain.js';
import type { ArtifactObserver } from '../image-ports/boot-event-observer.js';
import type { IgnitionSource } from '../image-ports/ignition-source.js';
import type { TokenReadObserver } from '../image-ports/token-read-observer.js';
import type { UrlTokenResolver } from '../image-ports/url-token-resolver.js';
import type { ManagedImageStore } from '../images/managed-image-store.js';
import type { CoreFrontDoorSource } from '../core/front-door-source.js';
import type { BmcMachineLookup } from '../front-door/core-port.js';
import type { PxeFrontDoorPort } from '../pxe/front-door-port.js';

export interface Ports {
  /** The base images (./images-wing.ts): the catalog the core and the image face read. */
  imageStore: ManagedImageStore;
  /** Resolves once every configured base image has been loaded or marked failed. */
  imagesLoaded: Promise<void>;
  /** The image ports (src/image-ports/), which the image face calls: the core's, or the fronted core's. */
  ignitionSource: IgnitionSource;
  urlTokens: UrlTokenResolver;
  bootEvents: ArtifactObserver;
  /** Reads of BMC boot jobs' ISO URLs: to the BMC wing here, or to the fronted core. */
  tokenReads: TokenReadObserver;
  /** What another wing may call of the core's domain (src/core/domain.ts: the BMC wing's CorePort). */
  coreDomain: CoreDomain;
  /** The core's admin check and error answers, which the BMC extension API shares. */
  adminGate: Core['extension'];
  /** An InfraEnv's mac_interface_map checked against its BMCs' MACs (the BMC wing's; the core asks). */
  staticNetworkCheck: NonNullable<CoreOptions['checkStaticNetwork']>;
  /** What the PXE front door asks of the core (src/core/front-door-source.ts). */
  frontDoorSource: CoreFrontDoorSource;
  /** Which InfraEnv a machine boots by the MACs and System UUIDs its BMC reported (the BMC wing's; the front door asks). */
  bmcMachineLookup: BmcMachineLookup;
  /** Told once a change to an InfraEnv committed (the image face drops its cached Ignition; the core tells). */
  infraEnvChanged: (infraEnvId: string) => void;
  /** What the PXE wing's ProxyDHCP and TFTP ask about a booting host (src/pxe/front-door-port.ts): the front door's answers (./front-door-wing.ts). */
  pxeFrontDoor: PxeFrontDoorPort;
}

export type PortName = keyof Ports;

/** The board as one wing sees it: only the ports its module declares (./wing.ts). */
export interface WingPorts {
  /** A port of `needs.ports`: offered by a wing before it. */
  need<K extends PortName>(key: K): Ports[K];
  /** A port of `needs.ifOffered` (looked up when called: a later wing's too) or of `needs.ports`. */
  find<K extends PortName>(key: K): Ports[K] | undefined;
  /** Ports of `offers.ports`, which no other wing offers. */
  offer(ports: Partial<Ports>): void;
  /** Remote mode: ports of `offers.swaps`, in place of the in-process wings' implementations. */
  swap(ports: Partial<Ports>): void;
}
