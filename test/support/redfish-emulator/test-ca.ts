// Test support: a throwaway CA and a server certificate for the emulated BMCs (and a static ISO
// server), made with the openssl CLI. The leaf carries its host names and IPs as subjectAltName,
// so clients (our client, sushy with verify=<ca file>, Node, curl) verify it against the CA alone.
// Does NOT: touch any system trust store.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCertificates {
  caFile: string;
  caPem: string;
  certPem: string;
  keyPem: string;
  /** Leaf then CA, as a server presents it. */
  chainFile: string;
  keyFile: string;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makeTestCertificates(
  dir: string,
  hosts: string[] = ['127.0.0.1', 'localhost', '::1'],
): TestCertificates {
  mkdirSync(dir, { recursive: true });
  const caFile = path.join(dir, 'emulator-ca.pem');
  const caKey = path.join(dir, 'emulator-ca.key');
  openssl([
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', caKey, '-out', caFile, '-days', '2', '-subj', '/CN=bootsmith Redfish emulator test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]); // prettier-ignore
  const keyFile = path.join(dir, 'emulator-bmc.key');
  const csr = path.join(dir, 'emulator-bmc.csr');
  const leaf = path.join(dir, 'emulator-bmc.leaf.pem');
  const ext = path.join(dir, 'emulator-bmc.ext');
  const san = hosts.map((h) => (/^[\d.]+$/.test(h) || h.includes(':') ? `IP:${h}` : `DNS:${h}`)).join(',');
  writeFileSync(
    ext,
    `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`,
  );
  openssl([
    'req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', keyFile, '-out', csr, '-subj', `/CN=${hosts[0] ?? 'localhost'}/O=emulated BMC`,
  ]); // prettier-ignore
  openssl([
    'x509', '-req', '-in', csr, '-CA', caFile, '-CAkey', caKey, '-CAcreateserial',
    '-days', '1', '-extfile', ext, '-out', leaf,
  ]); // prettier-ignore
  const caPem = readFileSync(caFile, 'utf8');
  const certPem = readFileSync(leaf, 'utf8') + caPem;
  const chainFile = path.join(dir, 'emulator-bmc.pem');
  writeFileSync(chainFile, certPem);
  return { caFile, caPem, certPem, keyPem: readFileSync(keyFile, 'utf8'), chainFile, keyFile };
}
