// The customisation options `iso customize` and `pxe customize` share (coreos-installer's
// CommonCustomizeConfig), and reading + checking every file and value they name before anything
// is written: Ignition configs are JSON objects with an `ignition.version`, installer configs YAML
// with known keys only, devices absolute paths, consoles in the `console=` syntax coreos-installer
// accepts, hook scripts regular files of at most MAX_SCRIPT_BYTES, CA bundles PEM certificates.
// Each failure is one CliError naming the file (or the option) and the reason.
// Does NOT: decide what the live system gets (customize-plan.ts) or touch the image.
import path from 'node:path';
import type { Readable } from 'node:stream';

import { BadRequestError } from '../../errors.js';
import { keyfileName, type NetworkKeyfile } from '../../initrd/embed-archive.js';
import { UsageError } from '../args.js';
import { listOption, type OptionValues, valueOption } from '../options.js';
import { splitKargs } from '../input/kargs-edit.js';
import { parseIgnitionObject, readInput } from '../input/read-input.js';
import { readKeyfiles } from '../input/read-keyfiles.js';
import { nmstateKeyfiles } from '../network/nmstate-adapter.js';
import { CliError } from '../verb.js';
import { checkInstallerConfig } from './installer-config.js';

/**
 * A pre/post-install hook is a shell script; the embed area it must fit in holds 256 KiB
 * compressed on x86_64, so anything above this is a wrong file, not a script.
 */
export const MAX_SCRIPT_BYTES = 1024 * 1024;
/** An installer config is a few lines of YAML; larger files are mistakes (and parse slowly). */
export const MAX_INSTALLER_CONFIG_BYTES = 64 * 1024;
/** A CA bundle of a few hundred certificates. */
export const MAX_CA_BUNDLE_BYTES = 1024 * 1024;

/** coreos-installer's console syntax: graphical consoles by name, serial ones with speed/parity/bits. */
const CONSOLE_PATTERN = /^(?:tty0|hvc0|ttysclp0|(?:ttyS|ttyAMA)[0-9]+(?:,[0-9]+(?:[noe][5-8]?)?)?)$/;
/** Characters a systemd unit name may hold (hook units are named after the script). */
const UNIT_NAME_CHARS = /^[A-Za-z0-9:_.\\-]+$/;

export const CUSTOMIZE_OPTIONS = {
  destIgnition: listOption({
    long: 'dest-ignition',
    value: 'PATH',
    help: 'Ignition config fragment for the installed system',
  }),
  destDevice: valueOption({ long: 'dest-device', value: 'PATH', help: 'install to this device without confirmation' }),
  destConsole: listOption({
    long: 'dest-console',
    value: 'SPEC',
    help: 'kernel and bootloader console for the installed system',
  }),
  destKargAppend: listOption({
    long: 'dest-karg-append',
    value: 'ARG',
    help: 'kernel argument to add to the installed system',
  }),
  destKargDelete: listOption({
    long: 'dest-karg-delete',
    value: 'ARG',
    help: 'kernel argument to delete from the installed system',
  }),
  networkKeyfile: listOption({
    long: 'network-keyfile',
    value: 'PATH',
    help: 'NetworkManager keyfile for live and installed system',
  }),
  networkNmstate: valueOption({
    long: 'network-nmstate',
    value: 'PATH',
    help: 'nmstate YAML, converted to keyfiles (needs --mac-map)',
  }),
  macMap: listOption({ long: 'mac-map', value: 'NAME=MAC', help: 'bind interface NAME of the nmstate YAML to a MAC' }),
  ignitionCa: listOption({
    long: 'ignition-ca',
    value: 'PATH',
    help: 'PEM CA bundle Ignition trusts (live and installed)',
  }),
  preInstall: listOption({ long: 'pre-install', value: 'PATH', help: 'script to run before installation' }),
  postInstall: listOption({ long: 'post-install', value: 'PATH', help: 'script to run after installation' }),
  installerConfig: listOption({ long: 'installer-config', value: 'PATH', help: 'coreos-installer config file (YAML)' }),
  liveIgnition: listOption({
    long: 'live-ignition',
    value: 'PATH',
    help: 'Ignition config fragment merged into the live config',
  }),
};

/** The values of CUSTOMIZE_OPTIONS (a verb that declares them passes its `args.options`). */
export type CustomizeOptions = OptionValues<typeof CUSTOMIZE_OPTIONS>;

export interface NamedFile {
  /** The file's base name (used to name what the live system gets). */
  name: string;
  data: Buffer;
}

export interface CustomizeInputs {
  destIgnition: Buffer[];
  destDevice?: string;
  destConsole: string[];
  destKargAppend: string[];
  destKargDelete: string[];
  networkKeyfiles: NetworkKeyfile[];
  ignitionCa: Buffer[];
  preInstall: NamedFile[];
  postInstall: NamedFile[];
  installerConfig: NamedFile[];
  liveIgnition: Buffer[];
}

