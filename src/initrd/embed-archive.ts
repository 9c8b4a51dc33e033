// The Ignition embed payload: a compressed newc archive the live initramfs picks up.
//
// Members (paths as coreos-installer's src/live/embed.rs names them):
//   config.ign                                        mode 0644 (as assisted-image-service)
//   etc/coreos-firstboot-network/<name>.nmconnection  mode 0600 (NetworkManager ignores
//                                                     keyfiles other users can read)
// plus the directories `etc` and `etc/coreos-firstboot-network` (0755) that the writer adds.
// `fitToArea` only checks the size: the caller zero-pads to the area when splicing.
// `readEmbedArea` reads an area back (ours, coreos-installer's, or assisted-image-service's).
// Does not: know where the area is in an ISO (src/iso), pad, or splice.

import { BadRequestError, BootsmithError, PayloadTooLargeError } from '../errors.js';
import { type Compression, compress } from './compression.js';
import { type CpioEntry, type CpioFileInput, isRegularFile, writeCpio } from './cpio.js';
import { lastByPath, readInitrd } from './initrd.js';

export const IGNITION_PATH = 'config.ign';
export const NETWORK_KEYFILE_DIR = 'etc/coreos-firstboot-network';
export const KEYFILE_SUFFIX = '.nmconnection';
export const IGNITION_MODE = 0o644;
export const KEYFILE_MODE = 0o600;
const NAME_MAX = 255;

export interface NetworkKeyfile {
  /** File name, e.g. `eth0` or `eth0.nmconnection`; no slashes, no leading dot. */
  name: string;
  content: Buffer;
}

export interface EmbedPayload {
  /** The Ignition config (JSON bytes). Secret: never log it. */
  ignition: Buffer;
  networkKeyfiles?: NetworkKeyfile[];
}

/** The compressions an embed archive can use (`gzip` default, `xz` with CRC32). */
export type EmbedCompression = Compression;

export interface EmbedOptions {
  compression: EmbedCompression;
}

export interface EmbedContents {
  ignition?: Buffer;
  networkKeyfiles: NetworkKeyfile[];
  /** Every entry in the area, in archive order (directories included). */
  members: CpioEntry[];
}

/** Checks a keyfile name and returns it with the `.nmconnection` suffix. */
export function keyfileName(name: string): string {
  const context = { name };
  if (name.length === 0) throw new BadRequestError('network keyfile name is empty', context);
  if (name.includes('/') || name.includes('\\'))
    throw new BadRequestError('network keyfile name contains a path separator', context);
  if (name.startsWith('.')) throw new BadRequestError('network keyfile name starts with a dot', context);
  if (/[\x00-\x1f\x7f]/.test(name))
    throw new BadRequestError('network keyfile name contains a control character', context);
  const full = name.endsWith(KEYFILE_SUFFIX) ? name : `${name}${KEYFILE_SUFFIX}`;
  if (full === KEYFILE_SUFFIX) throw new BadRequestError('network keyfile name is only the suffix', context);
  if (Buffer.byteLength(full, 'utf8') > NAME_MAX) {
    throw new BadRequestError(`network keyfile name is longer than ${NAME_MAX} bytes`, {
      length: Buffer.byteLength(full, 'utf8'),
    });
  }
  return full;
}

/** The cpio members for a payload (validated; duplicate keyfile names are rejected). */
export function embedMembers(payload: EmbedPayload): CpioFileInput[] {
  if (payload.ignition.length === 0) throw new BadRequestError('the Ignition config to embed is empty');
  const members: CpioFileInput[] = [{ path: IGNITION_PATH, data: payload.ignition, mode: IGNITION_MODE }];
  const seen = new Set<string>();
  for (const keyfile of payload.networkKeyfiles ?? []) {
    const name = keyfileName(keyfile.name);
    if (seen.has(name)) throw new BadRequestError(`network keyfile ${JSON.stringify(name)} is given twice`, { name });
    seen.add(name);
    members.push({ path: `${NETWORK_KEYFILE_DIR}/${name}`, data: keyfile.content, mode: KEYFILE_MODE });
  }
  return members;
}

/** The compressed archive to place in an Ignition embed area (or append to a PXE initrd). */
export async function buildEmbedArchive(
  payload: EmbedPayload,
  options: EmbedOptions = { compression: 'gzip' },
): Promise<Buffer> {
  return compress(writeCpio(embedMembers(payload)), options.compression);
}

/** Returns `archive` if it fits in `capacity` bytes; throws PayloadTooLargeError otherwise. */
export function fitToArea(archive: Buffer, capacity: number): Buffer {
  if (!Number.isSafeInteger(capacity) || capacity < 0) {
    throw new BootsmithError('internal', `embed area capacity ${capacity} is not a byte count`, { capacity });
  }
  if (archive.length > capacity) throw new PayloadTooLargeError('Ignition archive', archive.length, capacity);
  return archive;
}

/**
 * Decodes the contents of an embed area: an all-zero area is empty; zero padding after the
 * archive is skipped once the decoder has found the archive's end. (Trailing zeros are not
 * stripped first: a gzip member ends with its little-endian size, whose last byte is zero for
 * anything under 16 MiB.) Throws FormatError for anything but compressed or raw newc data, and
 * when the compressed data expands past `maxDecompressed` bytes.
 */
export async function readEmbedArea(
  bytes: Uint8Array,
  maxDecompressed = Number.POSITIVE_INFINITY,
): Promise<EmbedContents> {
  const members = await readInitrd(bytes, maxDecompressed);
  const files = [...lastByPath(members).values()].filter(isRegularFile);
  const prefix = `${NETWORK_KEYFILE_DIR}/`;
  const networkKeyfiles = files
    .filter((f) => f.path.startsWith(prefix) && !f.path.slice(prefix.length).includes('/'))
    .map((f) => ({ name: f.path.slice(prefix.length), content: f.data }));
  const ignition = files.find((f) => f.path === IGNITION_PATH)?.data;
  return ignition === undefined ? { networkKeyfiles, members } : { ignition, networkKeyfiles, members };
}
