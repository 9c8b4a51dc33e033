// Cache-key fingerprints of caller credentials, so caches can be keyed per credential
// without ever holding or revealing the credential text itself.
import { createHash } from 'node:crypto';
import type { Credential } from './ignition-source.js';

export function credentialFingerprint(credential: Credential): string {
  if (credential.kind === 'none') return 'none';
  return `${credential.kind}:${createHash('sha256').update(credential.value).digest('base64url')}`;
}
