// Parses the OS image configuration (`OS_IMAGES` JSON or `OS_IMAGES_FILE` JSON/YAML),
// compatible with assisted-image-service: openshift_version, cpu_architecture, url, version,
// plus optional sha256 (of the ISO, also when `url` names a .zip holding it), type, and
// rootfs_url (assisted-service's OS image field: where minimal ISOs and iPXE scripts make hosts
// fetch the rootfs instead of this service's /boot-artifacts/rootfs).
// URLs: http(s)://, s3://bucket/key, file:// or an absolute path (a regular file or a block
// device); a path ending in .zip is a zip archive holding exactly one .iso;
// oci://HOST[:PORT]/REPO[:TAG][@sha256:…] is an OCI image or artifact whose layer is the ISO.
// Or, instead of `url`, `release_image`: HOST[:PORT]/REPO[:TAG][@sha256:…] of an OpenShift
// release payload whose machine-os-images image holds the ISO; such an entry names its
// cpu_architecture explicitly (the payload holds one ISO per architecture).
//
// Entries naming the same source (`sourceKey`: URL or release_image, architecture and configured
// sha256) share one download and one stored file.
//
// Invalid entries beside valid ones are reported by name and skipped: one bad entry must not stop
// the others from being served. A setting that is unusable as a whole — OS_IMAGES_FILE unreadable,
// not JSON/YAML, not a list, or no entry usable at all — throws an ImageSettingsError naming the
// variable (the service refuses to start: issue 37, a typo used to leave it running with no image).
// It does not download or open anything but OS_IMAGES_FILE.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { describeError } from '../errors.js';
import { rootfsUrlKarg } from '../iso/minimal-kargs.js';
import { type CpuArchitecture, normalizeArchitecture } from '../cpu-architecture.js';
import { formatReference, parseImageReference } from './image-reference.js';
import { ImageSettingsError } from './settings-error.js';

/**
 * A rootfs_url lands in an ISO's kargs areas (~1 KiB, shared with the default kargs) and on the
 * kernel command line (2048 bytes on x86): a longer one could never boot.
 */
export const MAX_ROOTFS_URL_LENGTH = 1024;

export interface OsImageEntry {
  openshiftVersion: string;
  version: string;
  cpuArchitecture: CpuArchitecture;
  /** Where the ISO comes from; absent exactly when `releaseImage` is set. */
  url?: string;
  /** `release_image`: an OpenShift release payload reference (normalised: oci:// dropped). */
  releaseImage?: string;
  sha256?: string;
  type: 'full-iso';
  /** External rootfs for minimal ISOs and iPXE scripts; absent: this service's /boot-artifacts/rootfs. */
  rootfsUrl?: string;
}

export interface OsImagesConfig {
  entries: OsImageEntry[];
  /** One sentence per rejected entry, naming it and saying why. */
  problems: string[];
}

/** What each entry holds, for the messages that refuse a whole setting. */
const EXPECTED_LIST =
  'a list of images, each with openshift_version, cpu_architecture, version and url or release_image (docs/operator/base-images.md)';

/**
 * The entries of an OS image list (`origin`: OS_IMAGES, or the OS_IMAGES_FILE path, whose .yaml or
 * .yml suffix means YAML) and one problem per entry skipped. Throws ImageSettingsError when the
 * text is not such a list at all.
 */
export function parseOsImages(text: string, origin: string): OsImagesConfig {
  let raw: unknown;
  const format = /\.ya?ml$/.test(origin) ? 'YAML' : 'JSON';
  try {
    raw = format === 'YAML' ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw settingError(origin, `is not valid ${format} (${describeError(err)}): it must be ${EXPECTED_LIST}`);
  }
  if (!Array.isArray(raw)) throw settingError(origin, `is not a list: it must be ${EXPECTED_LIST}`);
  const entries: OsImageEntry[] = [];
  const problems: string[] = [];
  raw.forEach((item: unknown, index) => {
    const result = parseEntry(item);
    const name = describeEntry(item, index);
    if (typeof result === 'string') problems.push(`${origin}: image ${name}: ${result}`);
    else if (
      entries.some(
        (e) => e.openshiftVersion === result.openshiftVersion && e.cpuArchitecture === result.cpuArchitecture,
      )
    ) {
      problems.push(
        `${origin}: image ${name}: duplicate of an earlier entry for the same openshift_version and cpu_architecture`,
      );
    } else entries.push(result);
  });
  return { entries, problems };
}

