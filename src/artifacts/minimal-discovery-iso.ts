// Builds a per-InfraEnv *minimal* discovery ISO as a SplicedFile over the byte-exact
// minimal ISO rebuilt once from the full ISO's coreos/miniso.dat (src/images): the
// Ignition archive (followed by the InfraEnv's extra initrd, e.g. static networking,
// since a minimal ISO has no other place for it) in the embed area, and the kargs edited
// as `coreos-installer iso extract minimal-iso --rootfs-url` does (coreos.liveiso= removed,
// coreos.live.rootfs_url= added, kargs.json `default` rewritten) plus the InfraEnv's kargs.
//
// The kargs plan is computed once per minimal image (MinimalPlans); nothing here does I/O
// per request. It does not decide the rootfs URL (the artifact service does).
import type { DiscoveryCustomization } from '../image-ports/ignition-source.js';
import type { MinimalVariant } from '../images/catalog/live-image.js';
import { type EmbedCompression, buildEmbedArchive, fitToArea } from '../initrd/embed-archive.js';
import { buildPxeInitrdTail } from '../initrd/pxe-initrd.js';
import { withIsoFs } from '../iso/iso9660.js';
import { type MinimalKargsPlan, minimalKargsPatches, planMinimalKargs } from '../iso/minimal-kargs-patches.js';
import { SplicedFile } from '../splice/spliced-file.js';

export async function buildMinimalIso(
  minimal: MinimalVariant,
  plan: MinimalKargsPlan,
  customization: DiscoveryCustomization,
  compression: EmbedCompression,
): Promise<SplicedFile> {
  const { ignition: area } = minimal.manifest;
  const archive = await buildEmbedArchive({ ignition: customization.ignition }, { compression });
  const embedded = customization.extraInitrd
    ? buildPxeInitrdTail(0, [archive, customization.extraInitrd]).tail
    : archive;
  const patches = [
    { offset: area.offset, length: area.length, bytes: fitToArea(embedded, area.length) },
    ...minimalKargsPatches(plan, customization.kernelArguments),
  ];
  return new SplicedFile(minimal.base, { patches });
}

/**
 * The kargs plan of each minimal image, computed on first use, per opened file (as the artifact
 * service's caches): a file reopened after an integrity check or fetched again gets a new plan,
 * so no plan outlives the bytes it was read from.
 */
export class MinimalPlans {
  private readonly plans = new WeakMap<MinimalVariant['base'], Map<string, Promise<MinimalKargsPlan>>>();

  get(minimal: MinimalVariant, rootfsUrl: string): Promise<MinimalKargsPlan> {
    let perBase = this.plans.get(minimal.base);
    if (!perBase) {
      perBase = new Map();
      this.plans.set(minimal.base, perBase);
    }
    let plan = perBase.get(rootfsUrl);
    if (!plan) {
      const planned = withIsoFs(minimal.base.path, (iso) => planMinimalKargs(iso, minimal.manifest, rootfsUrl));
      perBase.set(rootfsUrl, planned);
      planned.catch(() => perBase.delete(rootfsUrl));
      plan = planned;
    }
    return plan;
  }
}
