// Builds a per-InfraEnv discovery ISO as a SplicedFile: the base live ISO with the
// compressed Ignition archive written into the embed area (zero-padded to its full
// length) and, when kernel arguments are requested, every kargs area rewritten.
//
// Pure composition of the iso, initrd and splice parts; no I/O beyond compression.
// Never writes a truncated archive: an oversized one is a PayloadTooLargeError.
import { BadRequestError } from '../errors.js';
import type { DiscoveryCustomization } from '../ignition-supply/source.js';
import type { LiveImage } from '../images/catalog/live-image.js';
import { type EmbedCompression, buildEmbedArchive, fitToArea } from '../initrd/embed-archive.js';
import { encodeKargsArea } from '../iso/kargs-codec.js';
import { type Patch, SplicedFile } from '../splice/spliced-file.js';

export async function buildDiscoveryIso(
  image: LiveImage,
  customization: DiscoveryCustomization,
  compression: EmbedCompression,
): Promise<SplicedFile> {
  const { manifest } = image;
  const archive = fitToArea(
    await buildEmbedArchive({ ignition: customization.ignition }, { compression }),
    manifest.ignition.length,
  );
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
