// Loads and checks the PEM certificate chain and private key named by HTTPS_CERT_FILE and
// HTTPS_KEY_FILE, and describes the leaf certificate (subject, issuer, notAfter, SHA-256
// fingerprint) for logs and /health; and a CA bundle others must trust (SERVICE_CA_CERT_FILE).
//
// Does: read both files (bounded), parse every certificate of the chain, check that the key
// belongs to the leaf, build the secure-context options a TLS server takes (HTTP/1.1 only,
// TLS_MIN_VERSION), and fail with a TlsMaterialError that names the file and the reason.
// Does NOT: watch files or swap contexts (certificate-reloader.ts), listen, or ever put key
// bytes (or any part of the files) into an error, a log line or /health.
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { open } from 'node:fs/promises';
import tls from 'node:tls';
import { BootsmithError } from '../../../errors.js';

/** A chain of a few certificates and one key fit easily; anything larger is not a PEM pair. */
export const MAX_PEM_FILE_BYTES = 1024 * 1024;
/** More certificates than any real chain carries (leaf, intermediates, maybe a root). */
export const MAX_CHAIN_CERTIFICATES = 16;

export type TlsMinVersion = 'TLSv1.2' | 'TLSv1.3';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  minVersion: TlsMinVersion;
}

/** What may be shown about the serving certificate (never the key). */
export interface CertificateInfo {
  subject: string;
  issuer: string;
  notBefore: string;
  notAfter: string;
  /** SHA-256 of the leaf's DER, colon-separated hex as openssl prints it. */
  fingerprint256: string;
  /** Certificates in HTTPS_CERT_FILE, leaf first. */
  chainLength: number;
}

export interface TlsMaterial {
  /** Options for https.createServer / server.setSecureContext. */
  secureContext: tls.SecureContextOptions;
  info: CertificateInfo;
}

/** The certificate or key cannot be used; `context` names the file, never its contents. */
export class TlsMaterialError extends BootsmithError {
  constructor(message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super('format', message, context, options);
  }
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

export async function loadTlsMaterial(files: TlsFiles): Promise<TlsMaterial> {
  const certPem = await readBounded(files.certFile, 'HTTPS_CERT_FILE');
  const keyPem = await readBounded(files.keyFile, 'HTTPS_KEY_FILE');
  const chain = parseChain(certPem, files.certFile, 'HTTPS_CERT_FILE');
  const leaf = chain[0]!;
  const key = parseKey(keyPem, files.keyFile);
  if (!leaf.checkPrivateKey(key)) {
    throw new TlsMaterialError(
      `HTTPS_KEY_FILE ${files.keyFile} does not belong to the certificate in HTTPS_CERT_FILE ${files.certFile} (subject ${leaf.subject.replaceAll('\n', ', ')})`,
      { certFile: files.certFile, keyFile: files.keyFile },
    );
  }
  const secureContext: tls.SecureContextOptions = {
    cert: certPem,
    key: keyPem,
    minVersion: files.minVersion,
  };
  try {
    tls.createSecureContext(secureContext); // what the server will do with it: fail here, not per handshake
  } catch (err) {
    throw new TlsMaterialError(
      `HTTPS_CERT_FILE ${files.certFile} and HTTPS_KEY_FILE ${files.keyFile} cannot make a TLS context: ${openSslReason(err)}`,
      { certFile: files.certFile, keyFile: files.keyFile },
    );
  }
  return {
    secureContext,
    info: {
      subject: leaf.subject.replaceAll('\n', ', '),
      issuer: leaf.issuer.replaceAll('\n', ', '),
      notBefore: new Date(leaf.validFrom).toISOString(),
      notAfter: new Date(leaf.validTo).toISOString(),
      fingerprint256: leaf.fingerprint256,
      chainLength: chain.length,
    },
  };
}

/**
 * A CA bundle others must trust (SERVICE_CA_CERT_FILE): the PEM certificates of `file`, each
 * checked to parse, at most MAX_CHAIN_CERTIFICATES of them, as one PEM text.
 */
export async function loadCaBundle(file: string, variable: string): Promise<string> {
  const pem = await readBounded(file, variable);
  const certificates = parseChain(pem, file, variable);
  return `${certificates.map((c) => c.toString().trim()).join('\n')}\n`;
}

async function readBounded(file: string, variable: string): Promise<Buffer> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    throw new TlsMaterialError(
      `${variable} ${file} cannot be opened: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      {
        file,
      },
    );
  }
  try {
    const { size } = await handle.stat();
    if (size > MAX_PEM_FILE_BYTES) {
      throw new TlsMaterialError(
        `${variable} ${file} is ${size} bytes; a PEM file here is at most ${MAX_PEM_FILE_BYTES}`,
        {
          file,
          size,
        },
      );
    }
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    if (bytesRead === 0) throw new TlsMaterialError(`${variable} ${file} is empty`, { file });
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function parseChain(pem: Buffer, file: string, variable: string): X509Certificate[] {
  const blocks = pem.toString('latin1').match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new TlsMaterialError(`${variable} ${file} holds no PEM certificate`, { file });
  if (blocks.length > MAX_CHAIN_CERTIFICATES) {
    throw new TlsMaterialError(
      `${variable} ${file} holds ${blocks.length} certificates; at most ${MAX_CHAIN_CERTIFICATES} are accepted`,
      { file },
    );
  }
  return blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new TlsMaterialError(
        `${variable} ${file}: certificate ${index + 1} of ${blocks.length} cannot be parsed (${openSslReason(err)})`,
        { file, index },
      );
    }
  });
}

function parseKey(pem: Buffer, file: string): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch (err) {
    throw new TlsMaterialError(
      `HTTPS_KEY_FILE ${file} holds no usable unencrypted PEM private key (${openSslReason(err)})`,
      {
        file,
      },
    );
  }
}

/** OpenSSL's reason code only (e.g. "ERR_OSSL_PEM_NO_START_LINE"): never echoes input bytes. */
function openSslReason(err: unknown): string {
  const e = err as { code?: unknown; reason?: unknown };
  if (typeof e.reason === 'string') return e.reason;
  if (typeof e.code === 'string') return e.code;
  return 'unreadable';
}
