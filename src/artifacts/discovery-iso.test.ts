// buildDiscoveryIso over the real demo ISO: the embed area holds the Ignition archive and,
// when the InfraEnv has one, its extra initrd (static network keyfiles), both readable back
// by the embed-area reader; an extra initrd that does not fit is refused, never truncated.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../errors.js';
import type { LiveImage } from '../images/catalog/live-image.js';
import { writeCpio } from '../initrd/cpio.js';
import { KEYFILE_MODE, NETWORK_KEYFILE_DIR, readEmbedArea } from '../initrd/embed-archive.js';
import { gzipEncode } from '../initrd/gzip.js';
import { parseLiveIso } from '../iso/live-layout.js';
import { BaseFile } from '../splice/base-file.js';
import { X86_ISO } from '../../test/support/image-service.js';
import { buildDiscoveryIso } from './discovery-iso.js';

const IGNITION = Buffer.from('{"ignition":{"version":"3.2.0"}}');
const KEYFILE = Buffer.from('[connection]\nid=eno1\ntype=ethernet\n[ethernet]\nmac-address=52:54:00:AA:00:01\n');

describe('buildDiscoveryIso', () => {
  let image: LiveImage;
  beforeAll(async () => {
    const base = await BaseFile.open(X86_ISO);
    image = {
      entry: { openshiftVersion: '4.17', cpuArchitecture: 'x86_64' } as LiveImage['entry'],
      base,
      manifest: await parseLiveIso(X86_ISO),
      minimalState: { state: 'absent' },
    };
  });
  afterAll(() => image.base.close());

  const embedArea = async (file: Awaited<ReturnType<typeof buildDiscoveryIso>>) => {
    const { offset, length } = image.manifest.ignition;
    return readEmbedArea(await file.read(offset, offset + length - 1));
  };

  it('writes the Ignition alone when there is no extra initrd', async () => {
    const file = await buildDiscoveryIso(image, { ignition: IGNITION, kernelArguments: [] }, 'gzip');
    const contents = await embedArea(file);
    expect(contents.ignition?.toString()).toBe(IGNITION.toString());
    expect(contents.networkKeyfiles).toEqual([]);
  });

  it('appends the extra initrd: the network keyfiles sit next to config.ign, as coreos-installer embeds them', async () => {
    // shaped as the core's minimal initrd (src/core/infraenv/minimal-initrd.ts)
    const extraInitrd = gzipEncode(
      writeCpio([{ path: `${NETWORK_KEYFILE_DIR}/eno1-525400aa0001.nmconnection`, data: KEYFILE, mode: KEYFILE_MODE }]),
    );
    const file = await buildDiscoveryIso(image, { ignition: IGNITION, kernelArguments: [], extraInitrd }, 'gzip');
    const contents = await embedArea(file);
    expect(contents.ignition?.toString()).toBe(IGNITION.toString());
    expect(contents.networkKeyfiles.map((k) => [k.name, k.content.toString()])).toEqual([
      ['eno1-525400aa0001.nmconnection', KEYFILE.toString()],
    ]);
  });

  it('refuses an extra initrd larger than the embed area with 413, never a truncated archive', async () => {
    const extraInitrd = randomBytes(image.manifest.ignition.length + 1);
    await expect(
      buildDiscoveryIso(image, { ignition: IGNITION, kernelArguments: [], extraInitrd }, 'gzip'),
    ).rejects.toBeInstanceOf(PayloadTooLargeError);
  });
});
