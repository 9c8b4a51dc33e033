// The PXE settings as a table: defaults, what each variable accepts and how a bad value is named.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PXE_SETTINGS, parsePxeSettings, PXE_BOUNDS, PxeSettingsError } from './pxe-settings.js';

const ON = { PXE_INTERFACE: 'eth1' };

describe('parsePxeSettings', () => {
  it('is off, with the defaults, without PXE_INTERFACE (nothing else is read)', () => {
    expect(parsePxeSettings({ PXE_EFI_LOADER: 'nonsense' })).toEqual(DEFAULT_PXE_SETTINGS);
    expect(DEFAULT_PXE_SETTINGS).toMatchObject({
      pxeInterface: undefined,
      pxeEfiLoader: 'ipxe.efi',
      pxeSecureBoot: true,
      pxeTftpMaxTransfers: 256,
      pxeTftpMaxTransfersPerAddress: 4,
      pxeTftpTransferTimeoutMs: 300_000,
    });
  });

  const ACCEPTED: [string, Record<string, string>, Record<string, unknown>][] = [
    ['an interface name', { PXE_INTERFACE: 'enp3s0f1.100' }, { pxeInterface: 'enp3s0f1.100' }],
    ['snponly.efi', { ...ON, PXE_EFI_LOADER: 'snponly.efi' }, { pxeEfiLoader: 'snponly.efi' }],
    ['a loaders directory', { ...ON, PXE_LOADERS_DIR: '/srv/tftp' }, { pxeLoadersDir: '/srv/tftp' }],
    ['an arm64 loader in it', { ...ON, PXE_LOADERS_DIR: '/srv/tftp', PXE_ARM64_LOADER: 'snp-arm64.efi' }, { pxeArm64Loader: 'snp-arm64.efi' }],
    ['an arm64 loader by absolute path', { ...ON, PXE_ARM64_LOADER: '/opt/ipxe/snp-arm64.efi' }, { pxeArm64Loader: '/opt/ipxe/snp-arm64.efi' }],
    ['Secure Boot off', { ...ON, PXE_SECURE_BOOT: 'false' }, { pxeSecureBoot: false }],
    ['Secure Boot off (0)', { ...ON, PXE_SECURE_BOOT: '0' }, { pxeSecureBoot: false }],
    ['the bounds of transfers', { ...ON, PXE_TFTP_MAX_TRANSFERS: '4096', PXE_TFTP_MAX_TRANSFERS_PER_ADDRESS: '1' }, { pxeTftpMaxTransfers: 4096, pxeTftpMaxTransfersPerAddress: 1 }],
    ['a transfer deadline of 90s', { ...ON, PXE_TFTP_TRANSFER_TIMEOUT: '90s' }, { pxeTftpTransferTimeoutMs: 90_000 }],
  ]; // prettier-ignore

  it.each(ACCEPTED)('accepts %s', (_name, env, expected) => {
    expect(parsePxeSettings(env)).toMatchObject(expected);
  });

  const REFUSED: [string, Record<string, string>, RegExp][] = [
    ['an interface name with a slash', { PXE_INTERFACE: 'eth0/1' }, /PXE_INTERFACE must be an interface name such as eth1, not "eth0\/1"/],
    ['an interface name of 16 characters', { PXE_INTERFACE: 'a'.repeat(16) }, /PXE_INTERFACE must be an interface name/],
    ['a relative loaders directory', { ...ON, PXE_LOADERS_DIR: 'tftp' }, /PXE_LOADERS_DIR must be an absolute path, not "tftp"/],
    ['another EFI loader', { ...ON, PXE_EFI_LOADER: 'grubx64.efi' }, /PXE_EFI_LOADER must be one of ipxe.efi, snponly.efi, not "grubx64.efi"/],
    ['an arm64 loader name with a path', { ...ON, PXE_LOADERS_DIR: '/srv', PXE_ARM64_LOADER: 'a/b.efi' }, /PXE_ARM64_LOADER must be a file name in PXE_LOADERS_DIR or an absolute path/],
    ['an arm64 loader name without a directory', { ...ON, PXE_ARM64_LOADER: 'snp-arm64.efi' }, /names a file in PXE_LOADERS_DIR, which is not set/],
    ['Secure Boot maybe', { ...ON, PXE_SECURE_BOOT: 'maybe' }, /PXE_SECURE_BOOT must be true or false, not "maybe"/],
    ['0 transfers', { ...ON, PXE_TFTP_MAX_TRANSFERS: '0' }, /PXE_TFTP_MAX_TRANSFERS must be a whole number from 1 to 4096, not "0"/],
    ['too many transfers per address', { ...ON, PXE_TFTP_MAX_TRANSFERS_PER_ADDRESS: '65' }, /from 1 to 64/],
    ['a fraction', { ...ON, PXE_TFTP_MAX_TRANSFERS: '1.5' }, /whole number/],
    ['a deadline of 5s', { ...ON, PXE_TFTP_TRANSFER_TIMEOUT: '5s' }, /PXE_TFTP_TRANSFER_TIMEOUT must be a duration from 10s to 60m/],
    ['a deadline without a unit', { ...ON, PXE_TFTP_TRANSFER_TIMEOUT: '300' }, /must be a duration/],
  ]; // prettier-ignore

  it.each(REFUSED)('refuses %s, naming the variable', (_name, env, why) => {
    expect(() => parsePxeSettings(env)).toThrow(PxeSettingsError);
    expect(() => parsePxeSettings(env)).toThrow(why);
  });

  it('keeps every default within its bounds', () => {
    for (const [key, [min, max]] of Object.entries(PXE_BOUNDS)) {
      const value = DEFAULT_PXE_SETTINGS[key as keyof typeof PXE_BOUNDS];
      expect(value).toBeGreaterThanOrEqual(min);
      expect(value).toBeLessThanOrEqual(max);
    }
  });
});