/**
 * Reads OS_IMAGES / OS_IMAGES_FILE from the environment; undefined when neither is set. Throws
 * ImageSettingsError when the setting is unusable as a whole: the file cannot be read, the text is
 * not a list, or every entry of a non-empty list was refused (`[]` is allowed: no image on purpose).
 */
export function osImagesFromEnvironment(env: NodeJS.ProcessEnv): OsImagesConfig | undefined {
  let config: OsImagesConfig;
  let origin: string;
  if (env.OS_IMAGES_FILE) {
    origin = env.OS_IMAGES_FILE;
    let text: string;
    try {
      text = readFileSync(origin, 'utf8');
    } catch (err) {
      throw settingError(origin, `cannot be read (${describeError(err)}): set OS_IMAGES_FILE to a JSON or YAML file`);
    }
    config = parseOsImages(text, origin);
  } else if (env.OS_IMAGES) {
    origin = 'OS_IMAGES';
    config = parseOsImages(env.OS_IMAGES, origin);
  } else return undefined;
  if (config.entries.length === 0 && config.problems.length > 0) {
    const why = config.problems.map((p) => p.slice(origin.length + 2)).join('; ');
    throw settingError(origin, `holds no usable image: ${why}`);
  }
  return config;
}

/** The error refusing a whole setting: OS_IMAGES, or OS_IMAGES_FILE naming the file. */
function settingError(origin: string, message: string): ImageSettingsError {
  return origin === 'OS_IMAGES'
    ? new ImageSettingsError('OS_IMAGES', message)
    : new ImageSettingsError('OS_IMAGES_FILE', `${origin} ${message}`);
}

function describeEntry(item: unknown, index: number): string {
  if (item && typeof item === 'object') {
    const o = item as Record<string, unknown>;
    const parts = [o.openshift_version, o.cpu_architecture].filter((p) => typeof p === 'string');
    if (parts.length) return `#${index} (${parts.join(' ')})`;
  }
  return `#${index}`;
}

/**
 * What an entry's ISO is fetched from, as a key: entries with equal keys share one download and
 * one stored file. The architecture is part of it (an oci:// index or a release payload resolves
 * to one ISO per architecture), and so is a configured sha256 (entries pinning one URL
 * differently fail or succeed apart; equal bytes still end in one stored file). Holds the URL as
 * configured (a presigned query included): hash it before it goes anywhere visible.
 */
export function sourceKey(entry: OsImageEntry): string {
  const source = entry.releaseImage !== undefined ? `release_image:${entry.releaseImage}` : entry.url!;
  return `${entry.cpuArchitecture} ${entry.sha256 ?? '-'} ${source}`;
}

/** The entry's source for messages and /health: the URL redacted, or `release_image` as given. */
export function describeSource(entry: OsImageEntry): string {
  return entry.releaseImage !== undefined ? `release_image ${entry.releaseImage}` : redactUrl(entry.url!);
}

