// A BMC's boot method as the service decides it: the one chosen (`virtual-media` or `http`), or,
// for `auto`, what its stored inventory suggests (./redfish/http-boot-plan.ts defaultBootMethod);
// and the check the API makes before a BMC is set to, or a job asks for, HTTP boot on a BMC whose
// inventory lists no way to do it (HttpBootUnsupportedError → 422, nothing changed).
// Pure. Does NOT: read the BMC (the job's boot-override step plans against what the BMC shows
// then, and refuses before its first write: ./redfish/http-boot-plan.ts).
import { BootsmithError } from '../errors.js';
import { type BootMethod, defaultBootMethod, httpBootRefusal } from './redfish/index.js';
import type { BmcRecord } from './store/records.js';

/** HTTP boot asked of a BMC that cannot do it (no UefiHttp, no vendor attribute, Legacy mode). */
export class HttpBootUnsupportedError extends BootsmithError {
  constructor(bmc: string, why: string) {
    super('unprocessable', `BMC ${JSON.stringify(bmc)}: HTTP boot is not possible: ${why}`, { bmc });
  }
}

/** The method a boot job uses; undefined for `auto` before any inventory was read (the job decides after discover). */
export function effectiveBootMethod(
  bmc: Pick<BmcRecord, 'bootMethod' | 'inventory' | 'profileOverride'>,
  asked?: BootMethod,
): BootMethod | undefined {
  const chosen = asked ?? bmc.bootMethod ?? undefined;
  if (chosen) return chosen;
  if (!bmc.inventory) return undefined;
  return defaultBootMethod({
    profile: bmc.profileOverride ?? bmc.inventory.profile.id,
    virtualMediaSlots: bmc.inventory.virtualMedia.length,
    allowedTargets: bmc.inventory.boot.allowedTargets,
  });
}

/** Throws HttpBootUnsupportedError when `method` is http and what is known of the BMC rules it out. */
export function checkBootMethod(
  bmc: Pick<BmcRecord, 'name' | 'bootMode' | 'inventory' | 'profileOverride'>,
  method: BootMethod | undefined,
  bootMode = bmc.bootMode,
): void {
  if (method !== 'http') return;
  if (bootMode !== 'UEFI')
    throw new HttpBootUnsupportedError(bmc.name, `UEFI HTTP Boot needs boot mode UEFI, not ${bootMode}`);
  if (!bmc.inventory) return;
  const why = httpBootRefusal(bmc.profileOverride ?? bmc.inventory.profile.id, bmc.inventory.boot.allowedTargets);
  if (why) throw new HttpBootUnsupportedError(bmc.name, why);
}
