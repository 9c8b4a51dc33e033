// The image replica's credential towards the core it fronts: a key both are given
// (IMAGE_REPLICA_KEY_FILE, 32 bytes as base64 or hex, e.g. one Kubernetes Secret mounted in both
// Deployments), with which a `--role image` replica signs each report of the reads it served of a
// BMC boot job's URL (remote-token-reads.ts), and the core checks the signature before it counts
// them (src/bmc/api/bmc-routes.ts). The URL token alone is no proof: whoever saw the URL (the BMC,
// its network, its Redfish answers) could otherwise report made-up reads and mark the job booted.
//
//   Bootsmith-Replica-Proof: base64url(HMAC-SHA256(key, "bootsmith token-reads v1\n" token "\n" body))
//
// Does: read the key file (bounded; a missing or malformed one is a problem naming the setting,
// never a throw), sign, and check in constant time. Does NOT: decide who must sign (the core's
// route does) or log the key, a token or a proof.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { keyFromText, MAX_KEY_FILE_BYTES } from '../../fs/key-file.js';

export const REPLICA_PROOF_HEADER = 'Bootsmith-Replica-Proof';
export const REPLICA_KEY_SETTING = 'IMAGE_REPLICA_KEY_FILE';

/** The configured key, or why there is none to use. */
export type ReplicaKey = { key: Buffer } | { problem: string };

const CONTEXT = 'bootsmith token-reads v1\n';

export async function loadReplicaKey(file: string): Promise<ReplicaKey> {
  const where = `${REPLICA_KEY_SETTING} ${JSON.stringify(file)}`;
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_KEY_FILE_BYTES) return { problem: `${where} is not a key file` };
    const key = keyFromText(await readFile(file, 'utf8'));
    if (!key) return { problem: `${where} must hold 32 bytes as base64 or hex (e.g. \`openssl rand -base64 32\`)` };
    return { key };
  } catch (err) {
    return { problem: `cannot read ${where}: ${(err as NodeJS.ErrnoException).code ?? String(err)}` };
  }
}

export function replicaProof(key: Buffer, token: string, body: string | Buffer): string {
  return createHmac('sha256', key).update(CONTEXT).update(token).update('\n').update(body).digest('base64url');
}

/** Whether `proof` is the key's signature of this token and body. */
export function isReplicaProof(key: Buffer, token: string, body: string | Buffer, proof: string | undefined): boolean {
  if (!proof) return false;
  const expected = Buffer.from(replicaProof(key, token, body));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
