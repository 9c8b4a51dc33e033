// Test support: the inputs of the image store tests — the committed fixture ISOs, ISOs built
// with xorriso (without CoreOS layout, or with arbitrary bytes as coreos/miniso.dat), zips made with the
// `zip` CLI, self-signed certificates made with openssl, and OS image entries.
// Used only by tests.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';
import type { OsImageEntry } from '../os-images-config.js';

export const FIXTURE_ISO = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 'x86_64.iso');
/** `build-live-iso.sh --with-miniso`: x86_64.iso's tree plus a real coreos/miniso.dat. */
export const MINISO_FIXTURE = path.join(PACKAGE_ROOT, 'fixtures', 'iso', 'x86_64-miniso.iso');
export { HAVE_OPENSSL, HAVE_XORRISO, HAVE_XZ, HAVE_ZIP } from '../../../test/support/probes.js';

export function fixtureBytes(): Buffer {
  return readFileSync(FIXTURE_ISO);
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function entry(openshiftVersion: string, url: string, extra: Partial<OsImageEntry> = {}): OsImageEntry {
  return {
    openshiftVersion,
    version: `${openshiftVersion.replace('.', '')}.94.1`,
    cpuArchitecture: 'x86_64',
    url,
    type: 'full-iso',
    ...extra,
  };
}

/** A valid ISO 9660 image with no CoreOS live layout. */
export function plainIso(dir: string): Buffer {
  const tree = path.join(dir, 'plain-tree');
  mkdirSync(tree, { recursive: true });
  writeFileSync(path.join(tree, 'README.TXT'), 'not a live ISO\n');
  const out = path.join(dir, 'plain.iso');
  execFileSync('xorriso', ['-outdev', out, '-map', tree, '/'], { stdio: 'ignore' });
  return readFileSync(out);
}

/** The fixture ISO with `coreos/miniso.dat` (arbitrary bytes) added, boot setup kept. */
export function isoWithMinisoDat(dir: string, contents: Buffer = Buffer.alloc(16 * 1024, 0x5a)): string {
  const dat = path.join(dir, 'miniso.dat');
  writeFileSync(dat, contents);
  const out = path.join(dir, 'with-miniso.iso');
  execFileSync(
    'xorriso',
    ['-indev', FIXTURE_ISO, '-outdev', out, '-map', dat, '/coreos/miniso.dat', '-boot_image', 'any', 'replay'],
    {
      stdio: 'ignore',
    },
  );
  return out;
}

/** A zip at `dir/name` holding `files` (name → bytes), made with the zip CLI. */
export function makeZip(dir: string, name: string, files: Record<string, Buffer>): string {
  const tree = path.join(dir, `${name}-tree`);
  for (const [file, data] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    writeFileSync(path.join(tree, file), data);
  }
  const out = path.join(dir, name);
  execFileSync('zip', ['-q', '-r', out, ...Object.keys(files)], { cwd: tree });
  return out;
}

/** A self-signed certificate for `host` (an IP address or a DNS name; default 127.0.0.1). */
export function selfSignedCert(dir: string, host = '127.0.0.1'): { key: string; cert: string; certFile: string } {
  const key = path.join(dir, `${host}-key.pem`);
  const certFile = path.join(dir, `${host}-cert.pem`);
  const san = /^[\d.]+$/.test(host) ? `IP:${host}` : `DNS:${host}`;
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      `/CN=${host}`,
      '-addext',
      `subjectAltName=${san}`,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}
