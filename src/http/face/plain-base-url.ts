// The plain-HTTP base URL handed to iPXE (scripts, kernel, initrd, rootfs) when LISTEN_PORT
// serves HTTPS and HTTP_LISTEN_PORT adds a plain listener.
//
// Does: derive it: the configured HTTPS base (IMAGE_SERVICE_BASE_URL or SERVICE_BASE_URL) with
// scheme http and the plain listener's port, or else the address the plain listener really
// listens on. IMAGE_SERVICE_HTTP_BASE_URL, when set, wins (src/assembly/listeners.ts).
// Does NOT: listen or parse configuration.

/** `http://<host of configuredBase>:<plainPort><path of configuredBase>`, or `listening` without a configured base. */
export function plainBaseUrl(configuredBase: string | undefined, listening: string, plainPort: number): string {
  if (configuredBase === undefined) return listening;
  const url = new URL(configuredBase);
  url.protocol = 'http:';
  url.port = String(plainPort);
  return url.toString().replace(/\/+$/, '');
}
