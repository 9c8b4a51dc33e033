// The grub.cfg a network-booted GRUB runs for a discovery host, per architecture: x86_64 (signed
// grubx64.efi behind shim), aarch64 (grubaa64.efi / Debian's grubnetaa64.efi) and ppc64le
// (powerpc-ieee1275 core.elf, as CoreOS's own PXE tests load it). GRUB fetches the kernel and
// the initrd from the service over plain HTTP (its `http` module, `insmod http`: built into
// RHEL's and Fedora's network GRUBs, fetched from $prefix by Debian 12's, which lacks it; GRUB
// speaks no TLS), tries ten times five seconds apart (GRUB retries nothing itself), then gives up
// so the firmware moves to its next boot device. A URL's port goes into the device name,
// `(http,host:port)` (Debian 12's GRUB 2.06 reads it: test/e2e/arch-aarch64.test.ts); without one,
// GRUB uses port 80.
//
// Quoting: the URLs are single-quoted (GRUB's lexer takes `&`, `;`, `|`, `<`, `>` as syntax and
// `$` as expansion; inside '…' nothing is special). The fixed and the InfraEnv's kernel arguments
// are pasted as they are, as into an ISO's grub.cfg kargs area: they are checked to be safe for
// GRUB's lexer (src/core/infraenv/kernel-arguments.ts). GRUB drops their quotes and re-quotes a
// word with a blank whole (`k="a b"` reaches the kernel as `"k=a b"`), which the kernel parses to
// the same name and value (test: grub-config.test.ts, with an independent model of both).
// Kernel names: none here. The kernel URL is the service's /boot-artifacts/kernel, which serves
// the file the image itself names (images/pxeboot/vmlinuz, kernel.img, ...; src/iso/live-layout.ts).
// s390x has no GRUB: an LPAR or z/VM guest loads kernel + initrd + parmfile (the image's
// images/generic.prm with the InfraEnv's kernel arguments added; docs/operator/architectures.md).
//
// Does: render (pure). Does NOT: choose which host gets it or name its TFTP file (the PXE front
// door), or build the URLs (src/core/infraenv/discovery-boot.ts).
import { BadRequestError } from '../errors.js';
import { type DiscoveryBoot, fixedKernelArguments } from './discovery-boot.js';

const MAX_ATTEMPTS = 10;
const RETRY_SLEEP_SECONDS = 5;

/** The architectures a network-booted GRUB runs on, and the loader that does it. */
export const GRUB_NETWORK_LOADERS = {
  x86_64: 'grubx64.efi (signed, behind shimx64.efi)',
  aarch64: 'grubaa64.efi (Debian: grubnetaa64.efi.signed of grub-efi-arm64-signed)',
  ppc64le: 'core.elf (grub-mknetdir --net-directory … for powerpc-ieee1275)',
} as const;

export function grubBootConfig(boot: DiscoveryBoot): string {
  if (boot.arch === 's390x')
    throw new BadRequestError('s390x boots no GRUB: it loads kernel, pxe-initrd and a parmfile');
  const kargs = [
    grubQuote(`coreos.live.rootfs_url=${boot.urls.rootfs}`),
    ...fixedKernelArguments(boot.arch),
    ...boot.kernelArguments,
  ];
  return [
    `# bootsmith: discovery boot (${boot.arch}); the kernel, initrd and rootfs come from bootsmith over HTTP`,
    'set timeout=0',
    "# built into RHEL/Fedora network GRUBs; Debian 12's grubnet*.efi loads it from $prefix/<platform>/http.mod",
    'insmod http',
    `for attempt in ${Array.from({ length: MAX_ATTEMPTS }, (_, i) => i + 1).join(' ')}; do`,
    '  echo "Loading the discovery kernel and initrd (attempt $attempt)"',
    `  if linux ${grubQuote(grubHttpPath(boot.urls.kernel))} ${kargs.join(' ')}; then`,
    `    if initrd ${grubQuote(grubHttpPath(boot.urls.initrd))}; then`,
    '      boot',
    '    fi',
    '  fi',
    `  echo "Boot attempt $attempt failed, retrying in ${RETRY_SLEEP_SECONDS} seconds"`,
    `  sleep ${RETRY_SLEEP_SECONDS}`,
    'done',
    `echo "Giving up after ${MAX_ATTEMPTS} attempts"`,
    '',
  ].join('\n');
}

/** `http://h:8080/p?q` → `(http,h:8080)/p?q`, GRUB's name for a file over HTTP; refuses https. */
export function grubHttpPath(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BadRequestError(`not a URL GRUB can fetch: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:')
    throw new BadRequestError(
      `GRUB fetches over plain HTTP only, not ${parsed.protocol.slice(0, -1)} (set IMAGE_SERVICE_HTTP_BASE_URL): ${parsed.origin}`,
    );
  return `(http,${parsed.host})${parsed.pathname}${parsed.search}`;
}

/** One GRUB word holding `text` literally: '…', with a `'` as '\''. */
export function grubQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
