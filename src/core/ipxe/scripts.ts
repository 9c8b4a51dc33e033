// iPXE scripts in upstream's shape, with retries (iPXE itself retries nothing).
//
// boot script: `initrd --name initrd <pxe-initrd>`, `kernel <kernel> initrd=initrd
// coreos.live.rootfs_url=<rootfs> ... ignition.firstboot ignition.platform.id=metal ...`
// (<rootfs>: /boot-artifacts/rootfs, or the image's OS_IMAGES rootfs_url, pasted unquoted),
// `boot`, each `|| goto retry` into a sleep-and-retry loop with an attempt limit.
// redirect script (boot-order-control): `chain <files URL>&mac=${net0/mac}`; after a
// few failures (e.g. the 404 an installed host gets) it exits so firmware boots the disk.

const MAX_ATTEMPTS = 10;
const REDIRECT_ATTEMPTS = 3;
const RETRY_SLEEP_SECONDS = 5;

const BOOT_KARGS =
  'random.trust_cpu=on rd.luks.options=discard ignition.firstboot ignition.platform.id=metal ' +
  'console=tty1 console=ttyS1,115200n8 coreos.inst.persistent-kargs="console=tty1 console=ttyS1,115200n8"';

/** The kernel command line of a live PXE boot after its initrd argument: the rootfs URL, the fixed arguments, the InfraEnv's (GRUB and pixiecore get the same). */
export function liveKernelArguments(rootfsUrl: string, extraKargs: readonly string[]): string {
  const extra = extraKargs.length ? ` ${extraKargs.join(' ')}` : '';
  return `coreos.live.rootfs_url=${rootfsUrl} ${BOOT_KARGS}${extra}`;
}

export function bootScript(
  urls: { initrd: string; kernel: string; rootfs: string },
  extraKargs: readonly string[],
): string {
  return [
    '#!ipxe',
    'set attempt:int32 0',
    ':retry',
    'inc attempt',
    `initrd --name initrd ${urls.initrd} || goto failed`,
    `kernel ${urls.kernel} initrd=initrd ${liveKernelArguments(urls.rootfs, extraKargs)} || goto failed`,
    'boot || goto failed',
    ':failed',
    `iseq \${attempt} ${MAX_ATTEMPTS} && goto give_up ||`,
    `echo Boot attempt \${attempt} failed, retrying in ${RETRY_SLEEP_SECONDS} seconds`,
    'imgfree',
    `sleep ${RETRY_SLEEP_SECONDS}`,
    'goto retry',
    ':give_up',
    `echo Giving up after ${MAX_ATTEMPTS} attempts`,
    'exit 1',
    '',
  ].join('\n');
}

export function redirectScript(filesUrl: string): string {
  return [
    '#!ipxe',
    'set attempt:int32 0',
    ':retry',
    'inc attempt',
    `chain ${filesUrl}&mac=\${net0/mac} || goto failed`,
    ':failed',
    `iseq \${attempt} ${REDIRECT_ATTEMPTS} && goto local ||`,
    `sleep ${RETRY_SLEEP_SECONDS}`,
    'goto retry',
    ':local',
    'echo No discovery boot for this host, continuing with the next boot device',
    'exit 0',
    '',
  ].join('\n');
}
