// The loaders the TFTP server holds, read once at start into memory (a transfer sends slices of
// one Buffer; nothing is read per block or per client): the BIOS iPXE, the configured x86-64 EFI
// iPXE, shim and signed GRUB when the Secure Boot chain is on, and the arm64 loader when one is
// configured. Which files are needed follows from the settings; every missing, unreadable, empty
// or oversized one is named in one PxeStartError with the package that ships it.
// Does NOT: serve anything (tftp/tftp-server.ts) or watch the files (a changed loader is read at the next start).
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { LoaderNames } from '../dhcp/answer-plan.js';
import { PxeStartError } from '../pxe-start-error.js';
import type { PxeSettings } from '../pxe-settings.js';
import { loaderRow, type LoaderRow } from './loader-table.js';

/** A loader is a few hundred KiB to a few MiB (signed GRUB: 3.7 MiB); 64 MiB refuses a wrong path early. */
export const MAX_LOADER_BYTES = 64 * 1024 * 1024;

export interface LoaderFile {
  tftpName: string;
  path: string;
  bytes: Buffer;
}

export interface LoaderSet {
  files: ReadonlyMap<string, LoaderFile>;
  names: LoaderNames;
}

interface Wanted {
  tftpName: string;
  path: string;
  /** How to get it, for the error: the package, or the setting that named it. */
  remedy: string;
}

function fromRow(row: LoaderRow, dir: string | undefined): Wanted {
  const inDir = dir !== undefined;
  return {
    tftpName: row.tftpName,
    path: inDir ? path.join(dir, row.tftpName) : row.debianPath,
    remedy: inDir
      ? `${row.tftpName} in PXE_LOADERS_DIR: Debian's ${row.debianPackage} (${row.debianPath}) or RHEL's ${row.rhelPackage} (${row.rhelPath})`
      : `Debian package ${row.debianPackage}`,
  };
}

/** The files these settings need, by TFTP name. */
export function wantedLoaders(settings: PxeSettings): Wanted[] {
  const dir = settings.pxeLoadersDir;
  const row = (name: string) => fromRow(loaderRow(name)!, dir);
  const wanted = [row('undionly.kpxe'), row(settings.pxeEfiLoader)];
  if (settings.pxeSecureBoot) {
    const offSwitch = '; or PXE_SECURE_BOOT=false to boot without Secure Boot';
    wanted.push(...[row('shimx64.efi'), row('grubx64.efi')].map((w) => ({ ...w, remedy: `${w.remedy}${offSwitch}` })));
  }
  const arm64 = settings.pxeArm64Loader;
  if (arm64 !== undefined) {
    const absolute = path.isAbsolute(arm64);
    wanted.push({
      tftpName: path.basename(arm64),
      path: absolute ? arm64 : path.join(dir ?? '', arm64),
      remedy: `PXE_ARM64_LOADER=${arm64} (iPXE's snp-arm64.efi or Debian's grub-efi-arm64-signed grubnetaa64.efi.signed)`,
    });
  }
  return wanted;
}

async function readLoader(w: Wanted): Promise<LoaderFile | string> {
  let size: number;
  try {
    const s = await stat(w.path);
    if (!s.isFile()) return `${w.path} is not a regular file (${w.remedy})`;
    size = s.size;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return `${w.path} ${code === 'ENOENT' ? 'is missing' : `cannot be read (${code})`} (${w.remedy})`;
  }
  if (size === 0) return `${w.path} is empty (${w.remedy})`;
  if (size > MAX_LOADER_BYTES)
    return `${w.path} is ${size} bytes, more than a loader's ${MAX_LOADER_BYTES} (${w.remedy})`;
  try {
    return { tftpName: w.tftpName, path: w.path, bytes: await readFile(w.path) };
  } catch (err) {
    return `${w.path} cannot be read (${(err as NodeJS.ErrnoException).code}) (${w.remedy})`;
  }
}

/** Reads every needed loader once; throws one PxeStartError naming all that are missing. */
export async function loadLoaders(settings: PxeSettings): Promise<LoaderSet> {
  const results = await Promise.all(wantedLoaders(settings).map(readLoader));
  const problems = results.filter((r): r is string => typeof r === 'string');
  if (problems.length > 0)
    throw new PxeStartError(
      `PXE loaders missing: ${problems.join('; ')}`,
      settings.pxeLoadersDir !== undefined ? 'PXE_LOADERS_DIR' : undefined,
    );
  const files = new Map((results as LoaderFile[]).map((f) => [f.tftpName, f]));
  return {
    files,
    names: {
      bios: 'undionly.kpxe',
      efiX64: settings.pxeEfiLoader,
      arm64: settings.pxeArm64Loader === undefined ? undefined : path.basename(settings.pxeArm64Loader),
      secureBootShim: settings.pxeSecureBoot ? 'shimx64.efi' : undefined,
    },
  };
}
