// Reading the OCI source's files: what a good set gives, and the error for each bad file (path
// named, content never quoted).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type OciSettingFiles, readOciSettings } from './oci-settings.js';
import { findCredentials } from './registry-auth-file.js';

const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-oci-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const auth = (user: string) =>
  JSON.stringify({ auths: { 'quay.io': { auth: Buffer.from(`${user}:pw-${user}`).toString('base64') } } });
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('readOciSettings', () => {
  it('reads every file, the auth file searched before the pull secret', async () => {
    const settings = await readOciSettings({
      authFile: file('auth.json', auth('from-file')),
      pullSecret: auth('from-secret'),
      caFile: file('ca.pem', PEM),
      registriesConfFile: file(
        'registries.conf',
        '[[registry]]\nlocation = "quay.io"\n[[registry.mirror]]\nlocation = "m.example"\n',
      ),
    });
    expect(findCredentials(settings.authFiles, 'quay.io', 'x/y')?.username).toBe('from-file');
    expect(settings.authFiles).toHaveLength(2);
    expect(settings.ca).toBe(PEM);
    expect(settings.registriesConf?.registries[0]?.mirrors[0]?.location).toBe('m.example');
    expect(settings.maxManifestBytes).toBe(4 * 1024 * 1024);
  });

  it('needs nothing', async () => {
    expect(await readOciSettings({})).toMatchObject({ authFiles: [], ca: undefined, registriesConf: undefined });
  });

  it.each([
    [{ authFile: path.join(dir, 'missing.json') }, /REGISTRY_AUTH_FILE .*missing.json: cannot be read: .*ENOENT/],
    [{ caFile: dir }, /REGISTRY_CA_FILE .*: not a regular file/],
    [{ caFile: 'CA' }, /REGISTRY_CA_FILE .*: holds no PEM certificate/],
    [{ registriesConfFile: 'BADCONF' }, /registries.conf line 2: unknown key "mirorr"/],
    [
      { pullSecret: '{"auths": {"quay.io": {"auth": "c2VjcmV0!"}}}' },
      /the pull secret: the entry for "quay.io" has an "auth" that is not base64/,
    ],
  ] as Array<[OciSettingFiles, RegExp]>)('refuses %j', async (files, reason) => {
    const resolved = {
      ...files,
      ...(files.caFile === 'CA' ? { caFile: file('not-pem.txt', 'hello') } : {}),
      ...(files.registriesConfFile === 'BADCONF'
        ? { registriesConfFile: file('registries.conf', '[[registry]]\nmirorr = 1\n') }
        : {}),
    };
    const err = await readOciSettings(resolved).then(
      () => new Error('resolved'),
      (e: unknown) => e as Error,
    );
    expect(err.message).toMatch(reason);
    expect(err.message).not.toContain('c2VjcmV0');
  });
});
