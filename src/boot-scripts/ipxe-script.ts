// iPXE scripts in upstream's shape, with retries (iPXE itself retries nothing), per architecture.
//
// boot script: `initrd --name initrd <pxe-initrd>`, `kernel <kernel> initrd=initrd
// coreos.live.rootfs_url=<rootfs> <fixed kargs with the arch's consoles> <InfraEnv kargs>`,
// `boot`, each `|| goto retry` into a sleep-and-retry loop with an attempt limit. iPXE splits the
// line on blanks and hands the words to the kernel joined by one space, quotes and all: InfraEnv
// kargs are checked to be safe for that (src/core/infraenv/kernel-arguments.ts), and the URLs are
// ours (no blanks, no `${`). Works for x86_64 (ipxe.efi, undionly.kpxe) and aarch64 (iPXE's arm64
// EFI build); ppc64le and s390x have no iPXE (grub-config.ts; s390x loads kernel + initrd + parmfile), but the script
// is answered for them too, as upstream does.
// redirect script (boot-order-control): `chain <files URL>&mac=${net0/mac}`; after a few
// failures (e.g. the 404 an installed host gets) it exits so firmware boots the disk.
// Does NOT: build URLs or decide who gets which script (src/core/handlers/downloads.ts).
import { type DiscoveryBoot, liveKernelArguments } from './discovery-boot.js';

/** The iPXE script types (upstream's `ipxe_script_type`): the downloads route and the PXE front door take the same. */
export const IPXE_SCRIPT_TYPES = ['discovery-image-always', 'boot-order-control'] as const;
export type IpxeScriptType = (typeof IPXE_SCRIPT_TYPES)[number];

const MAX_ATTEMPTS = 10;
const REDIRECT_ATTEMPTS = 3;
const RETRY_SLEEP_SECONDS = 5;

export function ipxeBootScript(boot: DiscoveryBoot): string {
  const kargs = ['initrd=initrd', ...liveKernelArguments(boot)];
  return [
    '#!ipxe',
    'set attempt:int32 0',
    ':retry',
    'inc attempt',
    `initrd --name initrd ${boot.urls.initrd} || goto failed`,
    `kernel ${boot.urls.kernel} ${kargs.join(' ')} || goto failed`,
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

export function ipxeRedirectScript(filesUrl: string): string {
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
