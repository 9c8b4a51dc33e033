// Test support: a throwaway PKI made with openssl — a CA, a server certificate for 127.0.0.1 and
// localhost (the registries, the token realm and the fault proxies all present it) and an EC key
// with a self-signed certificate that signs registry tokens (distribution's `auth.token`
// verifies the `x5c` chain against its `rootcertbundle`). Also writes a skopeo/containers
// cert directory (`ca.crt`). Used only by tests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TestPki {
  dir: string;
  caFile: string;
  caPem: string;
  certFile: string;
  keyFile: string;
  /** A directory holding `ca.crt`, for skopeo's --cert-dir options. */
  certDir: string;
  tokenCertFile: string;
  tokenCertPem: string;
  tokenKeyPem: string;
}

export function makePki(dir: string): TestPki {
  mkdirSync(dir, { recursive: true });
  const f = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
    '-days',
    '2',
    '-subj',
    '/CN=bootsmith test CA',
  );
  ssl('req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(
    f('server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  ssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('server.crt'),
    '-days',
    '2',
    '-extfile',
    f('server.ext'),
  );
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('token.key'),
    '-out',
    f('token.crt'),
    '-days',
    '2',
    '-subj',
    '/CN=bootsmith test token issuer',
  );
  ssl('pkcs8', '-topk8', '-nocrypt', '-in', f('token.key'), '-out', f('token.pk8'));
  const certDir = f('certs.d');
  mkdirSync(certDir, { recursive: true });
  writeFileSync(path.join(certDir, 'ca.crt'), readFileSync(f('ca.crt')));
  return {
    dir,
    caFile: f('ca.crt'),
    caPem: readFileSync(f('ca.crt'), 'utf8'),
    certFile: f('server.crt'),
    keyFile: f('server.key'),
    certDir,
    tokenCertFile: f('token.crt'),
    tokenCertPem: readFileSync(f('token.crt'), 'utf8'),
    tokenKeyPem: readFileSync(f('token.pk8'), 'utf8'),
  };
}
