// The Redfish library's seam: what the BMC job engine, API and CLI (issue 27, phase 2) call.
//
//   const client = await RedfishClient.open({ name, address, username, password, trust, profile? })
//   await client.inventory()                       // serial, model, power, MACs, slots, profile
//   await runBootDiscovery(client, { imageUrl, imageHttpsUrl, bootMode }, { startAt, onStep })
//   await runBootDiscovery(client, { imageUrl, bootMethod: 'http' })   // UEFI HTTP Boot, no media
//   await client.ejectAll(); await client.setPower('on' | 'off' | 'reset')
//
// Every failure is a RedfishError (bmc, step, failure, status; kind for the HTTP mapping).
// Does NOT: persist, lock, log (callers pass `log`), or know InfraEnvs and URLs.
export { parseBmcAddress, type BmcAddress } from './address.js';
export { type BootMode } from './boot-override.js';
export {
  BOOT_METHODS,
  type BootMethod,
  defaultBootMethod,
  HTTP_BOOT_VENDORS,
  httpBootRefusal,
} from './http-boot-plan.js';
export {
  BOOT_DISCOVERY_STEPS,
  type BootDiscoveryOptions,
  type BootDiscoveryRequest,
  type BootDiscoveryResult,
  type BootDiscoveryStep,
  runBootDiscovery,
  type StepResult,
} from './boot-discovery.js';
export {
  type BmcInventory,
  type EjectResult,
  type InsertResult,
  type PowerResult,
  RedfishClient,
  type RedfishClientOptions,
} from './client.js';
export { RedfishError, type RedfishErrorDetails, type RedfishFailure } from './errors.js';
export type { CallTimeouts } from './http-call.js';
export * as REDFISH_LIMITS from './limits.js';
export { detectProfile, isProfileId, PROFILE_IDS, PROFILES, type ProfileId, type VendorProfile } from './profiles.js';
export type { BmcTrust } from './tls-trust.js';
export type { CallStats, RedfishCallEvent } from './transport.js';
