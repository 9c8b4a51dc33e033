// The extra initrd for minimal ISOs and PXE: static network keyfiles the live system uses before Ignition.
//
// A gzip'd newc archive with etc/coreos-firstboot-network/<nic>.nmconnection, the
// directory CoreOS copies NetworkManager keyfiles from at first boot. Undefined
// when the InfraEnv has no static network config (the API answers 204).
import { writeCpio } from '../../initrd/cpio.js';
import { KEYFILE_MODE, NETWORK_KEYFILE_DIR } from '../../initrd/embed-archive.js';
import { gzipEncode } from '../../initrd/gzip.js';
import type { InfraEnvRecord } from '../model.js';
import { generateKeyfiles } from '../static-network.js';

export function minimalInitrd(infraEnv: InfraEnvRecord): Buffer | undefined {
  const keyfiles = generateKeyfiles(infraEnv.staticNetworkConfig ?? []);
  if (keyfiles.length === 0) return undefined;
  // writeCpio emits the parent directories itself
  return gzipEncode(
    writeCpio(
      keyfiles.map((k) => ({
        path: `${NETWORK_KEYFILE_DIR}/${k.name}`,
        data: Buffer.from(k.contents, 'utf8'),
        mode: KEYFILE_MODE,
      })),
    ),
  );
}
