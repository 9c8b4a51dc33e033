// The base ISOs of the benchmark: CoreOS-style live ISOs from fixtures/build-live-iso.sh,
// built once per size, kind and script version and kept in bench/work/iso. By default the
// size is an incompressible pseudo-random rootfs (`--rootfs-mib`, like a real RHCOS rootfs,
// which is a compressed squashfs); `sparse` pads with holes instead (`--size-pad`), which
// flatters a server that copies through user space (every read hits one zero page). Also
// reads their layout with `bootsmith iso inspect` and pulls files into the page cache so
// that every server reads warm pages.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { run } from './proc.js';

export interface IsoLayout {
  size: number;
  ignition: { offset: number; length: number };
  kargs?: { size: number; locations: Array<{ offset: number }> };
}

/** build-live-iso.sh's `--rootfs-mib` limit: ISO 9660 level 1 keeps one file below 4 GiB. */
export const REAL_ROOTFS_MIB_MAX = 4000;

/**
 * `real`: random-filled rootfs (default); `sparse`: zero padding punched into holes; `bootable`:
 * the e2e's bootable fixture (fixtures/build-bootable-iso.sh), the base of the BMC fleet workloads.
 */
export type IsoKind = 'real' | 'sparse' | 'bootable';

export interface BaseIso {
  path: string;
  paddingMiB: number;
  kind: IsoKind;
  /** The generator's command line, for the results. */
  generator: string;
  size: number;
  layout: IsoLayout;
}

export async function baseIso(
  repoRoot: string,
  workDir: string,
  paddingMiB: number,
  serviceMain: string,
  log: (l: string) => void,
  kind: IsoKind = 'real',
): Promise<BaseIso> {
  const script = path.join(repoRoot, 'fixtures', 'build-live-iso.sh');
  // the cache key covers the script and the shell library it sources
  const libDir = path.join(repoRoot, 'fixtures', 'lib');
  const inputs = [
    script,
    ...(existsSync(libDir)
      ? readdirSync(libDir)
          .sort()
          .map((f) => path.join(libDir, f))
      : []),
  ];
  const hash = createHash('sha256');
  for (const f of inputs) hash.update(f).update(readFileSync(f));
  const version = hash.digest('hex').slice(0, 10);
  const dir = path.join(workDir, 'iso');
  mkdirSync(dir, { recursive: true });
  const stem = `live-${kind === 'sparse' ? '' : 'real-'}${paddingMiB}-`;
  const file = path.join(dir, `${stem}${version}.iso`);
  const args = [kind === 'sparse' ? '--size-pad' : '--rootfs-mib', String(paddingMiB)];
  const generator = `fixtures/build-live-iso.sh ${args.join(' ')} (${kind === 'sparse' ? 'sparse zero padding' : 'incompressible random rootfs'})`;
  if (!existsSync(file)) {
    // ISOs of this size and kind from older versions of the scripts
    for (const old of readdirSync(dir))
      if (old.startsWith(stem) && /^[0-9a-f]+\.iso$/.test(old.slice(stem.length)))
        rmSync(path.join(dir, old), { force: true });
    log(`building a ${paddingMiB} MiB CoreOS-style ISO (${generator})`);
    const partial = `${file}.partial`;
    rmSync(partial, { force: true });
    await run(script, [...args, '--out', partial]);
    renameSync(partial, file);
  }
  const inspected = await run(process.execPath, [serviceMain, 'iso', 'inspect', file]);
  const layout = JSON.parse(inspected.stdout) as IsoLayout;
  return { path: file, paddingMiB, kind, generator, size: statSync(file).size, layout };
}

/** Reads a file once so that its pages (holes included) sit in the page cache; returns seconds. */
export async function warmPageCache(file: string): Promise<number> {
  const t0 = performance.now();
  await run('dd', [`if=${file}`, 'of=/dev/null', 'bs=8M', 'status=none']);
  return (performance.now() - t0) / 1000;
}

/** Punches holes where a file has runs of zeros, so a downloaded copy is laid out like the sparse base. */
export async function digHoles(file: string): Promise<void> {
  await run('fallocate', ['--dig-holes', file], { allowFail: true });
}
