// AUTH_TYPE=local over HTTP and through ignitionSource: admin, agent, api_key and image
// tokens; wrong, expired and cross-InfraEnv tokens; key rotation; keys persisted.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_SWAGGER } from '../../test/support/probes.js';
import { unavailable } from '../../test/support/requirements.js';
import { loadContract } from './test-support/contract-schema.js';
import { http, inventory, PULL_SECRET, startHarness, type Harness } from './test-support/harness.js';
import { embeddedBackend } from '../platform/db/test-support/backends.js';

// Without ../shared the conforms() checks cannot run: skipped with a warning here, a failure under CI.
const contract = unavailable({ '../shared/contracts (the upstream swagger)': HAVE_SWAGGER })
  ? undefined
  : loadContract();

describe('local auth', () => {
  let h: Harness;
  let cleanup: () => Promise<void>;
  let dataDir: string;
  let admin: Record<string, string>;

  beforeAll(async () => {
    const s = await embeddedBackend().create();
    cleanup = s.cleanup;
    dataDir = s.dataDir;
    h = await startHarness(s, { authType: 'local', runMonitor: false, imageServiceBaseUrl: 'http://img:8080' });
    admin = { authorization: `Bearer ${await h.core.auth.adminToken()}` };
  });
  afterAll(async () => {
    await h?.close();
    await cleanup?.();
  });

  async function create(): Promise<{ id: string; download_url: string }> {
    const r = await http('POST', `${h.api}/infra-envs`, { name: 'x', pull_secret: PULL_SECRET }, admin);
    expect(r.status, r.text).toBe(201);
    return r.json;
  }

  it('persists keys and the admin token under DATA_DIR', () => {
    expect(existsSync(path.join(dataDir, 'auth', 'ec-public-key.pem'))).toBe(true);
    expect(readFileSync(path.join(dataDir, 'auth', 'admin-token'), 'utf8').trim()).toBe(admin.authorization!.slice(7));
  });

  it('scopes tokens to their InfraEnv', async () => {
    const unauth = await http('POST', `${h.api}/infra-envs`, { name: 'x', pull_secret: PULL_SECRET });
    expect(unauth.status).toBe(401);
    expect(unauth.json).toEqual({ code: 401, message: expect.any(String) });
    if (contract) expect(contract.validate('infra_error', unauth.json)).toEqual([]);

    const a = await create();
    const b = await create();
    expect(a.download_url).toMatch(/^http:\/\/img:8080\/bytoken\/[A-Za-z0-9_-]{32}\/4\.16\/x86_64\/full\.iso$/);
    const tokenA = await h.core.auth.infraEnvToken(a.id);
    expect((await http('GET', `${h.api}/infra-envs/${a.id}`, undefined, { 'x-secret-key': tokenA })).status).toBe(200);
    expect((await http('GET', `${h.api}/infra-envs/${a.id}?api_key=${tokenA}`)).status).toBe(200);
    const cross = await http('GET', `${h.api}/infra-envs/${b.id}`, undefined, { 'x-secret-key': tokenA });
    expect(cross.status).toBe(403);
    expect(cross.json.code).toBe(403);
    expect((await http('GET', `${h.api}/infra-envs`, undefined, { authorization: `Bearer ${tokenA}` })).status).toBe(
      403,
    );
    expect((await http('GET', `${h.api}/infra-envs/${a.id}`, undefined, { 'x-secret-key': 'garbage' })).status).toBe(
      401,
    );

    // The agent registers with the token baked into the discovery Ignition.
    const ign = await http(
      'GET',
      `${h.api}/infra-envs/${a.id}/downloads/files?file_name=discovery.ign`,
      undefined,
      admin,
    );
    const unit = ign.json.systemd.units.find((u: { name: string }) => u.name === 'agent.service').contents as string;
    const agentToken = /PULL_SECRET_TOKEN=(\S+)/.exec(unit)![1]!;
    const hostId = crypto.randomUUID();
    expect(
      (await http('POST', `${h.api}/infra-envs/${a.id}/hosts`, { host_id: hostId }, { 'x-secret-key': agentToken }))
        .status,
    ).toBe(201);
    expect(
      (await http('POST', `${h.api}/infra-envs/${b.id}/hosts`, { host_id: hostId }, { 'x-secret-key': agentToken }))
        .status,
    ).toBe(403);
    expect(
      (
        await http(
          'POST',
          `${h.api}/infra-envs/${a.id}/hosts/${hostId}/instructions`,
          { step_type: 'inventory', exit_code: 0, output: JSON.stringify(inventory()) },
          { 'x-secret-key': agentToken },
        )
      ).status,
    ).toBe(204);

    // ignitionSource applies the same rules.
    const src = h.core.ignitionSource;
    await expect(
      src.discoveryCustomization({
        infraEnvId: a.id,
        imageType: 'full-iso',
        credential: { kind: 'api-key', value: tokenA },
      }),
    ).resolves.toBeDefined();
    await expect(
      src.discoveryCustomization({
        infraEnvId: b.id,
        imageType: 'full-iso',
        credential: { kind: 'api-key', value: tokenA },
      }),
    ).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(
      src.discoveryCustomization({ infraEnvId: a.id, imageType: 'full-iso', credential: { kind: 'none' } }),
    ).rejects.toMatchObject({ kind: 'unauthorized' });
    await expect(
      src.discoveryCustomization({
        infraEnvId: a.id,
        imageType: 'full-iso',
        credential: { kind: 'authorization', value: admin.authorization! },
      }),
    ).resolves.toBeDefined();
  });

  it('issues expiring image tokens, rotated by regenerate-signing-key', async () => {
    const a = await create();
    const b = await create();
    const presigned = await http('GET', `${h.api}/infra-envs/${a.id}/downloads/image-url`, undefined, admin);
    expect(presigned.status).toBe(200);
    if (contract) expect(contract.validate('presigned-url', presigned.json)).toEqual([]);
    const m = /\/bytoken\/([^/]+)\/4\.16\/x86_64\/full\.iso$/.exec(presigned.json.url);
    expect(m).not.toBeNull();
    const token = decodeURIComponent(m![1]!);
    expect(new Date(presigned.json.expires_at).getTime()).toBeGreaterThan(Date.now() + 3.9 * 3600_000);

    expect((await http('GET', `${h.api}/infra-envs/${a.id}`, undefined, { 'image-token': token })).status).toBe(200);
    expect(
      (await http('GET', `${h.api}/infra-envs/${a.id}/downloads/files?file_name=ipxe-script&image_token=${token}`))
        .status,
    ).toBe(200);
    expect((await http('GET', `${h.api}/infra-envs/${b.id}`, undefined, { 'image-token': token })).status).toBe(401);
    expect((await http('DELETE', `${h.api}/infra-envs/${a.id}`, undefined, { 'image-token': token })).status).toBe(403);
    const src = h.core.ignitionSource;
    await expect(
      src.discoveryCustomization({
        infraEnvId: a.id,
        imageType: 'full-iso',
        credential: { kind: 'image-token', value: token },
      }),
    ).resolves.toBeDefined();
    await expect(
      src.discoveryCustomization({
        infraEnvId: b.id,
        imageType: 'full-iso',
        credential: { kind: 'image-token', value: token },
      }),
    ).rejects.toMatchObject({ kind: 'unauthorized' });

    const expired = await h.core.auth.imageToken(a.id, -1000);
    expect((await http('GET', `${h.api}/infra-envs/${a.id}`, undefined, { 'image-token': expired.token })).status).toBe(
      401,
    );

    expect((await http('POST', `${h.api}/infra-envs/${a.id}/regenerate-signing-key`, undefined, admin)).status).toBe(
      204,
    );
    expect((await http('GET', `${h.api}/infra-envs/${a.id}`, undefined, { 'image-token': token })).status).toBe(401);
    const fresh = await h.core.auth.imageToken(a.id);
    expect((await http('GET', `${h.api}/infra-envs/${a.id}`, undefined, { 'image-token': fresh.token })).status).toBe(
      200,
    );

    const script = await http(
      'GET',
      `${h.api}/infra-envs/${a.id}/downloads/files?file_name=ipxe-script`,
      undefined,
      admin,
    );
    expect(script.text).toMatch(/pxe-initrd\?arch=x86_64&version=4\.16&api_key=/);
  });
});
