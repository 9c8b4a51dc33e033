// Loading HTTPS_CERT_FILE/HTTPS_KEY_FILE with real openssl-made certificates: a CA-signed chain
// loads and is described (subject, notAfter, fingerprint); garbage, a key of another
// certificate, an encrypted key, empty, missing and oversized files are refused with a
// TlsMaterialError naming the file, and no message carries key material.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_OPENSSL } from '../../../../test/support/probes.js';
import { unavailable } from '../../../../test/support/requirements.js';
import { makeCa, makeLeaf, type TestCa, type TestLeaf } from './test-support/certificates.js';
import { MAX_PEM_FILE_BYTES, TlsMaterialError, loadCaBundle, loadTlsMaterial } from './tls-material.js';

const missing = unavailable({ openssl: HAVE_OPENSSL });

/** Lines of base64 from a PEM key: none of them may appear in any message. */
function keyLines(pem: string): string[] {
  return pem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'));
}

describe.skipIf(missing)('loadTlsMaterial', () => {
  let dir: string;
  let ca: TestCa;
  let leaf: TestLeaf;
  let other: TestLeaf;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tls-material-'));
    ca = makeCa(dir);
    leaf = makeLeaf(dir, ca, 'server');
    other = makeLeaf(dir, ca, 'other');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const load = (certFile: string, keyFile: string) => loadTlsMaterial({ certFile, keyFile, minVersion: 'TLSv1.2' });

  async function refusal(certFile: string, keyFile: string): Promise<TlsMaterialError> {
    const err = await load(certFile, keyFile).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TlsMaterialError);
    const message = (err as TlsMaterialError).message;
    for (const line of [...keyLines(leaf.keyPem), ...keyLines(other.keyPem)]) expect(message).not.toContain(line);
    return err as TlsMaterialError;
  }

  it('loads a leaf + CA chain and describes the leaf', async () => {
    const material = await load(leaf.certFile, leaf.keyFile);
    expect(material.info.fingerprint256).toBe(leaf.fingerprint256);
    expect(material.info.chainLength).toBe(2);
    expect(material.info.subject).toContain('CN=127.0.0.1');
    expect(material.info.issuer).toContain(`CN=${ca.name}`);
    expect(Date.parse(material.info.notAfter)).toBeGreaterThan(Date.now());
    expect(material.secureContext.minVersion).toBe('TLSv1.2');
    expect(JSON.stringify(material.info)).not.toContain('PRIVATE');
  });

  it('refuses a key that belongs to another certificate, naming both files', async () => {
    const err = await refusal(leaf.certFile, other.keyFile);
    expect(err.message).toContain(other.keyFile);
    expect(err.message).toContain('does not belong');
  });

  it('refuses garbage, empty and missing files', async () => {
    const garbage = path.join(dir, 'garbage.pem');
    await writeFile(garbage, 'this is not a certificate\n'.repeat(10));
    expect((await refusal(garbage, leaf.keyFile)).message).toMatch(/holds no PEM certificate/);
    expect((await refusal(leaf.certFile, garbage)).message).toMatch(/no usable unencrypted PEM private key/);
    const broken = path.join(dir, 'broken.pem');
    await writeFile(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect((await refusal(broken, leaf.keyFile)).message).toMatch(/certificate 1 of 1 cannot be parsed/);
    const empty = path.join(dir, 'empty.pem');
    await writeFile(empty, '');
    expect((await refusal(empty, leaf.keyFile)).message).toMatch(/is empty/);
    expect((await refusal(path.join(dir, 'nope.pem'), leaf.keyFile)).message).toMatch(/cannot be opened: ENOENT/);
  });

  it('refuses an oversized file before reading it, and an encrypted key', async () => {
    const big = path.join(dir, 'big.pem');
    await writeFile(big, Buffer.alloc(MAX_PEM_FILE_BYTES + 1, 0x41));
    expect((await refusal(big, leaf.keyFile)).message).toMatch(/at most/);
    const encrypted = path.join(dir, 'encrypted.key');
    execFileSync('openssl', ['pkey', '-in', leaf.keyFile, '-aes256', '-passout', 'pass:secret', '-out', encrypted]);
    expect((await refusal(leaf.certFile, encrypted)).message).toMatch(/unencrypted/);
  });

  it('loads a CA bundle for SERVICE_CA_CERT_FILE as PEM, and refuses one that is not, naming the variable', async () => {
    const bundle = await loadCaBundle(ca.certFile, 'SERVICE_CA_CERT_FILE');
    expect(bundle).toBe(`${ca.certPem.trim()}\n`);
    const garbage = path.join(dir, 'not-a-ca.pem');
    await writeFile(garbage, 'hello\n');
    await expect(loadCaBundle(garbage, 'SERVICE_CA_CERT_FILE')).rejects.toThrow(
      /^SERVICE_CA_CERT_FILE .*not-a-ca\.pem holds no PEM certificate$/,
    );
    await expect(loadCaBundle(path.join(dir, 'absent.pem'), 'SERVICE_CA_CERT_FILE')).rejects.toBeInstanceOf(
      TlsMaterialError,
    );
  });

  it('takes TLSv1.3 as the minimum version', async () => {
    const material = await loadTlsMaterial({ certFile: leaf.certFile, keyFile: leaf.keyFile, minVersion: 'TLSv1.3' });
    expect(material.secureContext.minVersion).toBe('TLSv1.3');
  });
});
