// BMC credentials at rest: username and password sealed with AES-256-GCM under a key that is never
// in the database, so a database dump, backup or `db export` alone opens nothing.
//
// The key: BMC_CREDENTIALS_KEY_FILE (a file or a mounted Kubernetes secret: 32 bytes as base64 or
// hex, e.g. `openssl rand -base64 32`), else DATA_DIR/auth/bmc-credentials.key, generated 0600 on
// first use beside the local auth keys. Replicas on one PostgreSQL must share one key: its id (a
// hash, not the key) is recorded in service_keys the first time a key is used, and a replica with
// another key is refused with a message saying so, before it seals or opens anything.
//
// Envelope: `bmc1.<key id>.<iv>.<ciphertext>.<tag>` (base64url), the additional data binding it to
// its BMC's id, so a sealed value copied onto another BMC's row does not open.
// Does: generate, read and check the key; seal and open. Does NOT: log anything, or hand the
// password to anyone but the caller who opens it (the job engine, for one Redfish client).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { BootsmithError, UnavailableError } from '../../errors.js';
import { KEY_BYTES, keyFromText, MAX_KEY_FILE_BYTES } from '../../fs/key-file.js';

/** GCM nonce: 12 bytes, random per sealing (a key seals far fewer than 2^32 values). */
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ENVELOPE_VERSION = 'bmc1';
/** service_keys row naming the key id every replica must use. */
export const KEY_ID_SERVICE_KEY = 'bmc-credentials-key-id';
/** Usernames and passwords longer than this are not credentials (Redfish limits them to a few dozen). */
export const MAX_CREDENTIAL_CHARS = 1024;

export interface BmcCredentials {
  username: string;
  password: string;
}

/** The key cannot be read or does not match the database's: BMC credentials cannot be sealed or opened. */
export class CredentialsKeyError extends UnavailableError {
  constructor(message: string) {
    super(message, 60, {});
  }
}

/** A sealed value does not open (another key, a damaged or moved value). */
export class CredentialsOpenError extends BootsmithError {
  constructor(bmc: string, why: string) {
    super('unprocessable', `BMC ${JSON.stringify(bmc)}: its stored credentials cannot be opened: ${why}`, { bmc });
  }
}

export function defaultKeyFile(dataDir: string): string {
  return path.join(dataDir, 'auth', 'bmc-credentials.key');
}

