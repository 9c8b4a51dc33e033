// Which loaders the settings need, where they are looked for (Debian's package paths, or
// PXE_LOADERS_DIR by TFTP name) and how a missing one is named: the file and the package.
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PXE_SETTINGS, type PxeSettings } from '../pxe-settings.js';
import { PxeStartError } from '../pxe-start-error.js';
import { loadLoaders, MAX_LOADER_BYTES, wantedLoaders } from './loader-set.js';
import { LOADER_ROWS } from './loader-table.js';

const settings = (over: Partial<PxeSettings>): PxeSettings => ({
  ...DEFAULT_PXE_SETTINGS,
  pxeInterface: 'eth1',
  ...over,
});

describe('wantedLoaders', () => {
  const ROWS: [string, Partial<PxeSettings>, string[]][] = [
    ['the defaults: Debian paths, iPXE and the Secure Boot chain', {}, ['/usr/lib/ipxe/undionly.kpxe', '/usr/lib/ipxe/ipxe.efi', '/usr/lib/shim/shimx64.efi.signed', '/usr/lib/grub/x86_64-efi-signed/grubnetx64.efi.signed']],
    ['snponly, Secure Boot off', { pxeEfiLoader: 'snponly.efi', pxeSecureBoot: false }, ['/usr/lib/ipxe/undionly.kpxe', '/usr/lib/ipxe/snponly.efi']],
    ['a loaders directory: by TFTP name', { pxeLoadersDir: '/srv/tftp', pxeSecureBoot: false }, ['/srv/tftp/undionly.kpxe', '/srv/tftp/ipxe.efi']],
    ['an arm64 loader in it', { pxeLoadersDir: '/srv/tftp', pxeSecureBoot: false, pxeArm64Loader: 'snp-arm64.efi' }, ['/srv/tftp/undionly.kpxe', '/srv/tftp/ipxe.efi', '/srv/tftp/snp-arm64.efi']],
    ['an arm64 loader by path', { pxeSecureBoot: false, pxeArm64Loader: '/opt/grubnetaa64.efi.signed' }, ['/usr/lib/ipxe/undionly.kpxe', '/usr/lib/ipxe/ipxe.efi', '/opt/grubnetaa64.efi.signed']],
  ]; // prettier-ignore

  it.each(ROWS)('%s', (_name, over, paths) => {
    expect(wantedLoaders(settings(over)).map((w) => w.path)).toEqual(paths);
  });

  it('names shim grubx64.efi beside itself: the name shim asks for', () => {
    expect(wantedLoaders(settings({})).map((w) => w.tftpName)).toEqual([
      'undionly.kpxe',
      'ipxe.efi',
      'shimx64.efi',
      'grubx64.efi',
    ]);
    expect(new Set(LOADER_ROWS.map((r) => r.tftpName)).size).toBe(LOADER_ROWS.length);
  });
});

describe('loadLoaders', () => {
  const made: string[] = [];
  const dir = () => {
    made.push(mkdtempSync(path.join(tmpdir(), 'bs-pxe-loaders-')));
    return made.at(-1)!;
  };
  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });

  it('reads each needed file once, under its TFTP name, and names the routes', async () => {
    const d = dir();
    for (const n of ['undionly.kpxe', 'snponly.efi', 'shimx64.efi', 'grubx64.efi']) writeFileSync(path.join(d, n), n);
    const set = await loadLoaders(settings({ pxeLoadersDir: d, pxeEfiLoader: 'snponly.efi' }));
    expect([...set.files.keys()]).toEqual(['undionly.kpxe', 'snponly.efi', 'shimx64.efi', 'grubx64.efi']);
    expect(set.files.get('grubx64.efi')!.bytes.toString()).toBe('grubx64.efi');
    expect(set.names).toEqual({
      bios: 'undionly.kpxe',
      efiX64: 'snponly.efi',
      arm64: undefined,
      secureBootShim: 'shimx64.efi',
    });
  });

  it('names every missing, empty, oversized or odd file in one error, with the package that ships it', async () => {
    const d = dir();
    writeFileSync(path.join(d, 'undionly.kpxe'), '');
    mkdirSync(path.join(d, 'ipxe.efi'));
    writeFileSync(path.join(d, 'grubx64.efi'), '');
    truncateSync(path.join(d, 'grubx64.efi'), MAX_LOADER_BYTES + 1);
    const err = await loadLoaders(settings({ pxeLoadersDir: d })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PxeStartError);
    expect((err as PxeStartError).setting).toBe('PXE_LOADERS_DIR');
    const message = (err as Error).message;
    expect(message).toMatch(/^PXE loaders missing: /);
    expect(message).toContain(
      `${d}/undionly.kpxe is empty (undionly.kpxe in PXE_LOADERS_DIR: Debian's ipxe (/usr/lib/ipxe/undionly.kpxe) or RHEL's ipxe-bootimgs-x86 (/usr/share/ipxe/undionly.kpxe))`,
    );
    expect(message).toContain(`${d}/ipxe.efi is not a regular file`);
    expect(message).toContain(
      `${d}/shimx64.efi is missing (shimx64.efi in PXE_LOADERS_DIR: Debian's shim-signed (/usr/lib/shim/shimx64.efi.signed) or RHEL's shim-x64 (/boot/efi/EFI/redhat/shimx64.efi); or PXE_SECURE_BOOT=false`,
    );
    expect(message).toContain(
      `${d}/grubx64.efi is ${MAX_LOADER_BYTES + 1} bytes, more than a loader's ${MAX_LOADER_BYTES}`,
    );
  });

  it('names the Debian package when the default paths are used', async () => {
    const err = await loadLoaders(
      settings({ pxeSecureBoot: false, pxeArm64Loader: '/nonexistent/snp-arm64.efi' }),
    ).catch((e: unknown) => e);
    // Whatever this machine has installed, the arm64 path does not exist and is named with its setting.
    expect((err as Error).message).toContain(
      '/nonexistent/snp-arm64.efi is missing (PXE_ARM64_LOADER=/nonexistent/snp-arm64.efi',
    );
    expect((err as PxeStartError).setting).toBeUndefined();
  });
});
