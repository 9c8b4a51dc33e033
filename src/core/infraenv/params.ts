// Validates InfraEnv create/update parameters (infra-env-create-params / infra-env-update-params)
// after the body was bound against upstream's model (types, enums, required: validation/body-schema.ts).
//
// Checks types and formats the way assisted-service does: pull secret is JSON with
// `auths` whose entries carry base64 `user:password`; SSH keys are OpenSSH public keys
// whose blob names their type; kernel_arguments are append-only; proxy URLs parse;
// image_type and cpu_architecture are known. Returns normalized values; catalog
// lookups, Ignition and URL checks happen in service.ts. Errors never echo secrets.
import { isUuid } from '../../uuid.js';
import { BadRequestError } from '../../errors.js';
import type { ImageType, KernelArgument, Proxy, StaticNetworkConfigEntry } from '../model.js';
import { validateStaticNetworkConfig } from '../static-network.js';
import { MAX_KERNEL_ARGUMENTS, validateUserKernelArgument } from './kernel-arguments.js';
import { assertCleanText } from '../../platform/api/clean-text.js';

export interface InfraEnvParams {
  name?: string;
  pullSecret?: string;
  sshAuthorizedKey?: string;
  proxy?: Proxy | null;
  additionalNtpSources?: string;
  staticNetworkConfig?: StaticNetworkConfigEntry[] | null;
  imageType?: ImageType;
  ignitionConfigOverride?: string;
  openshiftVersion?: string;
  cpuArchitecture?: string;
  kernelArguments?: KernelArgument[] | null;
  additionalTrustBundle?: string;
  clusterId?: string | null;
  networkDiscoveryDelaySeconds?: number | null;
}

