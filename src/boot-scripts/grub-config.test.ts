// The grub.cfg of a network-booted discovery host: spelled out whole for aarch64 (the GRUB paths
// of the service's URLs, single-quoted; the consoles; the retry loop), refused for s390x and for a
// URL GRUB cannot fetch; and, per architecture, the kernel arguments the kernel reads from GRUB's
// `linux` line equal those it reads from the iPXE script's `kernel` line for the same InfraEnv —
// both read by independent models of iPXE, GRUB's lexer and `linux`, and the kernel's parser
// (test-support/loader-models.ts), with arguments GRUB re-quotes (`k="a b"`).
import { describe, expect, it } from 'vitest';
import { BASE_IMAGE_ARCHITECTURES } from '../cpu-architecture.js';
import type { DiscoveryBoot } from './discovery-boot.js';
import { grubBootConfig, grubHttpPath, grubQuote } from './grub-config.js';
import { ipxeBootScript } from './ipxe-script.js';
import {
  grubLinuxCommandLine,
  grubWords,
  ipxeKernelCommandLine,
  kernelParameters,
} from './test-support/loader-models.js';

const ID = '6a1b0a5e-43bb-4f0e-9a3c-2f4b8f3f2d11';
const URLS = {
  kernel: 'http://192.0.2.7:8090/boot-artifacts/kernel?arch=aarch64&version=4.17&infra_env_id=' + ID,
  initrd: `http://192.0.2.7:8090/images/${ID}/pxe-initrd?arch=aarch64&version=4.17&api_key=eyJhbGciOi.x-y_z`,
  rootfs: 'http://192.0.2.7:8090/boot-artifacts/rootfs?arch=aarch64&version=4.17&infra_env_id=' + ID,
};
const KARGS = ['ip=192.0.2.5::192.0.2.1:255.255.255.0:h:eth0:none', 'bootsmith.note="spliced kargs"', 'rd.neednet=1'];

describe('grubBootConfig', () => {
  it('aarch64, whole: the URLs as GRUB http paths in single quotes, the consoles, ten attempts', () => {
    const boot: DiscoveryBoot = { arch: 'aarch64', urls: URLS, kernelArguments: KARGS };
    expect(grubBootConfig(boot)).toBe(
      [
        '# bootsmith: discovery boot (aarch64); the kernel, initrd and rootfs come from bootsmith over HTTP',
        'set timeout=0',
        "# built into RHEL/Fedora network GRUBs; Debian 12's grubnet*.efi loads it from $prefix/<platform>/http.mod",
        'insmod http',
        'for attempt in 1 2 3 4 5 6 7 8 9 10; do',
        '  echo "Loading the discovery kernel and initrd (attempt $attempt)"',
        `  if linux '(http,192.0.2.7:8090)/boot-artifacts/kernel?arch=aarch64&version=4.17&infra_env_id=${ID}'` +
          ` 'coreos.live.rootfs_url=${URLS.rootfs}'` +
          ' random.trust_cpu=on rd.luks.options=discard ignition.firstboot ignition.platform.id=metal' +
          ' console=tty1 console=ttyAMA0,115200n8 coreos.inst.persistent-kargs="console=tty1 console=ttyAMA0,115200n8"' +
          ` ${KARGS.join(' ')}; then`,
        `    if initrd '(http,192.0.2.7:8090)/images/${ID}/pxe-initrd?arch=aarch64&version=4.17&api_key=eyJhbGciOi.x-y_z'; then`,
        '      boot',
        '    fi',
        '  fi',
        '  echo "Boot attempt $attempt failed, retrying in 5 seconds"',
        '  sleep 5',
        'done',
        'echo "Giving up after 10 attempts"',
        '',
      ].join('\n'),
    );
  });

  it('s390x has no GRUB: a 400 saying what it loads instead', () => {
    expect(() => grubBootConfig({ arch: 's390x', urls: URLS, kernelArguments: [] })).toThrow(
      /s390x boots no GRUB: it loads kernel, pxe-initrd and a parmfile/,
    );
  });

  it.each(BASE_IMAGE_ARCHITECTURES.filter((a) => a !== 's390x'))(
    '%s: the kernel reads the same arguments from GRUB’s linux line as from the iPXE kernel line',
    (arch) => {
      const boot: DiscoveryBoot = { arch, urls: URLS, kernelArguments: KARGS };
      const linux = grubBootConfig(boot)
        .split('\n')
        .find((l) => l.trim().startsWith('if linux '))!
        .trim()
        .replace(/^if /, '')
        .replace(/; then$/, '');
      const kernel = ipxeBootScript(boot)
        .split('\n')
        .find((l) => l.startsWith('kernel '))!;
      expect(grubWords(linux)[1]).toBe(grubHttpPath(URLS.kernel));
      const fromIpxe = kernelParameters(ipxeKernelCommandLine(kernel)).filter((p) => p.name !== 'initrd');
      const fromGrub = kernelParameters(grubLinuxCommandLine(linux));
      expect(fromGrub).toEqual(fromIpxe);
      expect(fromGrub).toContainEqual({ name: 'bootsmith.note', value: 'spliced kargs' });
      expect(fromGrub).toContainEqual({ name: 'coreos.live.rootfs_url', value: URLS.rootfs });
      // GRUB re-quoted the spaced argument whole; the kernel reads the same value
      expect(grubLinuxCommandLine(linux)).toContain('"bootsmith.note=spliced kargs"');
    },
  );
});

describe('grubHttpPath and grubQuote', () => {
  it.each<[string, string]>([
    ['http://h.example/x', '(http,h.example)/x'],
    ['http://h.example:8080/a/b?c=1&d=2', '(http,h.example:8080)/a/b?c=1&d=2'],
    ['http://[2001:db8::7]:8090/k', '(http,[2001:db8::7]:8090)/k'],
  ])('%s → %s', (url, path) => {
    expect(grubHttpPath(url)).toBe(path);
  });

  it.each(['https://h.example/x', 'ftp://h/x', 'not a url'])('refuses %s with a 400 naming why', (url) => {
    expect(() => grubHttpPath(url)).toThrow(/GRUB fetches over plain HTTP only|not a URL GRUB can fetch/);
  });

  it("quotes any text as one word GRUB's lexer gives back unchanged", () => {
    for (const text of ["a'b", 'x&y;z|w', '$var ${x}', 'a "b" c', "''"])
      expect(grubWords(`linux ${grubQuote(text)}`)).toEqual(['linux', text]);
  });
});
