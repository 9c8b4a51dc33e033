// The one-time boot override that makes the next boot come from virtual media. Pure, tested as a table.
//
//   PATCH <System> {"Boot": {"BootSourceOverrideEnabled": "Once",
//                            "BootSourceOverrideTarget": "Cd" | "UsbCd",
//                            "BootSourceOverrideMode": "UEFI" | "Legacy"}}   If-Match when known
//
// Target: the profile's first CD target the System allows (Supermicro: UsbCd, then Cd); when the
// System lists no allowable targets, the profile's first. Mode: the requested one (UEFI by
// default), sent when the System shows BootSourceOverrideMode or lists allowable modes, or the
// profile wants the full request every time (AMI, Supermicro), and refused up front when the
// allowable modes do not include it. Where: the System, or (iDRAC 10) its `@Redfish.Settings`
// object — the caller reads that object's ETag and passes it as `settings`.
// Does NOT: call the BMC. Next: client.ts sends it.
import { RedfishError } from './errors.js';
import type { VendorProfile } from './profiles.js';
import type { SystemInfo } from './resources.js';

export type BootMode = 'UEFI' | 'Legacy';

export interface BootOverrideRequest {
  path: string;
  body: { Boot: Record<string, string> };
  ifMatch?: string;
  target: string;
  mode: BootMode | undefined;
}

export function planBootOverride(
  bmc: string,
  profile: VendorProfile,
  system: SystemInfo,
  mode: BootMode,
  settings?: { path: string; etag: string | undefined },
): BootOverrideRequest {
  const fail = (why: string): never => {
    throw new RedfishError({ bmc, step: 'boot-override', failure: 'unsupported' }, why);
  };
  const allowed = system.boot.allowedTargets;
  const target = allowed ? profile.cdTargets.find((t) => allowed.includes(t)) : profile.cdTargets[0];
  if (!target)
    fail(
      `the System allows boot targets ${allowed?.join(', ') || '(none)'}; none boots virtual media (${profile.cdTargets.join(' or ')})`,
    );
  const modes = system.boot.allowedModes;
  if (modes && !modes.includes(mode)) fail(`the System allows boot modes ${modes.join(', ') || '(none)'}, not ${mode}`);
  const sendMode = system.boot.hasMode || modes !== undefined || profile.fullBootRequest;
  const at = profile.bootOverrideAt === 'settings' && settings ? settings : { path: system.path, etag: system.etag };
  return {
    path: at.path,
    body: {
      Boot: {
        BootSourceOverrideEnabled: 'Once',
        BootSourceOverrideTarget: target as string,
        ...(sendMode ? { BootSourceOverrideMode: mode } : {}),
      },
    },
    ...(at.etag ? { ifMatch: at.etag } : {}),
    target: target as string,
    mode: sendMode ? mode : undefined,
  };
}
