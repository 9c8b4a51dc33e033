// The CPU architectures base images exist for, and every spelling of them bootsmith accepts, in
// one place: assisted-service's (`x86_64`, `aarch64`, `arm64`, `ppc64le`, `s390x`; its swagger
// keeps `arm64` until "AI moves to using aarch64" and normalises it to `aarch64`), the Go/OCI
// names (`amd64`, `arm64`) and Debian's (`ppc64el`, `arm64`, `amd64`). `multi` (upstream's
// multi-architecture release) names no single base image, so it is not one of them.
//
// Does: normalise a name, and say in words which names are known. Does NOT: know which images exist
// (the catalog does, src/images/catalog/catalog-image.ts), read the configuration
// (src/images/os-images-config.ts) or validate API bodies (src/core/validation/body-models.ts holds
// the swagger's enum). A leaf: the image store, the core and the boot scripts (src/boot-scripts/) read it.

export type CpuArchitecture = 'x86_64' | 'aarch64' | 'ppc64le' | 's390x';

export const BASE_IMAGE_ARCHITECTURES: readonly CpuArchitecture[] = ['x86_64', 'aarch64', 'ppc64le', 's390x'];

const ARCH_ALIASES: Record<string, CpuArchitecture> = {
  x86_64: 'x86_64',
  amd64: 'x86_64',
  aarch64: 'aarch64',
  arm64: 'aarch64',
  ppc64le: 'ppc64le',
  ppc64el: 'ppc64le',
  s390x: 's390x',
};

/** `amd64`≡`x86_64`, `arm64`≡`aarch64`, `ppc64el`≡`ppc64le` (any case); undefined for unknown names. */
export function normalizeArchitecture(arch: string): CpuArchitecture | undefined {
  return Object.hasOwn(ARCH_ALIASES, arch.toLowerCase()) ? ARCH_ALIASES[arch.toLowerCase()] : undefined;
}

/** Every accepted spelling, for error messages: `x86_64 (amd64), aarch64 (arm64), …`. */
export function knownArchitectureNames(): string {
  return BASE_IMAGE_ARCHITECTURES.map((cpu) => {
    const aliases = Object.keys(ARCH_ALIASES).filter((a) => a !== cpu && ARCH_ALIASES[a] === cpu);
    return aliases.length ? `${cpu} (${aliases.join(', ')})` : cpu;
  }).join(', ');
}
