// The one UUID check (InfraEnv, host and cluster ids are UUIDs in the assisted API), shared
// by the image side, the remote Ignition source and the core.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return UUID.test(s);
}
