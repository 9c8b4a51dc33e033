// Builds a per-InfraEnv PXE initrd: the ISO's own `images/pxeboot/initrd.img` bytes
// (served in place, never extracted) followed by the tail from initrd/pxe-initrd.ts:
// the compressed Ignition archive and the optional extra initrd (minimal-initrd from
// assisted-service), each on a 4-byte boundary. The kernel unpacks concatenated archives.
//
// Also derives the s390x `initrd.addrsize` for that initrd. No HTTP here.
import { NotFoundError } from '../errors.js';
import type { DiscoveryCustomization } from '../image-ports/ignition-source.js';
import type { LiveImage } from '../images/catalog/live-image.js';
import { type EmbedCompression, buildEmbedArchive } from '../initrd/embed-archive.js';
import { buildPxeInitrdTail } from '../initrd/pxe-initrd.js';
import { SplicedFile } from '../splice/spliced-file.js';

export async function buildPxeInitrd(
  image: LiveImage,
  customization: DiscoveryCustomization,
  compression: EmbedCompression,
): Promise<SplicedFile> {
  const initrd = image.manifest.files.initrd;
  if (!initrd)
    throw new NotFoundError(
      `base image ${image.entry.openshiftVersion} ${image.entry.cpuArchitecture} has no PXE initrd`,
    );
  const archive = await buildEmbedArchive({ ignition: customization.ignition }, { compression });
  const archives = customization.extraInitrd ? [archive, customization.extraInitrd] : [archive];
  const { tail } = buildPxeInitrdTail(initrd.length, archives);
  return new SplicedFile(image.base, { window: initrd, tail: [tail] });
}

/**
 * s390x `initrd.addrsize`: the base file's 8-byte big-endian load address followed by the
 * 8-byte big-endian size of the initrd actually served.
 */
export function initrdAddrsize(baseAddrsize: Buffer, initrdSize: number): Buffer {
  if (baseAddrsize.length < 8)
    throw new NotFoundError('the base image has a malformed images/initrd.addrsize (shorter than 8 bytes)');
  const out = Buffer.alloc(16);
  baseAddrsize.copy(out, 0, 0, 8);
  out.writeBigUInt64BE(BigInt(initrdSize), 8);
  return out;
}
