// The image replica's credential: a key file read with its problems named (never a throw), a
// signature that opens only this token and these exact bytes under this key.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isReplicaProof, loadReplicaKey, replicaProof } from './replica-proof.js';

const KEY = randomBytes(32);
const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const BODY = '{"reads":[{"method":"GET","ranges":[[0,10]]}]}';

describe('replica proof', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'replica-proof-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a key file; a missing, empty or oversized one is a problem naming the setting', async () => {
    const good = path.join(dir, 'good');
    await writeFile(good, `${KEY.toString('base64')}\n`);
    expect(await loadReplicaKey(good)).toEqual({ key: KEY });
    const empty = path.join(dir, 'empty');
    await writeFile(empty, '');
    const big = path.join(dir, 'big');
    await writeFile(big, 'x'.repeat(5000));
    expect(await loadReplicaKey(path.join(dir, 'missing'))).toEqual({
      problem: `cannot read IMAGE_REPLICA_KEY_FILE ${JSON.stringify(path.join(dir, 'missing'))}: ENOENT`,
    });
    expect(await loadReplicaKey(empty)).toEqual({
      problem: `IMAGE_REPLICA_KEY_FILE ${JSON.stringify(empty)} must hold 32 bytes as base64 or hex (e.g. \`openssl rand -base64 32\`)`,
    });
    expect(await loadReplicaKey(big)).toEqual({ problem: `IMAGE_REPLICA_KEY_FILE ${JSON.stringify(big)} is not a key file` });
    expect(await loadReplicaKey(dir)).toEqual({ problem: `IMAGE_REPLICA_KEY_FILE ${JSON.stringify(dir)} is not a key file` });
  });

  it('opens for this key, token and body only', () => {
    const proof = replicaProof(KEY, TOKEN, BODY);
    expect(isReplicaProof(KEY, TOKEN, Buffer.from(BODY), proof)).toBe(true);
    expect(isReplicaProof(randomBytes(32), TOKEN, BODY, proof)).toBe(false);
    expect(isReplicaProof(KEY, `${TOKEN.slice(1)}x`, BODY, proof)).toBe(false);
    expect(isReplicaProof(KEY, TOKEN, BODY.replace('10', '11'), proof)).toBe(false);
    expect(isReplicaProof(KEY, TOKEN, BODY, proof.slice(1))).toBe(false);
    expect(isReplicaProof(KEY, TOKEN, BODY, undefined)).toBe(false);
    expect(isReplicaProof(KEY, TOKEN, BODY, '')).toBe(false);
  });
}); // prettier-ignore
