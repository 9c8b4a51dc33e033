// The kernel I/O addon (native/kernel-io.c, built at install into build/Release/kernel_io.node by
// scripts/build-native.mjs), loaded once, with the reason when it is not there.
//
// Does: load the addon from the package root, check that it has every function this version
// needs, and say why not when it cannot be used (no compiler at install, another platform, a Node
// built for another ABI). Every user has a pure-JavaScript path for the "not there" case: the
// service then copies through user space, as before the addon existed.
// Does NOT: decide whether to use it (HTTP_ZERO_COPY, src/config.ts; the listener's kind) or hold
// any state of its own. Next: ./socket-file-sender.ts, which drives a socket with it.
import { createRequire } from 'node:module';
import path from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';
import type { KernelIo } from './kernel-io.js';

export type { KernelIo, WritableWatch } from './kernel-io.js';

export type KernelIoLoad = { io: KernelIo } | { missing: string };

/** Where scripts/build-native.mjs leaves the addon (node-gyp's Release build). */
export const ADDON_PATH = path.join(PACKAGE_ROOT, 'build', 'Release', 'kernel_io.node');

const FUNCTIONS = [
  'sendFile',
  'send',
  'residency',
  'readNoWait',
  'mapFile',
  'mappedResidency',
  'releaseMapping',
  'dup',
  'close',
  'setCork',
  'WritableWatch',
] as const;

let loaded: KernelIoLoad | undefined;

/** The addon, or why it is not available (loaded on the first call, then remembered). */
export function loadKernelIo(): KernelIoLoad {
  loaded ??= load();
  return loaded;
}

/** The addon when it loaded, else undefined. */
export function kernelIo(): KernelIo | undefined {
  const l = loadKernelIo();
  return 'io' in l ? l.io : undefined;
}

function load(): KernelIoLoad {
  if (process.platform !== 'linux')
    return { missing: `the kernel I/O addon is built for Linux only (${process.platform})` };
  let addon: Partial<KernelIo>;
  try {
    addon = createRequire(import.meta.url)(ADDON_PATH) as Partial<KernelIo>;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      missing:
        code === 'MODULE_NOT_FOUND'
          ? `${ADDON_PATH} was not built (no C compiler at install? run npm rebuild or node scripts/build-native.mjs)`
          : `${ADDON_PATH} did not load: ${(err as Error).message}`,
    };
  }
  const absent = FUNCTIONS.filter((name) => typeof addon[name] !== 'function');
  if (absent.length > 0 || typeof addon.EAGAIN !== 'number')
    return { missing: `${ADDON_PATH} is from another version (lacks ${absent.join(', ') || 'EAGAIN'}): rebuild it` };
  return { io: addon as KernelIo };
}
