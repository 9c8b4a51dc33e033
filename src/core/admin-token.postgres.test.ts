// Admin token rotation and expiry (issue 15, finding 9) through real HTTP against a running
// core: `bootsmith auth rotate-admin` (the CLI command, run in-process, and once as a child
// process) writes a new token to DATA_DIR/auth/admin-token (0600) and the running core refuses
// the old one on its next request, with the embedded database (generation in DATA_DIR) and on
// PostgreSQL (generation in the shared database) when TEST_DATABASE_URL is set.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT, importPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authCommand } from '../cli/auth.js';
import { http, PULL_SECRET, startHarness, type Harness } from './test-support/harness.js';
import { backends } from '../platform/db/test-support/backends.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

class Capture {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

for (const backend of backends()) {
  describe(`admin token rotation on ${backend.name}`, () => {
    let h: Harness;
    let cleanup: () => Promise<void>;
    let storage: { dataDir: string; databaseUrl?: string };
    let env: NodeJS.ProcessEnv;
    const tokenFile = () => path.join(storage.dataDir, 'auth', 'admin-token');
    const list = (token: string) => http('GET', `${h.api}/infra-envs`, undefined, { authorization: `Bearer ${token}` });

    beforeAll(async () => {
      const created = await backend.create();
      storage = created;
      cleanup = created.cleanup;
      h = await startHarness(storage, { authType: 'local', runMonitor: false, imageServiceBaseUrl: 'http://img:8080' });
      env = {
        AUTH_TYPE: 'local',
        DATA_DIR: storage.dataDir,
        ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}),
      };
    });
    afterAll(async () => {
      await h?.close();
      await cleanup?.();
    });

    async function rotate(extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
      const stdout = new Capture();
      const stderr = new Capture();
      const code = await authCommand(['rotate-admin'], { env: { ...env, ...extraEnv }, stdout, stderr });
      return { code, out: stdout.text, err: stderr.text };
    }

    it('rotate-admin revokes the old token at once on the running core and writes the new one 0600', async () => {
      const old = readFileSync(tokenFile(), 'utf8').trim();
      expect((await list(old)).status).toBe(200);
      const r = await rotate();
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/^admin token generation 2 written to .*admin-token, no expiry/);
      const fresh = readFileSync(tokenFile(), 'utf8').trim();
      expect(fresh).not.toBe(old);
      expect(r.out).not.toContain(fresh);
      expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
      const refused = await list(old);
      expect(refused.status).toBe(401);
      expect(refused.json.message).toMatch(/invalid or expired credentials/);
      expect((await list(fresh)).status).toBe(200);
      expect(
        (
          await http(
            'POST',
            `${h.api}/infra-envs`,
            { name: 'x', pull_secret: PULL_SECRET },
            { authorization: `Bearer ${old}` },
          )
        ).status,
      ).toBe(401);
      // InfraEnv tokens are not touched by an admin rotation.
      const created = await http(
        'POST',
        `${h.api}/infra-envs`,
        { name: 'x', pull_secret: PULL_SECRET },
        { authorization: `Bearer ${fresh}` },
      );
      expect(created.status, created.text).toBe(201);
      const ie = created.json;
      const agent = await h.core.auth.infraEnvToken(ie.id);
      await rotate();
      const agentGet = await http('GET', `${h.api}/infra-envs/${ie.id}`, undefined, { 'x-secret-key': agent });
      expect(agentGet.status, agentGet.text).toBe(200);
      expect((await list(fresh)).status).toBe(401);
      // The core's own helper follows the rotation too.
      expect((await list(await h.core.auth.adminToken())).status).toBe(200);
    });

    it('refuses admin tokens without a current generation, even when correctly signed', async () => {
      const pem = readFileSync(path.join(storage.dataDir, 'auth', 'ec-private-key.pem'), 'utf8');
      const key = await importPKCS8(pem, 'ES256');
      const legacy = await new SignJWT({ role: 'admin' })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
        .setSubject('admin')
        .sign(key);
      expect((await list(legacy)).status).toBe(401);
      const guessed = await new SignJWT({ role: 'admin', gen: 999 })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
        .setJti('x')
        .sign(key);
      expect((await list(guessed)).status).toBe(401);
    });

    it('ADMIN_TOKEN_TTL gives the new token an expiry the core enforces', async () => {
      const r = await rotate({ ADMIN_TOKEN_TTL: '2s' });
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/expires \d{4}-/);
      const token = readFileSync(tokenFile(), 'utf8').trim();
      const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number; iat: number };
      expect(exp.exp - exp.iat).toBe(2);
      expect((await list(token)).status).toBe(200);
      await new Promise((res) => setTimeout(res, (exp.exp + 1) * 1000 - Date.now()));
      expect((await list(token)).status).toBe(401);
      expect((await rotate({ ADMIN_TOKEN_TTL: 'soon' })).code).toBe(2);
    });

    it('works as a separate process (bootsmith auth rotate-admin) next to the running core', () => {
      const before = readFileSync(tokenFile(), 'utf8').trim();
      const child = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `
        import { runnerImport } from 'vite';
        await runnerImport(${JSON.stringify(path.join(ROOT, 'src/cli/test-support/run-auth.ts'))}, { root: ${JSON.stringify(ROOT)}, configFile: false, logLevel: 'silent' });
      `,
        ],
        {
          cwd: ROOT,
          env: { ...process.env, ...env, ADMIN_TOKEN_TTL: '', BOOTSMITH_TEST_ARGS: 'rotate-admin' },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(child.status, child.stderr).toBe(0);
      expect(child.stdout).toMatch(/written to/);
      return (async () => {
        const after = readFileSync(tokenFile(), 'utf8').trim();
        expect((await list(before)).status).toBe(401);
        expect((await list(after)).status).toBe(200);
      })();
    });

    it('says what is wrong without AUTH_TYPE=local or keys', async () => {
      const stderr = new Capture();
      expect(
        await authCommand(['rotate-admin'], {
          env: { DATA_DIR: storage.dataDir, AUTH_TYPE: 'none' },
          stdout: new Capture(),
          stderr,
        }),
      ).toBe(2);
      expect(stderr.text).toMatch(/AUTH_TYPE is not local/);
      expect(await authCommand(['rotate'], { env, stdout: new Capture(), stderr })).toBe(2);
    });
  });
}
