// The BMC side's input rules: what a create or update body and a job request may hold, checked
// field by field with a 400 naming the field. Pure (the CA PEM check is phase 1's, on text).
//
// Does: name (1–63 of letters, digits, `.`, `_`, `-`, starting with a letter or digit: it goes into
// CLI arguments, events and log lines), address (phase 1's parseBmcAddress: a Redfish root or
// System URL or a bare host, HTTPS unless it says http, never credentials in it), username and
// password (1–MAX_CREDENTIAL_CHARS characters, no control characters), TLS (`insecure` or a CA PEM
// of at most MAX_CA_PEM_BYTES holding a certificate; not both), profile (a phase 1 profile id or
// `auto`), InfraEnv id (a UUID; whether it exists is the service's check), boot mode, boot method
// (`virtual-media`, `http` or `auto`), eject policy.
// Does NOT: store, or look anything up. Never echoes a password or a CA into a message.
import { BadRequestError } from '../errors.js';
import { isUuid } from '../uuid.js';
import {
  BOOT_METHODS,
  type BootMethod,
  type BootMode,
  isProfileId,
  parseBmcAddress,
  type ProfileId,
  RedfishError,
} from './redfish/index.js';
import { MAX_CREDENTIAL_CHARS } from './store/credentials.js';
import { EJECT_POLICIES, type EjectPolicy, JOB_ACTIONS, type JobAction } from './store/records.js';

/** A CA bundle for one BMC; Debian's whole trust store is ~220 KiB. */
export const MAX_CA_PEM_BYTES = 256 * 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface BmcFields {
  name: string;
  address: string;
  username: string;
  password: string;
  insecure: boolean;
  caPem: string | null;
  profile: ProfileId | null;
  infraEnvId: string | null;
  bootMode: BootMode;
  /** null = auto. */
  bootMethod: BootMethod | null;
  eject: EjectPolicy;
}

export type BmcCreate = Pick<BmcFields, 'name' | 'address' | 'username' | 'password'> & Partial<BmcFields>;
export type BmcPatch = Partial<BmcFields>;

function bad(field: string, why: string): never {
  throw new BadRequestError(`${field}: ${why}`, { field });
}

function str(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') bad(field, 'must be a string');
  return v;
}

export function checkName(name: string): string {
  if (!NAME.test(name))
    bad('name', 'must be 1 to 63 letters, digits, ".", "_" or "-", starting with a letter or digit');
  return name;
}

export function normalizeAddress(address: string, name: string): string {
  try {
    return parseBmcAddress(name, address).display;
  } catch (err) {
    if (err instanceof RedfishError) bad('address', err.explanation ?? 'not a Redfish address');
    throw err;
  }
}

function credential(field: 'username' | 'password', v: string): string {
  if (v.length === 0) bad(field, 'must not be empty');
  if (v.length > MAX_CREDENTIAL_CHARS) bad(field, `must be at most ${MAX_CREDENTIAL_CHARS} characters`);
  if (CONTROL.test(v)) bad(field, 'must not hold control characters');
  return v;
}

