// How a BMC's certificate is checked: the system trust store, a CA file or PEM, or not at all
// (an explicit insecure flag — BMCs ship self-signed certificates, and some sites accept that).
//
// Does: turn the choice into the `ca`/`rejectUnauthorized` options of node:https, reading a CA
// file once (bounded) and refusing one that holds no certificate.
// Does NOT: connect, or pin certificates. "system" is Node's trust store: the bundled Mozilla roots
// plus NODE_EXTRA_CA_CERTS (Node 20 has no API for the OS store).
// Next: http-call.ts passes the result to https.request.
import { readFile, stat } from 'node:fs/promises';
import { RedfishError } from './errors.js';

export type BmcTrust =
  | { verify: 'system' }
  | { verify: 'ca-file'; caFile: string }
  | { verify: 'ca-pem'; caPem: string }
  | { verify: 'insecure' };

export interface TlsSettings {
  /** PEM of the CAs to trust instead of the defaults; undefined = Node's trust store. */
  ca: string | undefined;
  rejectUnauthorized: boolean;
}

/** A CA bundle larger than this is not a CA bundle (Debian's full bundle is ~220 KiB). */
const MAX_CA_FILE_BYTES = 1024 * 1024;

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

export async function resolveTrust(bmc: string, trust: BmcTrust): Promise<TlsSettings> {
  const fail = (why: string): never => {
    throw new RedfishError({ bmc, step: 'tls-settings', failure: 'bad-input' }, why);
  };
  switch (trust.verify) {
    case 'system':
      return { ca: undefined, rejectUnauthorized: true };
    case 'insecure':
      return { ca: undefined, rejectUnauthorized: false };
    case 'ca-pem':
      if (!PEM_CERTIFICATE.test(trust.caPem)) fail('the CA PEM holds no certificate');
      return { ca: trust.caPem, rejectUnauthorized: true };
    case 'ca-file': {
      let pem = '';
      try {
        const info = await stat(trust.caFile);
        if (!info.isFile()) fail(`CA file ${JSON.stringify(trust.caFile)} is not a file`);
        if (info.size > MAX_CA_FILE_BYTES)
          fail(`CA file ${JSON.stringify(trust.caFile)} is ${info.size} bytes, more than ${MAX_CA_FILE_BYTES}`);
        pem = await readFile(trust.caFile, 'utf8');
      } catch (err) {
        if (err instanceof RedfishError) throw err;
        fail(
          `cannot read CA file ${JSON.stringify(trust.caFile)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
        );
      }
      if (!PEM_CERTIFICATE.test(pem)) fail(`CA file ${JSON.stringify(trust.caFile)} holds no PEM certificate`);
      return { ca: pem, rejectUnauthorized: true };
    }
  }
}