async function readLimited(file: string, stdin: Readable, limit: number, what: string): Promise<Buffer> {
  const { name, bytes } = await readInput(file, stdin);
  if (bytes.length > limit)
    throw new CliError(name, `${bytes.length} bytes is more than the ${limit}-byte limit for ${what}`);
  return bytes;
}

/** An Ignition config: a JSON object whose `ignition.version` is a string. */
export async function readVersionedIgnition(file: string, stdin: Readable): Promise<Buffer> {
  const { name, bytes } = await readInput(file, stdin);
  const version = (parseIgnitionObject(name, bytes) as { ignition?: { version?: unknown } }).ignition?.version;
  if (typeof version !== 'string' || !/^[0-9]+\.[0-9]+\.[0-9]+(?:-experimental)?$/.test(version))
    throw new CliError(name, 'not a valid Ignition config: ignition.version is missing or not a version');
  return bytes;
}

function scriptName(file: string): string {
  const name = path.basename(file);
  if (!UNIT_NAME_CHARS.test(name))
    throw new CliError(file, 'the script name may only hold letters, digits and ":_.-\\" (it names a systemd unit)');
  return name;
}

async function readScripts(files: readonly string[], stdin: Readable): Promise<NamedFile[]> {
  const out: NamedFile[] = [];
  for (const file of files) {
    const name = scriptName(file);
    const data = await readLimited(file, stdin, MAX_SCRIPT_BYTES, 'an install script');
    if (data.length === 0) throw new CliError(file, 'the install script is empty');
    out.push({ name, data });
  }
  return out;
}

function checkPem(file: string, data: Buffer): void {
  const text = data.toString('latin1');
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(text))
    throw new CliError(file, 'not a PEM CA bundle: no BEGIN/END CERTIFICATE block');
}

function checkKarg(option: string, arg: string): string {
  if (splitKargs(arg).length !== 1 || splitKargs(arg)[0] !== arg)
    throw new CliError(`--${option}`, `${JSON.stringify(arg)} is not one kernel argument`);
  return arg;
}

async function readNetwork(options: CustomizeOptions, stdin: Readable, verb: string): Promise<NetworkKeyfile[]> {
  const keyfiles = await readKeyfiles(options.networkKeyfile, stdin);
  const nmstate = options.networkNmstate;
  if (nmstate !== undefined) keyfiles.push(...(await nmstateKeyfiles(nmstate, options.macMap, stdin, verb)));
  else if (options.macMap.length > 0)
    throw new UsageError(`${verb}: --mac-map needs --network-nmstate`, `usage: ${verb} --help`);
  const seen = new Set<string>();
  for (const k of keyfiles) {
    let name: string;
    try {
      name = keyfileName(k.name);
    } catch (err) {
      if (err instanceof BadRequestError) throw new CliError(k.name, err.message);
      throw err;
    }
    if (seen.has(name)) throw new CliError(k.name, `config already specifies keyfile ${name}`);
    seen.add(name);
  }
  return keyfiles;
}

/** Reads and checks everything CUSTOMIZE_OPTIONS name; `verb` names usage errors. */
export async function readCustomizeInputs(
  options: CustomizeOptions,
  stdin: Readable,
  verb: string,
): Promise<CustomizeInputs> {
  const destDevice = options.destDevice;
  if (destDevice !== undefined && (!path.isAbsolute(destDevice) || /[\s\x00-\x1f]/.test(destDevice)))
    throw new CliError('--dest-device', `${JSON.stringify(destDevice)} is not an absolute device path`);
  const destConsole = options.destConsole;
  for (const spec of destConsole) {
    if (spec.startsWith('console=')) throw new CliError('--dest-console', 'spec should not start with "console="');
    if (!CONSOLE_PATTERN.test(spec))
      throw new CliError('--dest-console', `${JSON.stringify(spec)}: invalid or unsupported console argument`);
  }
  const inputs: CustomizeInputs = {
    destIgnition: [],
    destConsole,
    destKargAppend: options.destKargAppend.map((a) => checkKarg('dest-karg-append', a)),
    destKargDelete: options.destKargDelete.map((a) => checkKarg('dest-karg-delete', a)),
    networkKeyfiles: await readNetwork(options, stdin, verb),
    ignitionCa: [],
    preInstall: await readScripts(options.preInstall, stdin),
    postInstall: await readScripts(options.postInstall, stdin),
    installerConfig: [],
    liveIgnition: [],
  };
  if (destDevice !== undefined) inputs.destDevice = destDevice;
  for (const file of options.destIgnition) inputs.destIgnition.push(await readVersionedIgnition(file, stdin));
  for (const file of options.liveIgnition) inputs.liveIgnition.push(await readVersionedIgnition(file, stdin));
  for (const file of options.ignitionCa) {
    const data = await readLimited(file, stdin, MAX_CA_BUNDLE_BYTES, 'a CA bundle');
    checkPem(file, data);
    inputs.ignitionCa.push(data);
  }
  for (const file of options.installerConfig) {
    const data = await readLimited(file, stdin, MAX_INSTALLER_CONFIG_BYTES, 'an installer config');
    checkInstallerConfig(file, data);
    inputs.installerConfig.push({ name: path.basename(file), data });
  }
  return inputs;
}