/** Reads the fields a body gives; `create` requires name, address, username and password. */
export function parseBmcBody(body: unknown, mode: 'create'): BmcCreate;
export function parseBmcBody(body: unknown, mode: 'update'): BmcPatch;
export function parseBmcBody(body: unknown, mode: 'create' | 'update'): BmcCreate | BmcPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) bad('body', 'must be a JSON object');
  const b = body as Record<string, unknown>;
  const known = new Set([
    'name',
    'address',
    'username',
    'password',
    'insecure',
    'ca_pem',
    'profile',
    'infra_env_id',
    'boot_mode',
    'boot_method',
    'eject',
  ]);
  for (const key of Object.keys(b)) if (!known.has(key)) bad(key, 'is not a BMC field');
  const out: BmcPatch = {};
  const name = str(b, 'name');
  if (name !== undefined) out.name = checkName(name);
  const address = str(b, 'address');
  if (address !== undefined) out.address = normalizeAddress(address, out.name ?? 'new BMC');
  const username = str(b, 'username');
  if (username !== undefined) out.username = credential('username', username);
  const password = str(b, 'password');
  if (password !== undefined) out.password = credential('password', password);
  if (b.insecure !== undefined) {
    if (typeof b.insecure !== 'boolean') bad('insecure', 'must be true or false');
    out.insecure = b.insecure;
  }
  if (b.ca_pem !== undefined) {
    if (b.ca_pem === null) out.caPem = null;
    else {
      const pem = str(b, 'ca_pem')!;
      if (Buffer.byteLength(pem) > MAX_CA_PEM_BYTES) bad('ca_pem', `must be at most ${MAX_CA_PEM_BYTES} bytes`);
      if (!PEM_CERTIFICATE.test(pem)) bad('ca_pem', 'holds no PEM certificate');
      out.caPem = pem;
    }
  }
  if (out.insecure && out.caPem) bad('insecure', 'give either insecure or ca_pem, not both');
  if (b.profile !== undefined) {
    const p = str(b, 'profile')!;
    if (p !== 'auto' && !isProfileId(p)) bad('profile', `must be auto or a known profile id`);
    out.profile = p === 'auto' ? null : (p as ProfileId);
  }
  if (b.infra_env_id !== undefined) {
    if (b.infra_env_id === null) out.infraEnvId = null;
    else {
      const id = str(b, 'infra_env_id')!;
      if (!isUuid(id)) bad('infra_env_id', 'must be a UUID');
      out.infraEnvId = id.toLowerCase();
    }
  }
  if (b.boot_mode !== undefined) out.bootMode = bootMode(b.boot_mode);
  if (b.boot_method !== undefined) {
    const m = bootMethod(b.boot_method, true);
    out.bootMethod = m === 'auto' ? null : m;
  }
  if (b.eject !== undefined) out.eject = ejectPolicy(b.eject);
  if (mode === 'create') {
    for (const field of ['name', 'address', 'username', 'password'] as const)
      if (out[field] === undefined) bad(field, 'is required');
  }
  return out;
}

function bootMode(v: unknown): BootMode {
  if (v !== 'UEFI' && v !== 'Legacy') bad('boot_mode', 'must be UEFI or Legacy');
  return v;
}

function bootMethod(v: unknown, auto: true): BootMethod | 'auto';
function bootMethod(v: unknown, auto: false): BootMethod;
function bootMethod(v: unknown, auto: boolean): BootMethod | 'auto' {
  const allowed: readonly string[] = auto ? [...BOOT_METHODS, 'auto'] : BOOT_METHODS;
  if (typeof v !== 'string' || !allowed.includes(v)) bad('boot_method', `must be one of ${allowed.join(', ')}`);
  return v as BootMethod | 'auto';
}

function ejectPolicy(v: unknown): EjectPolicy {
  if (typeof v !== 'string' || !(EJECT_POLICIES as readonly string[]).includes(v))
    bad('eject', `must be one of ${EJECT_POLICIES.join(', ')}`);
  return v as EjectPolicy;
}

export interface JobRequest {
  action: JobAction;
  bootMode?: BootMode;
  bootMethod?: BootMethod;
  eject?: EjectPolicy;
  infraEnvId?: string;
}

export function parseJobBody(body: unknown): JobRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) bad('body', 'must be a JSON object');
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b))
    if (!['action', 'boot_mode', 'boot_method', 'eject', 'infra_env_id'].includes(key)) bad(key, 'is not a job field');
  const action = b.action;
  if (typeof action !== 'string' || !(JOB_ACTIONS as readonly string[]).includes(action))
    bad('action', `must be one of ${JOB_ACTIONS.join(', ')}`);
  const out: JobRequest = { action: action as JobAction };
  if (b.boot_mode !== undefined) out.bootMode = bootMode(b.boot_mode);
  if (b.boot_method !== undefined) out.bootMethod = bootMethod(b.boot_method, false);
  if (b.eject !== undefined) out.eject = ejectPolicy(b.eject);
  if (b.infra_env_id !== undefined) {
    if (typeof b.infra_env_id !== 'string' || !isUuid(b.infra_env_id)) bad('infra_env_id', 'must be a UUID');
    out.infraEnvId = b.infra_env_id.toLowerCase();
  }
  if (out.action !== 'boot-discovery' && (out.bootMode || out.bootMethod || out.eject || out.infraEnvId))
    bad('action', 'boot_mode, boot_method, eject and infra_env_id apply to boot-discovery only');
  return out;
}