const SSH_TYPES = new Set([
  'ssh-rsa',
  'ssh-dss',
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);

type Obj = Record<string, unknown>;

/** Longest InfraEnv name kept: it lands in events and file names; no real name comes close. */
const MAX_NAME_LENGTH = 256;

/** A string field; one line unless `multiline` (PEM bundles, key lists, JSON documents). */
function str(
  body: Obj,
  key: string,
  opts: { nullable?: boolean; max?: number; multiline?: boolean } = {},
): string | undefined {
  const v = body[key];
  if (v === undefined || (v === null && opts.nullable)) return undefined;
  if (typeof v !== 'string') throw new BadRequestError(`${key} must be a string`);
  if (opts.max !== undefined && v.length > opts.max)
    throw new BadRequestError(`${key} must be at most ${opts.max} characters`);
  return assertCleanText(key, v, opts.multiline ? 'multiline' : 'line');
}

export function parseInfraEnvParams(body: unknown, mode: 'create' | 'update'): InfraEnvParams {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadRequestError('request body must be a JSON object');
  // Fields the model does not declare were dropped when the body was bound (validation/body-schema.ts);
  // create-only fields (name, cluster_id, cpu_architecture) are not in infra-env-update-params.
  const b = body as Obj;
  const out: InfraEnvParams = {};
  const name = str(b, 'name', { max: MAX_NAME_LENGTH });
  if (mode === 'create') {
    if (name === undefined || name.trim() === '') throw new BadRequestError('name is required');
    if (b.pull_secret === undefined) throw new BadRequestError('pull_secret is required');
  }
  if (name !== undefined) out.name = name;
  const ps = str(b, 'pull_secret', { multiline: true });
  if (ps !== undefined) out.pullSecret = validatePullSecret(ps);
  const ssh = str(b, 'ssh_authorized_key', { nullable: true, multiline: true });
  if (ssh !== undefined) out.sshAuthorizedKey = validateSshKeys(ssh);
  if (b.proxy !== undefined) out.proxy = validateProxy(b.proxy);
  const ntp = str(b, 'additional_ntp_sources', { nullable: true });
  if (ntp !== undefined) out.additionalNtpSources = validateNtpSources(ntp);
  if (b.static_network_config !== undefined && b.static_network_config !== null) {
    const cfg = validateStaticNetworkConfig(b.static_network_config);
    out.staticNetworkConfig = cfg.length > 0 ? cfg : null;
  }
  const it = str(b, 'image_type');
  if (it !== undefined) {
    if (it !== 'full-iso' && it !== 'minimal-iso')
      throw new BadRequestError(`image_type ${JSON.stringify(it)} is not supported (full-iso, minimal-iso)`);
    out.imageType = it;
  }
  const ico = str(b, 'ignition_config_override', { multiline: true });
  if (ico !== undefined) out.ignitionConfigOverride = ico;
  const ov = str(b, 'openshift_version', { nullable: true });
  if (ov !== undefined) out.openshiftVersion = ov;
  const arch = str(b, 'cpu_architecture');
  if (arch !== undefined) out.cpuArchitecture = arch;
  if (b.kernel_arguments !== undefined) out.kernelArguments = validateKernelArguments(b.kernel_arguments);
  const atb = str(b, 'additional_trust_bundle', { nullable: true, max: 65535, multiline: true });
  if (atb !== undefined) out.additionalTrustBundle = validateTrustBundle(atb);
  if (b.cluster_id !== undefined && b.cluster_id !== null) {
    if (typeof b.cluster_id !== 'string' || !isUuid(b.cluster_id))
      throw new BadRequestError('cluster_id must be a UUID');
    out.clusterId = b.cluster_id.toLowerCase();
  }
  const delay = b.network_discovery_delay_seconds;
  if (delay === null) out.networkDiscoveryDelaySeconds = null;
  else if (delay !== undefined) {
    if (typeof delay !== 'number' || !Number.isSafeInteger(delay) || delay < 0)
      throw new BadRequestError('network_discovery_delay_seconds must be a non-negative integer');
    out.networkDiscoveryDelaySeconds = delay;
  }
  return out;
}

export function validatePullSecret(ps: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(ps);
  } catch {
    throw new BadRequestError('pull secret must be a well-formed JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new BadRequestError('pull secret must be a JSON object');
  const auths = (parsed as Obj).auths;
  if (typeof auths !== 'object' || auths === null || Array.isArray(auths)) {
    throw new BadRequestError("pull secret must contain an 'auths' JSON-object field");
  }
  for (const [registry, entry] of Object.entries(auths as Obj)) {
    const auth = typeof entry === 'object' && entry !== null ? (entry as Obj).auth : undefined;
    if (typeof auth !== 'string' || auth === '') {
      throw new BadRequestError(`invalid pull secret: 'auth' is missing for registry ${registry}`);
    }
    const decoded = Buffer.from(auth, 'base64').toString('utf8');
    if (!/^[A-Za-z0-9+/=\s]+$/.test(auth) || !decoded.includes(':')) {
      throw new BadRequestError(`invalid pull secret: 'auth' for registry ${registry} is not base64 of user:password`);
    }
  }
  return ps;
}

export function validateSshKeys(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  for (const [i, line] of lines.entries()) {
    const [type, blob] = line.split(/\s+/);
    if (!type || !blob || !SSH_TYPES.has(type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(blob)) {
      throw new BadRequestError(`ssh_authorized_key line ${i + 1} is not a valid SSH public key`);
    }
    const raw = Buffer.from(blob, 'base64');
    const len = raw.length >= 4 ? raw.readUInt32BE(0) : -1;
    if (len <= 0 || raw.length < 4 + len || raw.subarray(4, 4 + len).toString('latin1') !== type) {
      throw new BadRequestError(`ssh_authorized_key line ${i + 1} is not a valid SSH public key`);
    }
  }
  return lines.join('\n');
}

/**
 * A proxy URL's length: with every `%` doubled for systemd, `Environment="HTTPS_PROXY=…"` in
 * agent.service stays below systemd's 2048-byte line limit (discovery-ignition/unit-syntax.ts).
 */
export const MAX_PROXY_URL_LENGTH = 1000;
/** no_proxy's length: `Environment="NO_PROXY=…"` stays below the same line limit. */
export const MAX_NO_PROXY_LENGTH = 2000;
/** RFC 3986 URI characters (unreserved, gen-delims, sub-delims, `%`); anything else is refused. */
const URI_CHAR = /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/;

/**
 * A proxy URL, strictly: only URI characters, every `%` a two-digit escape, scheme http (or
 * https for https_proxy), a host, no query or fragment. Characters a URL may hold but a shell or
 * systemd would interpret (`$`, `(`, `'`, `%`, …) pass here and are escaped where the URL is
 * written (discovery-ignition/escape.ts).
 */
function validateProxyUrl(key: 'http_proxy' | 'https_proxy', s: string): void {
  const field = `proxy.${key}`;
  const refuse = (what: string): never => {
    throw new BadRequestError(`${field} ${what}`, { field });
  };
  assertCleanText(field, s); // the URL parser would silently drop tabs and newlines
  if (s.length > MAX_PROXY_URL_LENGTH) refuse(`must be at most ${MAX_PROXY_URL_LENGTH} characters`);
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (!URI_CHAR.test(ch)) refuse(`must not contain ${JSON.stringify(ch)} (offset ${i}): not a URL character`);
    if (ch === '%' && !/^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3)))
      refuse(`has a "%" that does not start a two-digit escape (offset ${i})`);
  }
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return refuse('is not a valid URL');
  }
  if (u.protocol !== 'http:' && !(key === 'https_proxy' && u.protocol === 'https:')) {
    refuse(`must use the http${key === 'https_proxy' ? '(s)' : ''} scheme`);
  }
  if (u.hostname === '') refuse('must name a host');
  if (s.includes('?') || s.includes('#')) refuse('must not have a query or a fragment');
}