/** The key's id: a hash of it, safe to store and show. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('bootsmith bmc credentials key id|').update(key).digest('base64url').slice(0, 16);
}

/** The key in a key file's text: base64 (standard or url-safe) or hex of exactly 32 bytes. */
export function parseKey(text: string, file: string): Buffer {
  const key = keyFromText(text);
  if (!key) {
    throw new CredentialsKeyError(
      `BMC credentials key file ${JSON.stringify(file)} must hold ${KEY_BYTES} bytes as base64 or hex (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  return key;
}

/** Reads a key file (bounded); undefined when it does not exist. */
async function readKeyFile(file: string): Promise<Buffer | undefined> {
  let info;
  try {
    info = await stat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CredentialsKeyError(
      `cannot read BMC credentials key file ${JSON.stringify(file)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  if (!info.isFile() || info.size > MAX_KEY_FILE_BYTES)
    throw new CredentialsKeyError(`BMC credentials key file ${JSON.stringify(file)} is not a key file`);
  return parseKey(await readFile(file, 'utf8'), file);
}

/**
 * The key: from `keyFile` when given (it must exist), else the DATA_DIR one, created 0600 when
 * absent (exclusive create: two processes starting together end with the same key).
 */
export async function loadKey(options: { dataDir: string; keyFile?: string | undefined }): Promise<Buffer> {
  if (options.keyFile) {
    const key = await readKeyFile(options.keyFile);
    if (!key)
      throw new CredentialsKeyError(`BMC_CREDENTIALS_KEY_FILE ${JSON.stringify(options.keyFile)} does not exist`);
    return key;
  }
  const file = defaultKeyFile(options.dataDir);
  const existing = await readKeyFile(file);
  if (existing) return existing;
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  try {
    const handle = await open(file, 'wx', 0o600);
    try {
      await handle.writeFile(`${key.toString('base64')}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const raced = await readKeyFile(file);
    if (!raced) throw new CredentialsKeyError(`BMC credentials key file ${JSON.stringify(file)} vanished`);
    return raced;
  }
}

function additionalData(bmcId: string): Buffer {
  return Buffer.from(`bootsmith bmc credentials|${bmcId.toLowerCase()}`, 'utf8');
}

/** Seals and opens credentials with one key. */
export class CredentialsBox {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`a BMC credentials key is ${KEY_BYTES} bytes`);
    this.keyId = keyIdOf(key);
  }

  seal(bmcId: string, credentials: BmcCredentials): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(additionalData(bmcId));
    const plain = Buffer.from(JSON.stringify({ u: credentials.username, p: credentials.password }), 'utf8');
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    plain.fill(0);
    const parts = [iv, sealed, cipher.getAuthTag()].map((b) => b.toString('base64url'));
    return [ENVELOPE_VERSION, this.keyId, ...parts].join('.');
  }

  open(bmcId: string, bmcName: string, envelope: string): BmcCredentials {
    const parts = envelope.split('.');
    if (parts.length !== 5 || parts[0] !== ENVELOPE_VERSION)
      throw new CredentialsOpenError(bmcName, 'not a sealed value of this version');
    const [, keyId, ivText, dataText, tagText] = parts as [string, string, string, string, string];
    if (keyId !== this.keyId)
      throw new CredentialsOpenError(
        bmcName,
        `they were sealed with BMC credentials key ${keyId}, this service has key ${this.keyId} (BMC_CREDENTIALS_KEY_FILE)`,
      );
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw new CredentialsOpenError(bmcName, 'the sealed value is damaged');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAAD(additionalData(bmcId));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(Buffer.from(dataText, 'base64url')), decipher.final()]);
      const parsed = JSON.parse(plain.toString('utf8')) as { u?: unknown; p?: unknown };
      plain.fill(0);
      if (typeof parsed.u !== 'string' || typeof parsed.p !== 'string') throw new Error('shape');
      return { username: parsed.u, password: parsed.p };
    } catch {
      throw new CredentialsOpenError(
        bmcName,
        'the sealed value does not open with this key (damaged, or sealed for another BMC)',
      );
    }
  }
}

/**
 * The credentials box of this service, loaded on first use and checked once against the key id
 * the database recorded: every replica must seal with the same key. A new key replaces the recorded
 * one only while no BMC holds credentials (a lost DATA_DIR key file, before any BMC was added).
 */
export class CredentialsKeyring {
  private box: Promise<CredentialsBox> | undefined;

  constructor(
    private readonly options: {
      dataDir: string;
      keyFile?: string | undefined;
      /** Records `keyId` as the one key unless one is recorded; returns the recorded id. */
      recordKeyId: (keyId: string) => Promise<string>;
      /** Records `keyId` in place of another when no BMC holds credentials sealed with it; true when done. */
      replaceKeyIdIfUnused: (keyId: string) => Promise<boolean>;
    },
  ) {}

  get(): Promise<CredentialsBox> {
    this.box ??= this.load().catch((err: unknown) => {
      this.box = undefined; // a fixed file or a reachable database is retried on the next use
      throw err;
    });
    return this.box;
  }

  private async load(): Promise<CredentialsBox> {
    const box = new CredentialsBox(await loadKey(this.options));
    const recorded = await this.options.recordKeyId(box.keyId);
    if (recorded !== box.keyId && !(await this.options.replaceKeyIdIfUnused(box.keyId))) {
      throw new CredentialsKeyError(
        `this service's BMC credentials key (id ${box.keyId}) is not the key the database's BMC credentials are sealed with (id ${recorded}): ` +
          'give every replica the same BMC_CREDENTIALS_KEY_FILE',
      );
    }
    return box;
  }
}
