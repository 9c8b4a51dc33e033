// What the BMC wing needs of the core's domain, as the wing declares it: whether an InfraEnv
// exists and what a boot job reads of it, the hosts an InfraEnv registered since a time (which of
// them the BMC's machine is), a boot job's own short image-URL token (stored by its hash beside the
// InfraEnv's other tokens, revoked once the media is out) and the ISO URL that carries it, and
// the InfraEnv events of its jobs.
// The core satisfies it (Core.domain, src/core/index.ts) and src/assembly/bmc-wing.ts takes it.
// The one thing the core asks of this wing goes the other way: an InfraEnv's mac_interface_map
// checked against its BMCs' MACs (CoreOptions.checkStaticNetwork ← BmcService.checkMacInterfaceMap).
//
// The types name the fields the wing reads and writes; the compiler checks at the wiring that the
// core's records fit them.
// Does NOT: read or write the core's tables (only the core's repository does), or name a core module.

/** An InfraEnv as a boot job reads it. */
export interface BootableInfraEnv {
  id: string;
  openshiftVersion: string;
  cpuArchitecture: string;
  imageType: 'full-iso' | 'minimal-iso';
  /** base64url; a boot job's URL token is derived from it (./jobs/job-token.ts). */
  imageTokenKey: string;
  /** Whether the live system reads its root from the CD decides the eject (./jobs/eject-policy.ts). */
  kernelArguments: readonly { value: string }[] | null;
}

/** A host registered in an InfraEnv, as a boot job matches it against its BMC (./jobs/host-match.ts). */
export interface RegisteredHost {
  id: string;
  registeredAt: Date;
  /** The agent's inventory as stored: a JSON document, or null before the first inventory reply. */
  inventory: string | null;
}

/** A short image-URL token, by its hash: a boot job's is standing (no per-InfraEnv cap drops it). */
export interface UrlTokenGrant {
  tokenHash: string;
  infraEnvId: string;
  standing: boolean;
  expiresAt: Date;
  createdAt: Date;
}

/** An InfraEnv event of a BMC job (./jobs/job-event.ts). */
export interface BmcJobEvent {
  name: string;
  severity: 'info' | 'error';
  message: string;
  eventTime: Date;
  infraEnvId: string | null;
  hostId: string | null;
  clusterId: null;
  /** JSON: the BMC, the job, its action and step. */
  props: string;
}

/** One static network config entry of an InfraEnv, as far as the MAC check reads it. */
export interface MacInterfaceMapEntry {
  mac_interface_map?: readonly { mac_address: string }[];
}

export interface CorePort {
  /** The InfraEnv, or undefined when it does not exist (any more). */
  getInfraEnv(id: string): Promise<BootableInfraEnv | undefined>;
  infraEnvExists(id: string): Promise<boolean>;
  /** The InfraEnv's hosts registered at or after `since`, newest first, at most `limit`. */
  hostsRegisteredSince(infraEnvId: string, since: Date, limit: number): Promise<RegisteredHost[]>;
  insertUrlTokens(rows: UrlTokenGrant[]): Promise<void>;
  /** Revokes one short image-URL token (a boot job's, once its media is out). */
  deleteUrlToken(tokenHash: string): Promise<void>;
  insertEvent(event: BmcJobEvent): Promise<void>;
  /** The InfraEnv's discovery ISO URL on `imageBase` with a short token (`…/bytoken/<token>/…`). */
  tokenIsoUrl(imageBase: string, infraEnv: BootableInfraEnv, token: string): string;
}
