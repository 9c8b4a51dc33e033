// The OCI source's settings from the files an operator names (src/images/store-settings.ts maps
// REGISTRY_AUTH_FILE, PULL_SECRET_FILE, REGISTRY_CA_FILE and REGISTRIES_CONF_FILE onto this):
// each file is read once, bounded, parsed and validated here, so a bad file fails at startup with
// its path and line, never in the middle of a pull. Credentials stay in memory; errors name paths
// only. Synchronous (configuration is read before anything starts); `readOciSettings` is the
// same as a promise.
//
// Does: read and parse the files into OciSettings (defaults for clocks and budgets from
// oci-pull.ts). Does not: decide which settings exist or their environment names
// (src/images/store-settings.ts). Next: oci-pull.ts.
import { readFileSync, statSync } from 'node:fs';
import { BadRequestError, describeError } from '../../../errors.js';
import { DEFAULT_OCI_SETTINGS, type OciSettings } from './oci-pull.js';
import { MAX_TOML_BYTES } from './toml-subset.js';
import { parseRegistriesConf } from './registries-conf.js';
import { type AuthFile, MAX_AUTH_FILE_BYTES, parseAuthFile } from './registry-auth-file.js';

export interface OciSettingFiles {
  /** A docker config.json / containers auth.json (REGISTRY_AUTH_FILE); searched first. */
  authFile?: string | undefined;
  /** The pull secret's JSON text (same form), searched after the auth file. */
  pullSecret?: string | undefined;
  /** A file holding a pull secret (PULL_SECRET_FILE), searched after the auth file and `pullSecret`. */
  pullSecretFile?: string | undefined;
  /** PEM bundle trusted in addition to the default roots (REGISTRY_CA_FILE). */
  caFile?: string | undefined;
  /** containers-registries.conf v2 (REGISTRIES_CONF_FILE). */
  registriesConfFile?: string | undefined;
}

/** A CA bundle of a few certificates is some KiB; 1 MiB holds hundreds. */
const MAX_CA_BYTES = 1024 * 1024;

export function readOciSettings(files: OciSettingFiles): Promise<OciSettings> {
  try {
    return Promise.resolve(readOciSettingsSync(files));
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

export function readOciSettingsSync(files: OciSettingFiles): OciSettings {
  const authFiles: AuthFile[] = [];
  if (files.authFile)
    authFiles.push(
      parseAuthFile(
        readBounded(files.authFile, MAX_AUTH_FILE_BYTES, 'REGISTRY_AUTH_FILE'),
        `REGISTRY_AUTH_FILE ${files.authFile}`,
      ),
    );
  if (files.pullSecret) authFiles.push(parseAuthFile(files.pullSecret, 'the pull secret'));
  if (files.pullSecretFile)
    authFiles.push(
      parseAuthFile(
        readBounded(files.pullSecretFile, MAX_AUTH_FILE_BYTES, 'PULL_SECRET_FILE'),
        `PULL_SECRET_FILE ${files.pullSecretFile}`,
      ),
    );
  let ca: string | undefined;
  if (files.caFile) {
    ca = readBounded(files.caFile, MAX_CA_BYTES, 'REGISTRY_CA_FILE');
    if (!ca.includes('-----BEGIN CERTIFICATE-----'))
      throw new BadRequestError(`REGISTRY_CA_FILE ${files.caFile}: holds no PEM certificate`, { file: files.caFile });
  }
  const registriesConf = files.registriesConfFile
    ? parseRegistriesConf(
        readBounded(files.registriesConfFile, MAX_TOML_BYTES, 'REGISTRIES_CONF_FILE'),
        `REGISTRIES_CONF_FILE ${files.registriesConfFile}`,
      )
    : undefined;
  return { ...DEFAULT_OCI_SETTINGS, authFiles, ca, registriesConf };
}

function readBounded(file: string, max: number, what: string): string {
  try {
    const info = statSync(file);
    if (!info.isFile()) throw new BadRequestError(`${what} ${file}: not a regular file`, { file });
    if (info.size > max)
      throw new BadRequestError(`${what} ${file}: ${info.size} bytes, more than the ${max} such a file can need`, {
        file,
      });
    return readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof BadRequestError) throw err;
    throw new BadRequestError(`${what} ${file}: cannot be read: ${describeError(err)}`, { file });
  }
}
