// The CPU architectures base images exist for, and the names they go by: assisted-service's
// (`x86_64`, `aarch64`, `ppc64le`, `s390x`) and the Go/container aliases (`amd64`, `arm64`).
//
// Does: normalise an architecture name. Does NOT: know which images exist (the catalog does,
// src/images/catalog/catalog-image.ts) or read the configuration (src/images/os-images-config.ts).
// A leaf of src/images/: both of those read it.

export type CpuArchitecture = 'x86_64' | 'aarch64' | 'ppc64le' | 's390x';

const ARCH_ALIASES: Record<string, CpuArchitecture> = {
  x86_64: 'x86_64',
  amd64: 'x86_64',
  aarch64: 'aarch64',
  arm64: 'aarch64',
  ppc64le: 'ppc64le',
  s390x: 's390x',
};

/** Normalises `amd64`≡`x86_64`, `arm64`≡`aarch64`; undefined for unknown names. */
export function normalizeArchitecture(arch: string): CpuArchitecture | undefined {
  return ARCH_ALIASES[arch.toLowerCase()];
}