/** Members are kept as sent, empty strings included (upstream echoes them); empty means unset. */
function validateProxy(v: unknown): Proxy | null {
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw new BadRequestError('proxy must be an object');
  const p = v as Obj;
  const out: Proxy = {};
  for (const key of ['http_proxy', 'https_proxy'] as const) {
    const s = p[key];
    if (s === undefined || s === null) continue;
    if (typeof s !== 'string') throw new BadRequestError(`proxy.${key} must be a string`);
    out[key] = s;
    if (s !== '') validateProxyUrl(key, s);
  }
  if (p.no_proxy !== undefined && p.no_proxy !== null) {
    if (typeof p.no_proxy !== 'string' || (p.no_proxy !== '' && !/^(\*|[A-Za-z0-9.:/_\- ,]+)$/.test(p.no_proxy))) {
      throw new BadRequestError('proxy.no_proxy must be "*" or a comma-separated list of domains, IPs or CIDRs');
    }
    if (p.no_proxy.length > MAX_NO_PROXY_LENGTH)
      throw new BadRequestError(`proxy.no_proxy must be at most ${MAX_NO_PROXY_LENGTH} characters`, {
        field: 'proxy.no_proxy',
      });
    out.no_proxy = p.no_proxy;
  }
  return out;
}

function validateNtpSources(s: string): string {
  const items = s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  for (const item of items) {
    if (!/^[A-Za-z0-9.:[\]-]+$/.test(item))
      throw new BadRequestError(
        `NTP source ${JSON.stringify(item.slice(0, 64))} is not a valid hostname or IP address`,
      );
  }
  return items.join(',');
}

function validateKernelArguments(v: unknown): KernelArgument[] | null {
  if (v === null) return null;
  if (!Array.isArray(v)) throw new BadRequestError('kernel_arguments must be a list');
  if (v.length > MAX_KERNEL_ARGUMENTS)
    throw new BadRequestError(`kernel_arguments has more than ${MAX_KERNEL_ARGUMENTS} entries`);
  const out = v.map((a, i): KernelArgument => {
    if (typeof a !== 'object' || a === null) throw new BadRequestError(`kernel_arguments[${i}] must be an object`);
    const { operation, value } = a as Obj;
    if (operation !== 'append') {
      throw new BadRequestError(
        `kernel_arguments[${i}]: only 'append' operation is allowed, got '${String(operation)}'`,
      );
    }
    return { operation: 'append', value: validateUserKernelArgument(value, i) };
  });
  return out.length > 0 ? out : null;
}

function validateTrustBundle(pem: string): string {
  if (pem.trim() === '') return '';
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) throw new BadRequestError('additional_trust_bundle must contain PEM-encoded certificates');
  for (const b of blocks) {
    const body = b.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body))
      throw new BadRequestError('additional_trust_bundle contains a malformed certificate');
  }
  return pem;
}
