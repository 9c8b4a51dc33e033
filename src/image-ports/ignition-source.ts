// Where the image side gets an InfraEnv's discovery Ignition and kernel arguments.
//
// One interface, two implementations: the in-process assisted core (src/core) and a
// remote assisted-service compatible API (src/image-ports/remote/remote-source.ts). Both are
// wrapped by a short-TTL cache (src/image-ports/cached-ignition-source.ts) so a BMC's hundreds of
// Range requests cost at most one round of lookups; the in-process core also re-checks the
// credential of every request the cache answers (checkCredential). This module only declares types.

export type DiscoveryImageType = 'full-iso' | 'minimal-iso';

/** The caller's credential, forwarded as-is to whoever decides whether it is valid. */
export type Credential =
  | { kind: 'none' }
  | { kind: 'api-key'; value: string }
  | { kind: 'image-token'; value: string }
  | { kind: 'authorization'; value: string };

export interface DiscoveryRequest {
  infraEnvId: string;
  imageType: DiscoveryImageType;
  credential: Credential;
}

export interface DiscoveryCustomization {
  /** The discovery Ignition config, as JSON text (UTF-8 bytes). Secret: never log it. */
  ignition: Buffer;
  /** Kernel arguments to append to the ISO's defaults (already split into words). */
  kernelArguments: string[];
  /**
   * An extra, already compressed initrd to append (assisted-service's minimal-initrd:
   * static networking for minimal ISOs and PXE). Undefined when there is none.
   */
  extraInitrd?: Buffer;
  /** When the InfraEnv's customization last changed, when the source knows it. */
  lastModified?: Date;
}

export interface IgnitionSource {
  /**
   * Throws NotFoundError / UnauthorizedError / ForbiddenError when the InfraEnv is
   * unknown or the credential does not open it, UpstreamError when a remote API fails.
   */
  discoveryCustomization(request: DiscoveryRequest): Promise<DiscoveryCustomization>;
  /**
   * Whether the request's credential still opens the InfraEnv and the InfraEnv still exists, with
   * the same errors, and nothing else: what the cache in front asks before every answer it serves from memory, so a revoked
   * credential stops working within the source's own bound rather than the cache's TTL. Must be
   * cheap (no upstream call per request). A source without it (remote) is asked again only when
   * the cache's entry expires (IGNITION_CACHE_TTL_SECONDS).
   */
  checkCredential?(request: DiscoveryRequest): Promise<void>;
}
