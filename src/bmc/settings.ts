// The BMC side's settings, declared once with their defaults (as src/core/settings.ts does for the
// core): src/config.ts reads each from its variable, and its Config carries them to the engine.
//
// Adding a BMC setting: a field here (its variable in the doc comment) with its default in
// DEFAULT_BMC_SETTINGS, its variable in loadConfig (src/config.ts) and its row in the
// configuration table (docs/operator/configuration.md).
// Does NOT: read the environment or check bounds (src/config.ts does).
import { CONNECT_TIMEOUT_MS, REQUEST_TIMEOUT_MS, TLS_HANDSHAKE_TIMEOUT_MS } from './redfish/limits.js';

export interface BmcSettings {
  /** BMC_CREDENTIALS_KEY_FILE: the AES-256 key sealing BMC credentials; undefined = DATA_DIR/auth/bmc-credentials.key. */
  bmcCredentialsKeyFile: string | undefined;
  /** BMC_ISO_READ_TIMEOUT: a boot job fails when the BMC has read no byte of the ISO this long after the power step. */
  bmcIsoReadTimeoutMs: number;
  /** BMC_BOOT_TIMEOUT: … when the reads have not covered the boot files this long after the first read. */
  bmcBootTimeoutMs: number;
  /** BMC_REGISTER_TIMEOUT: … when no matching host registered this long after the boot. */
  bmcRegisterTimeoutMs: number;
  /** BMC_JOBS_MAX_RUNNING: jobs one replica runs at once (the rest wait queued, or for another replica). */
  bmcJobsMaxRunning: number;
  /** BMC_JOB_LEASE: how long a replica's claim on a job holds without its heartbeat (renewed every third of it). */
  bmcJobLeaseMs: number;
  /** BMC_CONNECT_TIMEOUT: a Redfish call's TCP connect clock (src/bmc/redfish/limits.ts CONNECT_TIMEOUT_MS). */
  bmcConnectTimeoutMs: number;
  /** BMC_TLS_TIMEOUT: its TLS handshake clock, from TCP connected (TLS_HANDSHAKE_TIMEOUT_MS). */
  bmcTlsTimeoutMs: number;
  /** BMC_READ_TIMEOUT: its request clock, from sent to the last byte of the answer (REQUEST_TIMEOUT_MS). */
  bmcReadTimeoutMs: number;
}

export const DEFAULT_BMC_SETTINGS: Readonly<BmcSettings> = {
  bmcCredentialsKeyFile: undefined,
  // The "the BMC never read the ISO within 10 min": a host on at power-on reaches its
  // firmware's boot manager in 1–5 min (memory training on large servers), then reads at once.
  bmcIsoReadTimeoutMs: 10 * 60_000,
  // Kernel and initramfs of a CoreOS ISO are ~110 MiB; BMC virtual media streams 1–10 MiB/s.
  bmcBootTimeoutMs: 15 * 60_000,
  // Boot, Ignition, NetworkManager, pulling the agent image (~0.5 GiB) and its first inventory.
  bmcRegisterTimeoutMs: 30 * 60_000,
  // A following job costs a row in two batched queries every 2 s; a Redfish step one connection.
  bmcJobsMaxRunning: 256,
  // Longer than any one Redfish call (55 s at most: limits.ts) is not needed: the heartbeat runs
  // beside the calls. 30 s lets another replica take over a dead one's jobs within a minute.
  bmcJobLeaseMs: 30_000,
  // Apart, as Ironic learned (unreachable BMCs tied its workers up for minutes under one timeout):
  // a BMC that does not connect fails in seconds; one that answers slowly keeps its 30 s.
  bmcConnectTimeoutMs: CONNECT_TIMEOUT_MS,
  bmcTlsTimeoutMs: TLS_HANDSHAKE_TIMEOUT_MS,
  bmcReadTimeoutMs: REQUEST_TIMEOUT_MS,
};

/** Just the BMC settings out of `source` (a whole Config). */
export function bmcSettingsOf(source: BmcSettings): BmcSettings {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULT_BMC_SETTINGS) as (keyof BmcSettings)[]) picked[key] = source[key];
  return picked as unknown as BmcSettings;
}
