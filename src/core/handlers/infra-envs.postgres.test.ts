// /v2/infra-envs CRUD, downloads/image-url and regenerate-signing-key (infra-envs.ts) over real
// HTTP on a real core: the pull secret never comes back, bodies conform to the swagger, bad
// input gets upstream's error shapes and writes nothing, state survives a restart.
// Runs on the embedded PostgreSQL server, and on TEST_DATABASE_URL when it is set.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { http, PULL_SECRET, sshKey, startHarness } from '../test-support/harness.js';
import { backends } from '../../platform/db/test-support/backends.js';
import { conforms, frameworkError, useApi } from '../test-support/api-fixture.js';

for (const backend of backends()) {
  describe(`InfraEnv handlers on ${backend.name}`, () => {
    const f = useApi(backend);

    it('creates, gets, lists, patches and deletes an InfraEnv without returning the pull secret', async () => {
      const key = sshKey();
      const ie = await f.newInfraEnv({
        ssh_authorized_key: key,
        cpu_architecture: 'x86_64',
        image_type: 'minimal-iso',
      });
      expect(ie.pull_secret_set).toBe(true);
      expect(JSON.stringify(ie)).not.toContain('pull_secret"');
      expect(JSON.stringify(ie)).not.toContain(Buffer.from('user:pass').toString('base64'));
      expect(ie.cpu_architecture).toBe('x86_64');
      expect(ie.download_url).toBe(`http://img.example.test:8080/byid/${ie.id}/4.16/x86_64/minimal.iso`);

      const got = await http('GET', `${f.h.api}/infra-envs/${ie.id}`);
      expect(got.status).toBe(200);
      conforms('infra-env', got.json);
      expect(got.json.ssh_authorized_key).toBe(key);

      const list = await http('GET', `${f.h.api}/infra-envs`);
      expect(list.status).toBe(200);
      conforms('infra-env-list', list.json);
      expect(list.json.some((e: { id: string }) => e.id === ie.id)).toBe(true);

      const patched = await http('PATCH', `${f.h.api}/infra-envs/${ie.id}`, {
        image_type: 'full-iso',
        kernel_arguments: [{ operation: 'append', value: 'rd.net.timeout.carrier=60' }],
        additional_ntp_sources: 'ntp.example.com',
        proxy: { http_proxy: 'http://proxy:3128', no_proxy: '.example.com' },
      });
      expect(patched.status, patched.text).toBe(201);
      conforms('infra-env', patched.json);
      expect(patched.json.type).toBe('full-iso');
      expect(JSON.parse(patched.json.kernel_arguments)).toEqual([
        { operation: 'append', value: 'rd.net.timeout.carrier=60' },
      ]);

      const url = await http('GET', `${f.h.api}/infra-envs/${ie.id}/downloads/image-url`);
      expect(url.status).toBe(200);
      conforms('presigned-url', url.json);
      expect(url.json.url).toContain(`/byid/${ie.id}/4.16/x86_64/full.iso`);

      const del = await http('DELETE', `${f.h.api}/infra-envs/${ie.id}`);
      expect(del.status).toBe(204);
      const gone = await http('GET', `${f.h.api}/infra-envs/${ie.id}`);
      expect(gone.status).toBe(404);
      conforms('error', gone.json);
    });

    it('rejects bad input with upstream error shapes and writes nothing', async () => {
      const before = (await http('GET', `${f.h.api}/infra-envs`)).json.length;
      // schema violations: go-openapi's {code, message}, 422 for 6xx codes, 400 for a parse error
      const schemaCases: [Record<string, unknown> | string, number, number, RegExp][] = [
        [{ pull_secret: PULL_SECRET }, 422, 602, /^name in body is required$/],
        [{ name: 'x' }, 422, 602, /^pull_secret in body is required$/],
        [{ name: 'x', pull_secret: PULL_SECRET, cpu_architecture: 'mips' }, 422, 606, /cpu_architecture in body/],
        [{ name: 'x', pull_secret: PULL_SECRET, cpu_architecture: 'amd64' }, 422, 606, /should be one of/],
        [{ name: 'x', pull_secret: PULL_SECRET, image_type: 'iso' }, 422, 606, /image_type/],
        [
          { name: 'x', pull_secret: PULL_SECRET, cluster_id: 'nope' },
          422,
          601,
          /cluster_id in body must be of type uuid/,
        ],
        [{ name: 'x', pull_secret: PULL_SECRET, network_discovery_delay_seconds: -1 }, 422, 609, /greater than/],
        [{ name: 'x', pull_secret: PULL_SECRET, additional_trust_bundle: 'x'.repeat(65536) }, 422, 603, /65535/],
        [{ name: 7, pull_secret: PULL_SECRET }, 400, 400, /cannot unmarshal number 7 into Go struct field/],
        [{ name: 'x', pull_secret: PULL_SECRET, proxy: 'http://p' }, 400, 400, /proxy of type models.Proxy/],
        ['[1]', 400, 400, /into Go value of type models.InfraEnvCreateParams/],
        ['{"name": ', 400, 400, /./],
      ];
      for (const [body, status, code, message] of schemaCases) {
        const r = await http('POST', `${f.h.api}/infra-envs`, body);
        expect(r.status, JSON.stringify(body)).toBe(status);
        frameworkError(r.json, code, message);
      }
      const empty = await http('POST', `${f.h.api}/infra-envs`, undefined);
      expect(empty.status).toBe(422);
      frameworkError(empty.json, 602, /^infraenvCreateParams in body is required$/);
      const cluster = crypto.randomUUID();
      const noCluster = await http('POST', `${f.h.api}/infra-envs`, {
        name: 'x',
        pull_secret: PULL_SECRET,
        cluster_id: cluster,
      });
      expect(noCluster.status).toBe(404);
      conforms('error', noCluster.json);
      expect(noCluster.json.reason).toBe(`Cluster ID ${cluster} does not exist`);

      // upstream's own semantic checks: 400 with the error body
      const cases: [Record<string, unknown> | string, number, RegExp][] = [
        [{ name: '', pull_secret: PULL_SECRET }, 400, /name is required/],
        [{ name: 'x', pull_secret: 'not json' }, 400, /pull secret/],
        [{ name: 'x', pull_secret: '{"foo":{}}' }, 400, /auths/],
        [{ name: 'x', pull_secret: '{"auths":{"quay.io":{"auth":"!!"}}}' }, 400, /pull secret/],
        [
          { name: 'x', pull_secret: PULL_SECRET, ssh_authorized_key: 'ssh-rsa AAAAnot-a-key' },
          400,
          /ssh_authorized_key/,
        ],
        [{ name: 'x', pull_secret: PULL_SECRET, openshift_version: '3.11' }, 400, /no OS image/],
        [{ name: 'x', pull_secret: PULL_SECRET, cpu_architecture: 's390x' }, 400, /no OS image/],
        [{ name: 'x', pull_secret: PULL_SECRET, image_type: 'disconnected-iso' }, 400, /image_type/],
        [
          { name: 'x', pull_secret: PULL_SECRET, ignition_config_override: '{not json' },
          400,
          /ignition_config_override/,
        ],
        [
          { name: 'x', pull_secret: PULL_SECRET, ignition_config_override: '{"ignition":{"version":"2.2.0"}}' },
          400,
          /version/,
        ],
        [
          {
            name: 'x',
            pull_secret: PULL_SECRET,
            ignition_config_override: '{"ignition":{"version":"3.1.0"},"storage":{"files":[{"path":"relative"}]}}',
          },
          400,
          /absolute/,
        ],
        [
          { name: 'x', pull_secret: PULL_SECRET, kernel_arguments: [{ operation: 'delete', value: 'quiet' }] },
          400,
          /append/,
        ],
        [{ name: 'x', pull_secret: PULL_SECRET, proxy: { http_proxy: 'ftp://x' } }, 400, /proxy/],
        [
          {
            name: 'x',
            pull_secret: PULL_SECRET,
            static_network_config: [
              { network_yaml: 'interfaces: [', mac_interface_map: [{ mac_address: '52:54:00:00:00:01' }] },
            ],
          },
          400,
          /YAML/,
        ],
      ];
      for (const [body, status, reason] of cases) {
        const r = await http('POST', `${f.h.api}/infra-envs`, body);
        expect(r.status, JSON.stringify(body)).toBe(status);
        conforms('error', r.json);
        expect(r.json.reason, JSON.stringify(body)).toMatch(reason);
      }
      // An override that cannot fit the 256 KiB embed area once compressed.
      const big = {
        ignition: { version: '3.1.0' },
        storage: {
          files: [{ path: '/big', contents: { source: `data:;base64,${randomBytes(300_000).toString('base64')}` } }],
        },
      };
      const tooBig = await http('POST', `${f.h.api}/infra-envs`, {
        name: 'x',
        pull_secret: PULL_SECRET,
        ignition_config_override: JSON.stringify(big),
      });
      expect(tooBig.status).toBe(413);
      conforms('error', tooBig.json);
      const huge = await http('POST', `${f.h.api}/infra-envs`, {
        name: 'x',
        pull_secret: PULL_SECRET,
        ignition_config_override: 'x'.repeat(3 * 1024 * 1024),
      });
      expect(huge.status).toBe(413);
      frameworkError(huge.json, 413); // refused by the body parser, before any handler
      expect((await http('GET', `${f.h.api}/infra-envs`)).json.length).toBe(before);

      const missing = crypto.randomUUID();
      for (const [m, u] of [
        ['GET', `infra-envs/${missing}`],
        ['DELETE', `infra-envs/${missing}`],
        ['GET', `infra-envs/${missing}/downloads/image-url`],
      ]) {
        const r = await http(m!, `${f.h.api}/${u}`);
        expect(r.status, u).toBe(404);
        conforms('error', r.json);
      }
      const badId = await http('GET', `${f.h.api}/infra-envs/not-a-uuid`);
      expect(badId.status).toBe(422);
      frameworkError(badId.json, 601, /^infra_env_id in path must be of type strfmt.UUID: "not-a-uuid"$/);
      const ie = await f.newInfraEnv();
      expect((await http('PATCH', `${f.h.api}/infra-envs/${ie.id}`, { ssh_authorized_key: 'nope' })).status).toBe(400);
      const wrongMethod = await http('PUT', `${f.h.api}/infra-envs/${ie.id}`, {});
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('allow')).toBe('DELETE,GET,HEAD,PATCH');
      frameworkError(wrongMethod.json, 405, /^method PUT is not allowed, but \[DELETE,GET,HEAD,PATCH\] are$/);
      const noRoute = await http('GET', `${f.h.api}/infra-envz`);
      expect(noRoute.status).toBe(404);
      frameworkError(noRoute.json, 404, /^path \/api\/assisted-install\/v2\/infra-envz was not found$/);
    });

    it('ignores fields the models do not declare, keeps empty proxy members, echoes network_discovery_delay_seconds', async () => {
      const ie = await f.newInfraEnv({
        some_future_field: { nested: true },
        proxy: { http_proxy: '', https_proxy: '', no_proxy: '', future_member: 1 },
        network_discovery_delay_seconds: 30,
      });
      expect(ie).not.toHaveProperty('some_future_field');
      expect(ie.proxy).toEqual({ http_proxy: '', https_proxy: '', no_proxy: '' });
      expect(ie.network_discovery_delay_seconds).toBe(30);
      // name, cluster_id and cpu_architecture are not in infra-env-update-params: ignored as upstream does
      const patched = await http('PATCH', `${f.h.api}/infra-envs/${ie.id}`, {
        name: 'renamed',
        cluster_id: crypto.randomUUID(),
        network_discovery_delay_seconds: 0,
        another_future_field: 'x',
      });
      expect(patched.status, patched.text).toBe(201);
      conforms('infra-env', patched.json);
      expect(patched.json.name).toBe('lab');
      expect(patched.json).not.toHaveProperty('cluster_id');
      expect(patched.json.network_discovery_delay_seconds).toBe(0);
      const got = await http('GET', `${f.h.api}/infra-envs/${ie.id}`);
      expect(got.json.network_discovery_delay_seconds).toBe(0);
      expect(got.json.proxy).toEqual({ http_proxy: '', https_proxy: '', no_proxy: '' });
    });

    it('rejects an IMAGE_SERVICE_BASE_URL that makes the ISO URL longer than 255 characters', async () => {
      const s = await backend.create();
      const long = await startHarness(s, {
        imageServiceBaseUrl: `http://${'a'.repeat(200)}.example.com`,
        runMonitor: false,
      });
      try {
        const r = await http('POST', `${long.api}/infra-envs`, { name: 'x', pull_secret: PULL_SECRET });
        expect(r.status).toBe(400);
        expect(r.json.reason).toMatch(/255/);
      } finally {
        await long.close();
        await s.cleanup();
      }
    });

    it('keeps state across a restart', async () => {
      const ie = await f.newInfraEnv({ name: 'persistent' });
      await f.restart();
      const r = await http('GET', `${f.h.api}/infra-envs/${ie.id}`);
      expect(r.status).toBe(200);
      expect(r.json.name).toBe('persistent');
    });
  });
}
