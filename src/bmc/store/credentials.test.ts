// BMC credentials at rest: sealed values open only with their key and for their BMC, hold neither
// the password nor its base64, and the key is generated 0600 once, read from a file as base64 or
// hex, refused with a clear message when it is not a key, and checked against the key id the
// database recorded (a replica with another key is refused while any BMC holds credentials).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CredentialsBox,
  CredentialsKeyError,
  CredentialsKeyring,
  CredentialsOpenError,
  defaultKeyFile,
  keyIdOf,
  loadKey,
} from './credentials.js';

const BMC_ID = '8d3f7c1e-1111-4a2b-9c3d-000000000001';
const PASSWORD = 'calvin-Sup3r-secret';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bmc-credentials-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('CredentialsBox', () => {
  const box = new CredentialsBox(randomBytes(32));

  it('opens what it sealed, for the same BMC only', () => {
    const sealed = box.seal(BMC_ID, { username: 'root', password: PASSWORD });
    expect(box.open(BMC_ID, 'n1', sealed)).toEqual({ username: 'root', password: PASSWORD });
    expect(() => box.open('8d3f7c1e-1111-4a2b-9c3d-000000000002', 'n2', sealed)).toThrow(
      /BMC "n2": its stored credentials cannot be opened: .*sealed for another BMC/,
    );
    // a fresh nonce per sealing
    expect(box.seal(BMC_ID, { username: 'root', password: PASSWORD })).not.toBe(sealed);
  });

  it('holds neither the password, the user:password pair nor their base64', () => {
    const sealed = box.seal(BMC_ID, { username: 'root', password: PASSWORD });
    for (const secret of [PASSWORD, `root:${PASSWORD}`]) {
      expect(sealed).not.toContain(secret);
      expect(sealed).not.toContain(Buffer.from(secret).toString('base64'));
      expect(sealed).not.toContain(Buffer.from(secret).toString('base64url'));
    }
  });

  it('names both key ids when another key sealed it, and refuses damaged values', () => {
    const other = new CredentialsBox(randomBytes(32));
    const sealed = other.seal(BMC_ID, { username: 'root', password: PASSWORD });
    expect(() => box.open(BMC_ID, 'n1', sealed)).toThrow(
      `they were sealed with BMC credentials key ${other.keyId}, this service has key ${box.keyId}`,
    );
    const mine = box.seal(BMC_ID, { username: 'root', password: PASSWORD }).split('.');
    const flipped = [...mine];
    flipped[3] = Buffer.from(Buffer.from(mine[3]!, 'base64url').map((b, i) => (i === 0 ? b ^ 1 : b))).toString(
      'base64url',
    );
    expect(() => box.open(BMC_ID, 'n1', flipped.join('.'))).toThrow(CredentialsOpenError);
    expect(() => box.open(BMC_ID, 'n1', 'plain-text')).toThrow('not a sealed value of this version');
    expect(() => box.open(BMC_ID, 'n1', mine.slice(0, 4).join('.'))).toThrow(CredentialsOpenError);
  });
});

describe('loadKey', () => {
  it('generates DATA_DIR/auth/bmc-credentials.key 0600 once, then reads the same key', async () => {
    const key = await loadKey({ dataDir: dir });
    const file = defaultKeyFile(dir);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await loadKey({ dataDir: dir })).toEqual(key);
    // two processes starting together end with one key
    const again = await Promise.all([loadKey({ dataDir: `${dir}/x` }), loadKey({ dataDir: `${dir}/x` })]);
    expect(again[0]).toEqual(again[1]);
  });

  it('reads BMC_CREDENTIALS_KEY_FILE as base64, base64url or hex, and refuses anything else clearly', async () => {
    const key = randomBytes(32);
    const file = path.join(dir, 'key');
    for (const text of [
      key.toString('base64'),
      key.toString('base64url'),
      key.toString('hex'),
      `  ${key.toString('hex')}\n`,
    ]) {
      await writeFile(file, text);
      expect(await loadKey({ dataDir: dir, keyFile: file })).toEqual(key);
    }
    for (const text of ['', 'short', randomBytes(16).toString('base64'), randomBytes(33).toString('hex')]) {
      await writeFile(file, text);
      await expect(loadKey({ dataDir: dir, keyFile: file })).rejects.toThrow(
        /must hold 32 bytes as base64 or hex \(e\.g\. `openssl rand -base64 32`\)/,
      );
    }
    await expect(loadKey({ dataDir: dir, keyFile: path.join(dir, 'missing') })).rejects.toThrow(
      /BMC_CREDENTIALS_KEY_FILE ".*missing" does not exist/,
    );
    await expect(loadKey({ dataDir: dir, keyFile: dir })).rejects.toThrow(CredentialsKeyError);
    // the DATA_DIR default is not created when a key file is configured
    await expect(readFile(defaultKeyFile(dir))).rejects.toThrow();
  });
});

describe('CredentialsKeyring', () => {
  function ring(keyFile: string, recorded: { id?: string; sealedBmcs: boolean }) {
    return new CredentialsKeyring({
      dataDir: dir,
      keyFile,
      recordKeyId: async (id) => (recorded.id ??= id),
      replaceKeyIdIfUnused: async (id) => {
        if (recorded.sealedBmcs) return false;
        recorded.id = id;
        return true;
      },
    });
  }

  it('records the first key id; another key is refused while BMCs hold credentials, and taken when none do', async () => {
    const first = randomBytes(32);
    const second = randomBytes(32);
    await writeFile(path.join(dir, 'a'), first.toString('base64'));
    await writeFile(path.join(dir, 'b'), second.toString('base64'));
    const recorded: { id?: string; sealedBmcs: boolean } = { sealedBmcs: true };
    expect((await ring(path.join(dir, 'a'), recorded).get()).keyId).toBe(keyIdOf(first));
    expect(recorded.id).toBe(keyIdOf(first));
    const refused = ring(path.join(dir, 'b'), recorded);
    await expect(refused.get()).rejects.toThrow(
      `this service's BMC credentials key (id ${keyIdOf(second)}) is not the key the database's BMC credentials are sealed with (id ${keyIdOf(first)}): give every replica the same BMC_CREDENTIALS_KEY_FILE`,
    );
    // the refusal is not remembered: fixed, it works on the next use
    recorded.sealedBmcs = false;
    expect((await refused.get()).keyId).toBe(keyIdOf(second));
    expect(recorded.id).toBe(keyIdOf(second));
  });
});
