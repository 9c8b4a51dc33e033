// The text of a symmetric key file as bootsmith's settings take it (BMC_CREDENTIALS_KEY_FILE,
// IMAGE_REPLICA_KEY_FILE, a mounted Kubernetes secret): 32 bytes as base64 (standard or
// url-safe, e.g. `openssl rand -base64 32`) or as hex, surrounding whitespace ignored.
// Does NOT: read the file or say what is wrong (the setting's owner words its own error), or
// generate keys. A leaf: imports nothing of bootsmith's.

/** An AES-256 or HMAC-SHA256 key: 32 bytes. */
export const KEY_BYTES = 32;

/** A key file is a few dozen bytes; anything bigger is the wrong file. */
export const MAX_KEY_FILE_BYTES = 4096;

/** The key a key file's text holds, or undefined when it holds no 32-byte key. */
export function keyFromText(text: string): Buffer | undefined {
  const t = text.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(t)) key = Buffer.from(t, 'hex');
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key?.length === KEY_BYTES ? key : undefined;
}
