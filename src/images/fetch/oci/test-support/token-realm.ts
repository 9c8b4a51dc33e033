// Test support: a Docker token realm (https://distribution.github.io/distribution/spec/auth/token/)
// over HTTPS on loopback. It checks Basic credentials against its users and issues an ES256 JWT
// with an `x5c` header (the test PKI's token certificate), `iss`/`aud` as the registry's
// `auth.token` config expects, and the requested `repository:NAME:ACTIONS` scope as `access`.
// Anonymous requests get a token with no access (so the registry answers 401, as real realms do).
// It counts what it issued and refused. Checked against real clients: distribution 2.8 accepts its
// tokens and skopeo pulls with them (oci-pull-registry.test.ts). Used only by tests.
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { SignJWT, importPKCS8 } from 'jose';
import type { TestPki } from './test-pki.js';

export interface TokenRealm {
  url: string;
  service: string;
  issuer: string;
  stats: { issued: number; refused: number; anonymous: number };
  close(): Promise<void>;
}

/** Tokens live five minutes, like distribution's reference token server. */
const TOKEN_SECONDS = 300;

export async function startTokenRealm(pki: TestPki, users: Record<string, string>): Promise<TokenRealm> {
  const service = 'bootsmith-test-registry';
  const issuer = 'bootsmith-test-issuer';
  const key = await importPKCS8(pki.tokenKeyPem, 'ES256');
  const x5c = [new X509Certificate(pki.tokenCertPem).raw.toString('base64')];
  const stats = { issued: 0, refused: 0, anonymous: 0 };
  const server = https.createServer(
    { cert: await readText(pki.certFile), key: await readText(pki.keyFile) },
    (req, res) => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'https://realm');
        const header = req.headers.authorization ?? '';
        let subject = '';
        if (header.startsWith('Basic ')) {
          const [user, ...rest] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
          if (user === undefined || users[user] === undefined || users[user] !== rest.join(':')) {
            stats.refused++;
            res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="token"' });
            res.end('{"details":"wrong credentials"}');
            return;
          }
          subject = user;
        } else stats.anonymous++;
        const access = subject
          ? url.searchParams.getAll('scope').flatMap((scope) => {
              const m = /^repository:([^:]+):(.+)$/.exec(scope);
              return m ? [{ type: 'repository', name: m[1]!, actions: m[2]!.split(',') }] : [];
            })
          : [];
        const now = Math.floor(Date.now() / 1000);
        const token = await new SignJWT({ access })
          .setProtectedHeader({ alg: 'ES256', typ: 'JWT', x5c })
          .setIssuer(issuer)
          .setSubject(subject)
          .setAudience(url.searchParams.get('service') ?? service)
          .setIssuedAt(now)
          .setNotBefore(now - 10)
          .setExpirationTime(now + TOKEN_SECONDS)
          .setJti(`${now}-${stats.issued}`)
          .sign(key);
        stats.issued++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            token,
            access_token: token,
            expires_in: TOKEN_SECONDS,
            issued_at: new Date(now * 1000).toISOString(),
          }),
        );
      })().catch((err: unknown) => {
        res.writeHead(500);
        res.end(String(err));
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/token`,
    service,
    issuer,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readText(file: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(file, 'utf8');
}
