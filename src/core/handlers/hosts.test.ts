// /v2/infra-envs/{id}/hosts register, list, get, patch, delete, ignition and progress (hosts.ts)
// over real HTTP on a real core: validations with upstream's messages, hostname clashes, and
// the error cases of registration.
// Runs on the embedded PostgreSQL server, and on TEST_DATABASE_URL when it is set.
import { describe, expect, it } from 'vitest';
import { backends, http, inventory } from '../test-support/harness.js';
import { conforms, useApi } from './test-support/api-fixture.js';

for (const backend of backends()) {
  describe(`host handlers on ${backend.name}`, () => {
    const f = useApi(backend);

    it('marks a weak host insufficient with upstream messages, and hostname clashes', async () => {
      const ie = await f.newInfraEnv();
      const a = crypto.randomUUID();
      const b = crypto.randomUUID();
      for (const id of [a, b])
        expect((await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, { host_id: id })).status).toBe(201);
      await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts/${a}/instructions`, {
        step_type: 'inventory',
        exit_code: 0,
        output: JSON.stringify(inventory({ hostname: 'localhost', cores: 1, ramGiB: 4, diskGB: 10 })),
      });
      const weak = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${a}`);
      expect(weak.json.status).toBe('insufficient');
      expect(weak.json.status_info).toMatch(/^Host does not meet the minimum hardware requirements: /);
      const hw = JSON.parse(weak.json.validations_info).hardware as { id: string; status: string; message: string }[];
      expect(hw.find((v) => v.id === 'has-min-cpu-cores')).toMatchObject({
        status: 'failure',
        message:
          'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1',
      });
      expect(hw.find((v) => v.id === 'has-min-memory')?.message).toBe(
        'The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB',
      );
      expect(hw.find((v) => v.id === 'has-min-valid-disks')?.status).toBe('failure');
      expect(hw.find((v) => v.id === 'hostname-valid')?.message).toBe('The host name localhost is forbidden');

      await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts/${b}/instructions`, {
        step_type: 'inventory',
        exit_code: 0,
        output: JSON.stringify(inventory({ hostname: 'dup.example.com' })),
      });
      const patched = await http('PATCH', `${f.h.api}/infra-envs/${ie.id}/hosts/${a}`, {
        host_name: 'dup.example.com',
      });
      expect(patched.status).toBe(201);
      conforms('host', patched.json);
      const hwa = JSON.parse(patched.json.validations_info).hardware as { id: string; status: string }[];
      expect(hwa.find((v) => v.id === 'hostname-unique')?.status).toBe('failure');
      const other = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${b}`);
      expect(other.json.status).toBe('insufficient');
      expect((await http('PATCH', `${f.h.api}/infra-envs/${ie.id}/hosts/${a}`, { host_name: 'Bad_Name' })).status).toBe(
        400,
      );

      expect((await http('DELETE', `${f.h.api}/infra-envs/${ie.id}/hosts/${a}`)).status).toBe(204);
      expect((await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${a}`)).status).toBe(404);
      const ignition = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${b}/ignition`);
      expect(ignition.status).toBe(404);
      conforms('error', ignition.json);
    });

    it('answers 404 for hosts of a missing InfraEnv and 400 for a registration without host_id', async () => {
      const missing = crypto.randomUUID();
      expect(
        (await http('POST', `${f.h.api}/infra-envs/${missing}/hosts`, { host_id: crypto.randomUUID() })).status,
      ).toBe(404);
      const ie = await f.newInfraEnv();
      expect((await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, {})).status).toBe(400);
    });
  });

  describe(`host registration with a configured agent image on ${backend.name}`, () => {
    const f = useApi(backend, { agentImage: 'registry.example.test/agent:v9', runMonitor: false });

    it('hands the configured agent image to the next-step runner', async () => {
      const ie = await f.newInfraEnv();
      const hostId = crypto.randomUUID();
      const reg = await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, { host_id: hostId.toUpperCase() });
      expect(reg.status, reg.text).toBe(201);
      conforms('host_registration_response', reg.json);
      expect(reg.json.id).toBe(hostId);
      expect(JSON.parse(reg.json.next_step_runner_command.args[0])).toEqual({
        infra_env_id: ie.id,
        host_id: hostId,
        agent_version: 'registry.example.test/agent:v9',
      });
    });

    it.each([
      ['POST', 'hosts', '[]', 400, /request body must be a JSON object/],
      ['POST', 'hosts', { host_id: 'not-a-uuid' }, 400, /host_id is required and must be a UUID/],
      ['GET', 'hosts/not-a-uuid', undefined, 400, /./],
    ] as const)('%s %s %j → %i', async (method, tail, body, status, reason) => {
      const ie = await f.newInfraEnv();
      const r = await http(method, `${f.h.api}/infra-envs/${ie.id}/${tail}`, body);
      expect(r.status, r.text).toBe(status);
      conforms('error', r.json);
      expect(r.json.reason).toMatch(reason);
    });

    it("answers 404 for the hosts of a missing InfraEnv and for a registered host's ignition (no cluster)", async () => {
      expect((await http('GET', `${f.h.api}/infra-envs/${crypto.randomUUID()}/hosts`)).status).toBe(404);
      const ie = await f.newInfraEnv();
      const hostId = crypto.randomUUID();
      expect((await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, { host_id: hostId })).status).toBe(201);
      const ignition = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}/ignition`);
      expect(ignition.status).toBe(404);
      expect(ignition.json.reason).toMatch(/Cluster not found/);
    });
  });
}
