// Test support: a certificate authority and server certificates made with the openssl CLI, for
// the native-TLS suites (unit, e2e, bench). A leaf is signed by the CA, carries its host names
// and IPs as subjectAltName and serverAuth usage, so clients verify it against the CA alone.
// Does NOT: assert anything, or touch any system trust store. Used only by tests and the bench.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCa {
  name: string;
  certFile: string;
  keyFile: string;
  certPem: string;
}

export interface TestLeaf {
  certFile: string;
  keyFile: string;
  /** Leaf PEM followed by the CA's (what HTTPS_CERT_FILE holds). */
  chainPem: string;
  keyPem: string;
  /** SHA-256 fingerprint of the leaf, as X509Certificate.fingerprint256 prints it. */
  fingerprint256: string;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makeCa(dir: string, name = 'bootsmith test CA'): TestCa {
  const base = path.join(dir, name.replace(/\W+/g, '-'));
  const certFile = `${base}.ca.pem`;
  const keyFile = `${base}.ca.key`;
  openssl([
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]); // prettier-ignore
  return { name, certFile, keyFile, certPem: readFileSync(certFile, 'utf8') };
}

/** A server certificate for `hosts` (names and IP literals) signed by `ca`, written as `<name>.pem`/`<name>.key` in `dir`. */
export function makeLeaf(
  dir: string,
  ca: TestCa,
  name: string,
  hosts: string[] = ['127.0.0.1', 'localhost'],
): TestLeaf {
  const base = path.join(dir, name);
  const keyFile = `${base}.key`;
  const csr = `${base}.csr`;
  const signed = `${base}.leaf.pem`;
  const ext = `${base}.ext`;
  const san = hosts.map((h) => (/^[\d.]+$/.test(h) || h.includes(':') ? `IP:${h}` : `DNS:${h}`)).join(',');
  writeFileSync(
    ext,
    `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`,
  );
  openssl([
    'req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', keyFile, '-out', csr, '-subj', `/CN=${hosts[0] ?? name}/O=${name}`,
  ]); // prettier-ignore
  openssl([
    'x509', '-req', '-in', csr, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial',
    '-days', '1', '-extfile', ext, '-out', signed,
  ]); // prettier-ignore
  const leafPem = readFileSync(signed, 'utf8');
  const chainPem = leafPem + ca.certPem;
  const certFile = `${base}.pem`;
  writeFileSync(certFile, chainPem);
  return {
    certFile,
    keyFile,
    chainPem,
    keyPem: readFileSync(keyFile, 'utf8'),
    fingerprint256: new X509Certificate(leafPem).fingerprint256,
  };
}
