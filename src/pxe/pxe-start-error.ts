// Why the PXE wing could not start, in words that name the setting or the missing piece and the
// fix (issue 32: "not a half-started service"): a loader missing from the loaders directory (the
// file and the package that ships it), an interface without an IPv4 address, a port this process
// may not bind (what to grant). The service turns it into its start-up refusal (src/config.ts's
// ConfigError, once the wing is wired).
// Does NOT: decide anything; the modules that find the problem throw it.
export class PxeStartError extends Error {
  /** The setting an operator changes to fix it (PXE_INTERFACE, PXE_LOADERS_DIR, …), when one does. */
  readonly setting: string | undefined;

  constructor(message: string, setting?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PxeStartError';
    this.setting = setting;
  }
}
