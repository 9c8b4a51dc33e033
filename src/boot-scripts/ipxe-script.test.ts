// The iPXE scripts, spelled out whole: the boot script (initrd, kernel with the rootfs URL pasted
// as given, the fixed kernel arguments with the arch's consoles, the extra ones, a ten-attempt
// retry loop) and the boot-order-control redirect (three attempts, then exit 0 so firmware boots
// the next device). The consoles per arch are pinned here by their words.
import { describe, expect, it } from 'vitest';

import type { CpuArchitecture } from '../cpu-architecture.js';
import { ipxeBootScript, ipxeRedirectScript } from './ipxe-script.js';

const URLS = {
  initrd: 'http://img/images/ID/pxe-initrd?arch=x86_64&version=4.16',
  kernel: 'http://img/boot-artifacts/kernel?arch=x86_64&version=4.16',
  rootfs: 'http://img/boot-artifacts/rootfs?arch=x86_64&version=4.16',
};
const KARGS =
  'random.trust_cpu=on rd.luks.options=discard ignition.firstboot ignition.platform.id=metal ' +
  'console=tty1 console=ttyS1,115200n8 coreos.inst.persistent-kargs="console=tty1 console=ttyS1,115200n8"';

const boot = (kernelLine: string): string =>
  [
    '#!ipxe',
    'set attempt:int32 0',
    ':retry',
    'inc attempt',
    `initrd --name initrd ${URLS.initrd} || goto failed`,
    kernelLine,
    'boot || goto failed',
    ':failed',
    'iseq ${attempt} 10 && goto give_up ||',
    'echo Boot attempt ${attempt} failed, retrying in 5 seconds',
    'imgfree',
    'sleep 5',
    'goto retry',
    ':give_up',
    'echo Giving up after 10 attempts',
    'exit 1',
    '',
  ].join('\n');

describe('bootScript: table', () => {
  it.each<[string, string[], string]>([
    [
      'no extra kernel arguments',
      [],
      `kernel ${URLS.kernel} initrd=initrd coreos.live.rootfs_url=${URLS.rootfs} ${KARGS} || goto failed`,
    ],
    [
      'extra kernel arguments after the fixed ones, in order',
      ['ip=dhcp6', 'rd.neednet=1'],
      `kernel ${URLS.kernel} initrd=initrd coreos.live.rootfs_url=${URLS.rootfs} ${KARGS} ip=dhcp6 rd.neednet=1 || goto failed`,
    ],
  ])('%s', (_name, extra, kernelLine) => {
    expect(ipxeBootScript({ arch: 'x86_64', urls: URLS, kernelArguments: extra })).toBe(boot(kernelLine));
  });
});

describe('ipxeBootScript: the consoles of each architecture', () => {
  const FIXED = 'random.trust_cpu=on rd.luks.options=discard ignition.firstboot ignition.platform.id=metal';
  it.each<[CpuArchitecture, string]>([
    [
      'x86_64',
      `${FIXED} console=tty1 console=ttyS1,115200n8 coreos.inst.persistent-kargs="console=tty1 console=ttyS1,115200n8"`,
    ],
    [
      'aarch64',
      `${FIXED} console=tty1 console=ttyAMA0,115200n8 coreos.inst.persistent-kargs="console=tty1 console=ttyAMA0,115200n8"`,
    ],
    ['ppc64le', `${FIXED} console=hvc0 coreos.inst.persistent-kargs="console=hvc0"`],
    ['s390x', FIXED],
  ])('%s', (arch, kargs) => {
    const script = ipxeBootScript({ arch, urls: URLS, kernelArguments: ['k=v'] });
    expect(script.split('\n')[5]).toBe(
      `kernel ${URLS.kernel} initrd=initrd coreos.live.rootfs_url=${URLS.rootfs} ${kargs} k=v || goto failed`,
    );
  });
});

describe('ipxeRedirectScript', () => {
  it('chains to the files URL with the NIC’s MAC, and gives up after three attempts with exit 0', () => {
    expect(ipxeRedirectScript('http://api/v2/infra-envs/ID/downloads/files?file_name=ipxe-script')).toBe(
      [
        '#!ipxe',
        'set attempt:int32 0',
        ':retry',
        'inc attempt',
        'chain http://api/v2/infra-envs/ID/downloads/files?file_name=ipxe-script&mac=${net0/mac} || goto failed',
        ':failed',
        'iseq ${attempt} 3 && goto local ||',
        'sleep 5',
        'goto retry',
        ':local',
        'echo No discovery boot for this host, continuing with the next boot device',
        'exit 0',
        '',
      ].join('\n'),
    );
  });
});
