// CertificateReloader on its own, with real files and openssl-made certificates: a Kubernetes
// secret volume's symlink swap (`..data` → a new timestamped directory) is picked up by the
// directory watch; with the watch off, the size/mtime/inode poll alone picks up an atomic
// rename; a pair refused on reload leaves the applied one in place; an unchanged pair is not
// applied again. (The whole service, SIGHUP and connections in flight: native-tls.postgres.test.ts.)
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../logger.js';
import { HAVE_OPENSSL } from '../../../../test/support/probes.js';
import { unavailable } from '../../../../test/support/requirements.js';
import { CertificateReloader } from './certificate-reloader.js';
import { makeCa, makeLeaf, type TestLeaf } from './test-support/certificates.js';
import { type TlsMaterial, loadTlsMaterial } from './tls-material.js';

const missing = unavailable({ openssl: HAVE_OPENSSL });
/** Upper bound for a change to be applied; never a timing assertion. */
const APPLY_BOUND_MS = 15_000;

async function until(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + APPLY_BOUND_MS;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`not within ${APPLY_BOUND_MS} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(missing)('CertificateReloader', () => {
  let dir: string;
  let leaves: TestLeaf[];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cert-reloader-'));
    const ca = makeCa(dir);
    leaves = [makeLeaf(dir, ca, 'a'), makeLeaf(dir, ca, 'b'), makeLeaf(dir, ca, 'c')];
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  function reloaderFor(certFile: string, keyFile: string, initial: TlsMaterial, extra: { watch?: boolean } = {}) {
    const applied: string[] = [];
    const logs: string[] = [];
    const reloader = new CertificateReloader({
      files: { certFile, keyFile, minVersion: 'TLSv1.2' },
      initial,
      apply: (m) => applied.push(m.info.fingerprint256),
      logger: createLogger('info', { write: (l: string) => logs.push(l) }),
      debounceMs: 50,
      pollIntervalMs: 200,
      ...extra,
    });
    return { reloader, applied, logs };
  }

  it("follows a Kubernetes secret volume's ..data symlink swap", async () => {
    const volume = path.join(dir, 'volume');
    const write = async (name: string, leaf: TestLeaf) => {
      await mkdir(path.join(volume, name), { recursive: true });
      await writeFile(path.join(volume, name, 'tls.crt'), leaf.chainPem);
      await writeFile(path.join(volume, name, 'tls.key'), leaf.keyPem);
    };
    await write('..2026_11_23_a', leaves[0]!);
    await symlink('..2026_11_23_a', path.join(volume, '..data'));
    await symlink('..data/tls.crt', path.join(volume, 'tls.crt'));
    await symlink('..data/tls.key', path.join(volume, 'tls.key'));
    const certFile = path.join(volume, 'tls.crt');
    const keyFile = path.join(volume, 'tls.key');
    const initial = await loadTlsMaterial({ certFile, keyFile, minVersion: 'TLSv1.2' });
    const { reloader, applied } = reloaderFor(certFile, keyFile, initial);
    await reloader.start();
    try {
      // What the kubelet does: a new directory, a temporary link to it, renamed over ..data.
      await write('..2026_11_23_b', leaves[1]!);
      await symlink('..2026_11_23_b', path.join(volume, '..data_tmp'));
      await rename(path.join(volume, '..data_tmp'), path.join(volume, '..data'));
      await until('the swapped pair is applied', () => applied.length === 1);
      expect(applied).toEqual([leaves[1]!.fingerprint256]);
      expect(reloader.status().serving.fingerprint256).toBe(leaves[1]!.fingerprint256);
    } finally {
      reloader.stop();
    }
  });

  it('with the watch off, the poll alone picks up an atomic rename; a refused pair keeps the applied one', async () => {
    const plain = path.join(dir, 'plain');
    await mkdir(plain);
    const certFile = path.join(plain, 'tls.crt');
    const keyFile = path.join(plain, 'tls.key');
    await writeFile(certFile, leaves[0]!.chainPem);
    await writeFile(keyFile, leaves[0]!.keyPem);
    const initial = await loadTlsMaterial({ certFile, keyFile, minVersion: 'TLSv1.2' });
    const { reloader, applied, logs } = reloaderFor(certFile, keyFile, initial, { watch: false });
    await reloader.start();
    try {
      const replace = async (file: string, content: string) => {
        await writeFile(`${file}.new`, content);
        await rename(`${file}.new`, file);
      };
      await replace(keyFile, leaves[2]!.keyPem);
      await replace(certFile, leaves[2]!.chainPem);
      await until('the renamed pair is applied', () => applied.includes(leaves[2]!.fingerprint256));
      // Same bytes written again: reloaded, found unchanged, not applied twice.
      await reloader.reload('test');
      expect(applied.filter((f) => f === leaves[2]!.fingerprint256)).toHaveLength(1);
      // A key of another certificate: refused, the applied pair stays, the log says why. (The
      // poll may have caught the pair half-written above, key before cert: count from here.)
      const failures = reloader.status().reloadFailures;
      await replace(keyFile, leaves[1]!.keyPem);
      await until('the mismatched pair is refused', () => reloader.status().reloadFailures > failures);
      expect(reloader.status().serving.fingerprint256).toBe(leaves[2]!.fingerprint256);
      expect(reloader.status().lastReload).toMatchObject({ ok: false, trigger: 'poll' });
      expect(logs.join('')).toMatch(/does not belong to the certificate.*new TLS certificate refused/);
      expect(logs.join('')).not.toContain('PRIVATE KEY');
    } finally {
      reloader.stop();
    }
  });
});
