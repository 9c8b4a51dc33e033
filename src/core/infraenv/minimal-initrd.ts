// The extra initrd for minimal ISOs and PXE: static network keyfiles the live system uses before Ignition.
//
// A gzip'd newc archive with etc/coreos-firstboot-network/<nic>.nmconnection, the
// directory CoreOS copies NetworkManager keyfiles from at first boot. Undefined
// when the InfraEnv has no static network config (the API answers 204).
import { gzipSync } from 'node:zlib';
import { writeNewc } from '../archive/cpio.js';
import type { InfraEnvRecord } from '../model.js';
import { generateKeyfiles } from './static-network.js';

export function minimalInitrd(infraEnv: InfraEnvRecord): Buffer | undefined {
  const keyfiles = generateKeyfiles(infraEnv.staticNetworkConfig ?? []);
  if (keyfiles.length === 0) return undefined;
  const entries = [
    { name: 'etc' },
    { name: 'etc/coreos-firstboot-network' },
    ...keyfiles.map((k) => ({ name: `etc/coreos-firstboot-network/${k.name}`, data: Buffer.from(k.contents, 'utf8'), mode: 0o600 })),
  ];
  return gzipSync(writeNewc(entries), { level: 9 });
}
