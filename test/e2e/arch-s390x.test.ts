// s390x discovery boots (issue 34):
//   1. the spliced full ISO read from its /byid URL by qemu's curl block driver; qemu's s390-ccw
//      BIOS IPLs the El Torito entry images/cdboot.img (kernel + initrd + Ignition area in
//      mk-s390image's layout); the kernel reads the initrd offset/size and the command line bootsmith
//      spliced into cdboot.img's parameter area (no boot loader: the kargs arrive verbatim) and
//      unpacks the archive in the Ignition area after the initrd;
//   2. PXE-style, as an LPAR or z/VM guest loads it: the service's kernel and pxe-initrd (the base
//      initrd + the appended Ignition archive) and the image's generic.prm plus the InfraEnv's
//      kargs, with qemu -kernel/-initrd/-append; the s390x-initrd-addrsize the service answers is
//      read back as four big-endian words (its own reader, not bootsmith's) against that initrd.
// Both: the real Ignition of s390x applies the config; the guest registers as s390x
// (test/e2e/support/arch-boot-suite.ts). Fixture: fixtures/build-arch-iso.sh --arch s390x.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { archBootSuite, expectArchDiscovery, expectRegisteredHost } from './support/arch-boot-suite.js';
import { createInfraEnv, NIC_MAC } from './support/infraenv.js';
import { isoExtract } from './support/iso-tools.js';
import { parseSerialReport } from './support/serial-report.js';
import { OPENSHIFT_VERSION } from './support/service.js';

/** Where an LPAR load puts the initrd (generic.ins), as initrd.addrsize's second word says. */
const S390X_INITRD_ADDRESS = 0x02000000;

archBootSuite('s390x', (suite) => {
  it('PXE-style: the service kernel, pxe-initrd and the image parmfile + InfraEnv kargs boot; initrd.addrsize matches that initrd', async (t) => {
    const service = suite.service();
    const runDir = suite.ctx().runDir;
    const env = await createInfraEnv(service, {
      name: 'e2e-s390x-pxe',
      cpuArchitecture: 's390x',
      kernelArguments: ['console=ttysclp0', 'bootsmith.e2e=s390x-pxe'],
    });
    const get = async (url: string): Promise<Buffer> => {
      const r = await service.fetch(url);
      if (r.status !== 200) throw new Error(`GET ${url}: ${r.status} ${await r.text()}`);
      return Buffer.from(await r.arrayBuffer());
    };
    const query = `version=${OPENSHIFT_VERSION}&arch=s390x`;
    const kernel = await get(`${service.url}/boot-artifacts/kernel?${query}`);
    const initrd = await get(`${service.url}/images/${env.id}/pxe-initrd?${query}`);
    const addrsize = await get(`${service.url}/images/${env.id}/s390x-initrd-addrsize?version=${OPENSHIFT_VERSION}`);
    // The kernel is the ISO's kernel.img; the initrd starts with the ISO's (4-byte aligned) initrd.
    expect(
      kernel.equals((await isoExtract(suite.fixture().iso, '/images/pxeboot/kernel.img')) ?? Buffer.alloc(0)),
    ).toBe(true);
    const base = (await isoExtract(suite.fixture().iso, '/images/pxeboot/initrd.img')) ?? Buffer.alloc(0);
    expect(initrd.subarray(0, base.length).equals(base)).toBe(true);
    expect(initrd.length).toBeGreaterThan(base.length);
    // initrd.addrsize: >IIII 0, load address, 0, size of the initrd served beside it.
    expect(addrsize.length).toBe(16);
    expect([0, 4, 8, 12].map((o) => addrsize.readUInt32BE(o))).toEqual([0, S390X_INITRD_ADDRESS, 0, initrd.length]);

    const prm = ((await isoExtract(suite.fixture().iso, '/images/generic.prm')) ?? Buffer.alloc(0)).toString('utf8');
    expect(prm, 'the parmfile keeps its trailing newline, as on real ISOs').toMatch(/\n$/);
    const append = `${prm.trimEnd()} ${env.kernelArguments.join(' ')}`;
    const kernelFile = path.join(runDir, 's390x-pxe.kernel.img');
    const initrdFile = path.join(runDir, 's390x-pxe.initrd.img');
    await writeFile(kernelFile, kernel);
    await writeFile(initrdFile, initrd);
    const result = await suite.boot(t, 'arch-s390x-pxe', {
      kernel: { kernel: kernelFile, initrd: initrdFile, append },
      mac: NIC_MAC,
    });
    const report = parseSerialReport(result.serial);
    expectArchDiscovery('s390x', report, env, append);
    expect(report.firmware).toMatchObject({ kind: 's390' });
    await expectRegisteredHost(service, env.id, 's390x');
  });
});