function parseEntry(item: unknown): OsImageEntry | string {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return 'not an object';
  const o = item as Record<string, unknown>;
  if (o.release_image !== undefined) return parseReleaseEntry(o);
  for (const field of ['openshift_version', 'url', 'version'] as const) {
    if (typeof o[field] !== 'string' || (o[field] as string).trim() === '') return `missing or empty "${field}"`;
  }
  const archName = o.cpu_architecture === undefined ? 'x86_64' : o.cpu_architecture;
  const cpuArchitecture = typeof archName === 'string' ? normalizeArchitecture(archName) : undefined;
  if (!cpuArchitecture) return `unknown cpu_architecture ${JSON.stringify(archName)}`;
  if (o.sha256 !== undefined && (typeof o.sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(o.sha256))) {
    return '"sha256" must be 64 hexadecimal digits';
  }
  if (o.type !== undefined && o.type !== 'full-iso')
    return `unsupported type ${JSON.stringify(o.type)} (only "full-iso")`;
  let url = o.url as string;
  if (/^oci:\/\//i.test(url)) {
    const problem = referenceProblem(url, 'url');
    if (typeof problem === 'string') return problem;
    url = `oci://${problem.normalized}`;
  } else if (!/^(file|https?|s3):\/\//.test(url) && !url.startsWith('/'))
    return `unsupported url ${JSON.stringify(redactUrl(url))}`;
  if (url.startsWith('s3://') && !/^s3:\/\/[^/?#]+\/[^?#]+$/.test(url))
    return `url ${JSON.stringify(redactUrl(url))} must be s3://bucket/key`;
  const rootfsProblem = o.rootfs_url === undefined ? undefined : checkRootfsUrl(o.rootfs_url);
  if (rootfsProblem) return rootfsProblem;
  return {
    openshiftVersion: o.openshift_version as string,
    version: o.version as string,
    cpuArchitecture,
    url,
    ...(typeof o.sha256 === 'string' ? { sha256: o.sha256.toLowerCase() } : {}),
    type: 'full-iso',
    ...(typeof o.rootfs_url === 'string' ? { rootfsUrl: o.rootfs_url } : {}),
  };
}

/** An entry naming an OpenShift release payload instead of a URL. */
function parseReleaseEntry(o: Record<string, unknown>): OsImageEntry | string {
  if (o.url !== undefined) return '"release_image" and "url" exclude each other (the release payload names the ISO)';
  for (const field of ['openshift_version', 'version', 'release_image', 'cpu_architecture'] as const) {
    if (typeof o[field] !== 'string' || (o[field] as string).trim() === '')
      return field === 'cpu_architecture'
        ? 'an entry with "release_image" must name its "cpu_architecture" (the payload holds one ISO per architecture)'
        : `missing or empty "${field}"`;
  }
  const cpuArchitecture = normalizeArchitecture(o.cpu_architecture as string);
  if (!cpuArchitecture) return `unknown cpu_architecture ${JSON.stringify(o.cpu_architecture)}`;
  if (o.sha256 !== undefined && (typeof o.sha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(o.sha256)))
    return '"sha256" must be 64 hexadecimal digits';
  if (o.type !== undefined && o.type !== 'full-iso')
    return `unsupported type ${JSON.stringify(o.type)} (only "full-iso")`;
  const reference = referenceProblem(o.release_image as string, 'release_image');
  if (typeof reference === 'string') return reference;
  const rootfsProblem = o.rootfs_url === undefined ? undefined : checkRootfsUrl(o.rootfs_url);
  if (rootfsProblem) return rootfsProblem;
  return {
    openshiftVersion: o.openshift_version as string,
    version: o.version as string,
    cpuArchitecture,
    releaseImage: reference.normalized,
    ...(typeof o.sha256 === 'string' ? { sha256: o.sha256.toLowerCase() } : {}),
    type: 'full-iso',
    ...(typeof o.rootfs_url === 'string' ? { rootfsUrl: o.rootfs_url } : {}),
  };
}

/** The reference normalised (`HOST/REPO[:TAG][@DIGEST]`), or why it is not one. */
function referenceProblem(text: string, field: string): { normalized: string } | string {
  try {
    return { normalized: formatReference(parseImageReference(text, `"${field}"`)) };
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Why `value` cannot be a rootfs_url, or undefined when it can. The URL is pasted verbatim into
 * iPXE's `kernel` line and (double-quoted when GRUB needs it, see src/iso/minimal-kargs.ts) into
 * every kargs area of minimal ISOs, so besides being an absolute http(s) URL it must hold nothing
 * those read specially (the rules of src/core/infraenv/kernel-arguments.ts): no whitespace,
 * control or non-ASCII characters, no `$` (iPXE and GRUB expand it), `\`, `"` or `'` (quoting),
 * no `#` (a fragment is never sent, and a comment to GRUB). `&`, `;`, `|`, `<`, `>`, `{`, `}`
 * pass: GRUB gets them inside double quotes, iPXE and the kernel take them literally inside a
 * word. Credentials are refused: they would be on every host's /proc/cmdline and in the scripts.
 */
function checkRootfsUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return '"rootfs_url" must be a non-empty string';
  if (value.length > MAX_ROOTFS_URL_LENGTH)
    return `"rootfs_url" is longer than ${MAX_ROOTFS_URL_LENGTH} characters (it must fit the ISO's kargs area)`;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return `"rootfs_url" ${JSON.stringify(redactUrl(value))} is not an absolute URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `"rootfs_url" ${JSON.stringify(redactUrl(value))} must be http:// or https://`;
  if (parsed.username || parsed.password)
    return '"rootfs_url" must not carry credentials (they would be on every host\'s kernel command line)';
  const refused = [...value].find((ch) => ch === "'" || ch === '#');
  if (refused) return `"rootfs_url" must not contain ${JSON.stringify(refused)} (read specially by GRUB or iPXE)`;
  try {
    rootfsUrlKarg(value);
  } catch (err) {
    return `"rootfs_url": ${describeError(err).replace(/^the rootfs URL for the minimal ISO /, '')}`;
  }
  return undefined;
}

/** Drops credentials and query strings (presigned URLs carry secrets) from a URL for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    const query = url.indexOf('?'); // not /\?.*$/: it backtracked quadratically over many `?`
    return query < 0 ? url : url.slice(0, query);
  }
}
