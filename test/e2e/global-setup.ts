// Once per e2e run, before any test file: find qemu, build dist/ (the tests run the real
// `bootsmith serve` as a child process), build or reuse the bootable fixture ISO
// (fixtures/build-bootable-iso.sh, cached in .cache/e2e/bootable), pack its minimal ISO into it
// when the miniso library is there, and check the ISO parses with `bootsmith iso inspect`.
// What it found reaches the tests through `inject()` (see E2eContext).
//
// Without qemu-system-x86_64 every boot test is skipped with a message saying so (except under
// CI=..., where .ci/run installs it, so its absence fails the run); any other missing piece the
// fixture needs (xorriso, busybox-static, linux-image-amd64, ignition, curl, shim-signed,
// grub-efi-amd64-signed …: fixtures/build-bootable-iso.sh names it) fails the run.
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import type { E2eContext } from './support/context.js';
import { REPO_ROOT } from './support/paths.js';

const CACHE_DIR = path.join(REPO_ROOT, '.cache', 'e2e');
const FIXTURE_DIR = path.join(CACHE_DIR, 'bootable');
const RUN_DIR = path.join(CACHE_DIR, 'run');
const CLI = path.join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js');
const MINISO_MODULE = path.join(REPO_ROOT, 'src', 'iso', 'miniso', 'miniso.ts');

function run(
  what: string,
  command: string,
  args: string[],
  options: { allowFailure?: boolean } = {},
): { ok: boolean; out: string } {
  const started = Date.now();
  const r = spawnSync(command, args, { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  const ok = r.status === 0;
  console.log(
    `e2e setup: ${what}: ${ok ? 'ok' : `failed (${r.error?.message ?? `exit ${r.status}`})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (!ok && !options.allowFailure) throw new Error(`e2e setup: ${what} failed:\n${out}`);
  return { ok, out };
}

function which(program: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Packs minimal.iso into a copy of the full ISO (coreos/miniso.dat), once per fixture build. */
async function packedIso(fullIso: string, minimalIso: string): Promise<{ iso: string } | { reason: string }> {
  if (!existsSync(MINISO_MODULE)) return { reason: 'the miniso library (src/iso/miniso/miniso.ts) has not landed' };
  const miniso = (await import(MINISO_MODULE)) as Record<string, unknown>;
  const pack = miniso.packMinimalIso;
  if (typeof pack !== 'function') return { reason: 'src/iso/miniso/miniso.ts does not export packMinimalIso' };
  if (!existsSync(minimalIso)) return { reason: `${minimalIso} was not built` };
  const packed = path.join(FIXTURE_DIR, 'x86_64-packed.iso');
  const stamp = `${packed}.key`;
  const key = await readFile(path.join(FIXTURE_DIR, 'BUILD-KEY'), 'utf8');
  if (!existsSync(packed) || !existsSync(stamp) || (await readFile(stamp, 'utf8')) !== key) {
    await rm(stamp, { force: true });
    await copyFile(fullIso, packed);
    const started = Date.now();
    await (pack as (full: string, minimal: string) => Promise<unknown>)(packed, minimalIso);
    console.log(
      `e2e setup: packed minimal.iso into ${path.relative(REPO_ROOT, packed)} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    await writeFile(stamp, key);
  }
  return { iso: packed };
}

export default async function setup(project: TestProject): Promise<void> {
  const qemu = which('qemu-system-x86_64');
  if (!qemu && process.env.CI) {
    // .ci/run installs qemu: in CI a missing qemu is a broken install step, not a reason to skip.
    throw new Error(
      'e2e setup: qemu-system-x86_64 is not installed, and CI is set: .ci/run must install qemu-system-x86',
    );
  }
  if (!qemu) {
    console.warn(
      '\ne2e setup: qemu-system-x86_64 is not installed: SKIPPING every boot test.\n' +
        '  Install: apt-get install qemu-system-x86 qemu-block-extra ipxe-qemu xorriso isolinux syslinux-common busybox-static cpio\n',
    );
    const context: E2eContext = { skipReason: 'qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)' };
    project.provide('e2e', context);
    return;
  }

  // dist/: type errors elsewhere in the tree are `npm run typecheck`'s business; what matters
  // here is that tsc emitted the CLI.
  const build = run(
    'build dist/ (tsc -p tsconfig.build.json)',
    process.execPath,
    [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      allowFailure: true,
    },
  );
  if (!build.ok) {
    if (!existsSync(CLI)) throw new Error(`e2e setup: tsc emitted no ${CLI}:\n${build.out}`);
    console.warn(`e2e setup: tsc reported errors (dist/ was emitted anyway; the tests use it):\n${build.out}`);
  }

  const minimalWanted = existsSync(MINISO_MODULE);
  run(`bootable fixture (fixtures/build-bootable-iso.sh${minimalWanted ? ' --minimal' : ''})`, 'bash', [
    path.join(REPO_ROOT, 'fixtures', 'build-bootable-iso.sh'),
    '--out-dir',
    FIXTURE_DIR,
    ...(minimalWanted ? ['--minimal'] : []),
  ]);
  const fullIso = path.join(FIXTURE_DIR, 'x86_64.iso');
  const minimal = minimalWanted
    ? await packedIso(fullIso, path.join(FIXTURE_DIR, 'minimal.iso'))
    : { reason: 'the miniso library (src/iso/miniso/miniso.ts) has not landed' };
  const baseIso = 'iso' in minimal ? minimal.iso : fullIso;

  // The fixture must parse with bootsmith's own reader, as the service will parse it.
  const inspect = run(`bootsmith iso inspect ${path.relative(REPO_ROOT, baseIso)}`, process.execPath, [
    CLI,
    'iso',
    'inspect',
    baseIso,
  ]);
  const manifest = JSON.parse(inspect.out.slice(inspect.out.indexOf('{'))) as E2eContext['manifest'];
  if (manifest?.ignition.file !== 'images/ignition.img' || !manifest.kargs || manifest.kargs.locations.length !== 2) {
    throw new Error(`e2e setup: ${baseIso} does not parse as the expected CoreOS live layout:\n${inspect.out}`);
  }

  await rm(RUN_DIR, { recursive: true, force: true });
  await mkdir(RUN_DIR, { recursive: true });
  const context: E2eContext = {
    qemu,
    baseIso,
    manifest,
    runDir: RUN_DIR,
    cli: CLI,
    ...('iso' in minimal ? { minimalPacked: true } : { minimalSkipReason: minimal.reason }),
  };
  console.log(
    `e2e setup: base ISO ${path.relative(REPO_ROOT, baseIso)}; logs in ${path.relative(REPO_ROOT, RUN_DIR)}/`,
  );
  project.provide('e2e', context);
}
