// The seam through which the image side reports every answered request of a discovery ISO opened
// by a short opaque image token (`/bytoken/<token>/…`): which token (by hashUrlToken,
// ./url-token-resolver.ts), which byte ranges were served, and where the ISO's boot files lie. A
// BMC boot job mints a token of its own, so these reports are that BMC reading the ISO.
//
// Does: declare the report and the observer. The image face fills a report once a response
// finished (src/http/face/token-read-watch.ts); the BMC wing's read tracker takes it in-process
// (src/bmc/jobs/read-tracker.ts), or an image side fronting a core sends it there
// (./remote/remote-token-reads.ts, whose wire form src/bmc/api/bmc-routes.ts reads back into it).
// Does NOT: decide what a report means (the BMC wing does) or carry anything of a JWT.

/** One answered request of an ISO opened by a short token. Ranges are half-open [start, end). */
export interface TokenReadReport {
  /** The token's hashUrlToken: all an in-process observer keeps or looks up. */
  tokenHash: string;
  /**
   * The token itself, for an observer that must prove it to the core it fronts (remote mode:
   * ./remote/remote-token-reads.ts sends it in a header, as it resolves tokens). Never logged or
   * stored.
   */
  token: string;
  method: 'GET' | 'HEAD';
  /** The byte ranges served; none for a HEAD. */
  ranges: readonly [number, number][];
  /** Size of the ISO served. */
  size: number;
  /** The served ISO's kernel, initramfs and Ignition embed area. */
  bootExtents: readonly [number, number][];
  /** The client's address (IPv4-mapped IPv6 shown as IPv4). */
  address: string;
  at: Date;
}

export interface TokenReadObserver {
  /** Called once per answered request; must not throw or block. */
  tokenRead(report: TokenReadReport): void;
}
