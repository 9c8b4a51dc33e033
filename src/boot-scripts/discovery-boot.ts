// What a network-booted discovery host is given, whatever loads it: the architecture, where the
// kernel, the initrd (with the InfraEnv's Ignition appended) and the rootfs are, and the InfraEnv's
// own kernel arguments; plus the kernel arguments every discovery boot gets, per architecture.
//
// Consoles per architecture: x86_64 keeps assisted-service's `console=tty1 console=ttyS1,115200n8`
// (what upstream's iPXE script hard-codes for every arch); the others get their serial console as
// CoreOS's own tests name it (coreos-assembler's consoleKernelArgument: aarch64 ttyAMA0 (PL011),
// ppc64le hvc0 (PowerVM, KVM and OPAL all give the hypervisor console), s390x ttysclp0), with tty1
// first where there may be a screen (x86_64, aarch64). s390x gets none: the kernel picks the SCLP
// (or 3270) console itself, and an LPAR has no other. The last `console=` is /dev/console.
//
// Does: the input shape and the fixed kernel arguments (pure). Does NOT: render a loader's script
// (ipxe-script.ts, grub-config.ts) or build the URLs (src/core/infraenv/discovery-boot.ts).
import type { CpuArchitecture } from '../cpu-architecture.js';

export interface DiscoveryBoot {
  arch: CpuArchitecture;
  /** Absolute URLs; the kernel and rootfs name no file: the service reads their place from the image. */
  urls: { kernel: string; initrd: string; rootfs: string };
  /** The InfraEnv's kernel arguments, in order, as validated (src/core/infraenv/kernel-arguments.ts). */
  kernelArguments: readonly string[];
}

/** The `console=` values of a discovery boot, per architecture (the last is /dev/console). */
export const DISCOVERY_CONSOLES: Record<CpuArchitecture, readonly string[]> = {
  x86_64: ['tty1', 'ttyS1,115200n8'],
  aarch64: ['tty1', 'ttyAMA0,115200n8'],
  ppc64le: ['hvc0'],
  s390x: [],
};

const COMMON_KARGS = [
  'random.trust_cpu=on',
  'rd.luks.options=discard',
  'ignition.firstboot',
  'ignition.platform.id=metal',
];

/**
 * The kernel arguments after the rootfs URL, before the InfraEnv's: upstream's fixed ones, the
 * arch's consoles, and the same consoles kept for the installed system (coreos.inst.persistent-kargs).
 */
export function fixedKernelArguments(arch: CpuArchitecture): string[] {
  const consoles = DISCOVERY_CONSOLES[arch].map((c) => `console=${c}`);
  if (consoles.length === 0) return [...COMMON_KARGS];
  return [...COMMON_KARGS, ...consoles, `coreos.inst.persistent-kargs="${consoles.join(' ')}"`];
}

/**
 * The kernel arguments of a live discovery boot after `initrd=`: the rootfs URL, the arch's fixed
 * ones, the InfraEnv's — what iPXE's `kernel` line, GRUB's `linux` line and pixiecore's cmdline carry.
 */
export function liveKernelArguments(boot: DiscoveryBoot): string[] {
  return [`coreos.live.rootfs_url=${boot.urls.rootfs}`, ...fixedKernelArguments(boot.arch), ...boot.kernelArguments];
}
