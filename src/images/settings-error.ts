// The typed error of an invalid image-store setting: names the variable, never echoes a secret.
// It is its own module so the settings parsers (store-settings.ts, fetch/proxy-env.ts) share it
// without importing each other. It does not map to exit codes or HTTP statuses (config.ts does).
export class ImageSettingsError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable} ${message}`);
  }
}
