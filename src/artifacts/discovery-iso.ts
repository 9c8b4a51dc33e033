// Builds a per-InfraEnv discovery ISO as a SplicedFile: the base live ISO with the
// compressed Ignition archive written into the embed area (zero-padded to its full
// length), followed there by the InfraEnv's extra initrd when it has one (its static
// network keyfiles under etc/coreos-firstboot-network/, as `coreos-installer iso network
// embed` puts them, so the live system's initramfs brings the network up with them), and,
// when kernel arguments are requested, every kargs area rewritten.
//
// Pure composition of the iso, initrd and splice parts; no I/O beyond compression.
// Never writes a truncated archive: an oversized one is a PayloadTooLargeError.
import { BadRequestError } from '../errors.js';
import type { DiscoveryCustomization } from '../image-ports/ignition-source.js';
import type { LiveImage } from '../images/catalog/live-image.js';
import { type EmbedCompression, buildEmbedArchive, fitToArea } from '../initrd/embed-archive.js';
import { buildPxeInitrdTail } from '../initrd/pxe-initrd.js';
import { encodeKargsArea } from '../iso/kargs-codec.js';
import { type Patch, SplicedFile } from '../splice/spliced-file.js';

export async function buildDiscoveryIso(
  image: LiveImage,
  customization: DiscoveryCustomization,
  compression: EmbedCompression,
): Promise<SplicedFile> {
  const { manifest } = image;
  const ignition = await buildEmbedArchive({ ignition: customization.ignition }, { compression });
  // The kernel reads concatenated (separately compressed) newc archives at 4-byte boundaries.
  const embedded = customization.extraInitrd
    ? buildPxeInitrdTail(0, [ignition, customization.extraInitrd]).tail
    : ignition;
  const archive = fitToArea(embedded, manifest.ignition.length);
  const patches: Patch[] = [{ offset: manifest.ignition.offset, length: manifest.ignition.length, bytes: archive }];
  patches.push(...kargsPatches(image, customization.kernelArguments));
  return new SplicedFile(image.base, { patches });
}

/** The kargs of the base image with `extra` appended, written to every kargs area. */
export function kargsPatches(image: LiveImage, extra: readonly string[]): Patch[] {
  if (extra.length === 0) return [];
  const areas = image.manifest.kargs;
  if (!areas) {
    throw new BadRequestError(
      `base image ${image.entry.openshiftVersion} ${image.entry.cpuArchitecture} has no kernel-argument embed area, so kernel_arguments cannot be applied`,
    );
  }
  const kargs = `${areas.default} ${extra.join(' ')}`;
  return areas.locations.map((location) => ({
    offset: location.offset,
    length: areas.size,
    bytes: encodeKargsArea(kargs, areas, location),
  }));
}
