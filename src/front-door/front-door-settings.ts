// The front door's settings, declared once with their defaults and bounds, read from the
// environment by frontDoorSettingsOf (src/config.ts composes it; a FrontDoorSettingsError becomes
// its ConfigError). Rows in docs/operator/configuration.md and docs/operator/pxe.md.
//
// The front door is off unless PXE_FRONT_DOOR=on: it answers InfraEnv boot scripts (which carry
// the InfraEnv's credentials in their URLs with AUTH_TYPE=local) to whoever names a MAC or UUID,
// which is what PXE is, and what an operator turns on for a network they trust.
// Does NOT: check that PXE_DEFAULT_INFRA_ENV exists (the front door says so at each decision,
// and /health shows it: InfraEnvs come and go while the service runs).
import { IPXE_SCRIPT_TYPES, type IpxeScriptType } from '../boot-scripts/ipxe-script.js';
import { isUuid } from '../uuid.js';

export interface FrontDoorSettings {
  /** PXE_FRONT_DOOR: `on` answers /boot.ipxe, the per-host scripts, grub.cfg and pixiecore's API. */
  pxeFrontDoor: boolean;
  /** PXE_DEFAULT_INFRA_ENV: the InfraEnv an unknown host boots (a discovery pool); undefined = it is told why and asks again later. */
  pxeDefaultInfraEnv: string | undefined;
  /** PXE_IPXE_SCRIPT_TYPE: boot-order-control sends an installed host to its disk; discovery-image-always boots discovery every time. */
  pxeIpxeScriptType: IpxeScriptType;
  /** PXE_UNKNOWN_HOST_RETRY: how long an unmatched host waits before it asks again (60s to 1h: never a tight loop). */
  pxeUnknownHostRetryMs: number;
}

export const DEFAULT_FRONT_DOOR_SETTINGS: Readonly<FrontDoorSettings> = {
  pxeFrontDoor: false,
  pxeDefaultInfraEnv: undefined,
  // A host that PXE-boots first would otherwise discover itself again after every install.
  pxeIpxeScriptType: 'boot-order-control',
  // Long enough that a rack of unknown hosts is a trickle of requests; short enough that an
  // assignment made after the first try is picked up within minutes.
  pxeUnknownHostRetryMs: 5 * 60_000,
};

export const UNKNOWN_HOST_RETRY_BOUNDS_MS = [60_000, 3_600_000] as const;

export class FrontDoorSettingsError extends Error {}

/** Reads the front door's variables; `duration` is the settings' Go-style duration parser. */
export function frontDoorSettingsOf(
  env: NodeJS.ProcessEnv,
  duration: (text: string) => number | undefined,
): FrontDoorSettings {
  const d = DEFAULT_FRONT_DOOR_SETTINGS;
  const onOff = env.PXE_FRONT_DOOR || (d.pxeFrontDoor ? 'on' : 'off');
  if (onOff !== 'on' && onOff !== 'off')
    throw new FrontDoorSettingsError(`PXE_FRONT_DOOR must be on or off, not ${JSON.stringify(onOff)}`);
  const defaultInfraEnv = env.PXE_DEFAULT_INFRA_ENV || undefined;
  if (defaultInfraEnv !== undefined && !isUuid(defaultInfraEnv))
    throw new FrontDoorSettingsError(
      `PXE_DEFAULT_INFRA_ENV must be an InfraEnv id (a UUID), not ${JSON.stringify(defaultInfraEnv)}`,
    );
  const type = env.PXE_IPXE_SCRIPT_TYPE || d.pxeIpxeScriptType;
  if (!(IPXE_SCRIPT_TYPES as readonly string[]).includes(type))
    throw new FrontDoorSettingsError(
      `PXE_IPXE_SCRIPT_TYPE must be one of ${IPXE_SCRIPT_TYPES.join(', ')}, not ${JSON.stringify(type)}`,
    );
  let retryMs = d.pxeUnknownHostRetryMs;
  if (env.PXE_UNKNOWN_HOST_RETRY) {
    try {
      retryMs = duration(env.PXE_UNKNOWN_HOST_RETRY) ?? Number.NaN;
    } catch {
      retryMs = Number.NaN;
    }
    const [min, max] = UNKNOWN_HOST_RETRY_BOUNDS_MS;
    if (!(retryMs >= min && retryMs <= max))
      throw new FrontDoorSettingsError(
        `PXE_UNKNOWN_HOST_RETRY must be a duration from 60s to 1h, not ${JSON.stringify(env.PXE_UNKNOWN_HOST_RETRY)}`,
      );
  }
  return {
    pxeFrontDoor: onOff === 'on',
    pxeDefaultInfraEnv: defaultInfraEnv?.toLowerCase(),
    pxeIpxeScriptType: type as FrontDoorSettings['pxeIpxeScriptType'],
    pxeUnknownHostRetryMs: retryMs,
  };
}
