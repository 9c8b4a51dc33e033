// /v2/infra-envs/{id}/hosts register, list, get, patch, delete, ignition, progress, logs-progress
// and actions/reset (hosts.ts) over real HTTP on a real core: unbound states and validations with
// upstream's messages (no hostname-unique for unbound hosts), install progress refused as upstream
// refuses it for unbound hosts, and the error cases of registration.
// Runs on the embedded PostgreSQL server, and on TEST_DATABASE_URL when it is set.
import { describe, expect, it } from 'vitest';
import { http, inventory } from '../test-support/harness.js';
import { backends } from '../../platform/db/test-support/backends.js';
import { conforms, frameworkError, useApi } from '../test-support/api-fixture.js';

for (const backend of backends()) {
  describe(`host handlers on ${backend.name}`, () => {
    const f = useApi(backend);

    it('marks a weak host insufficient-unbound with upstream messages; a duplicate name is no failure unbound', async () => {
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
      expect(weak.json.status).toBe('insufficient-unbound');
      // upstream's $FAILING_VALIDATIONS: the failure messages, sorted, joined with " ; "
      expect(weak.json.status_info).toBe(
        'Host does not meet the minimum hardware requirements: ' +
          [
            'No eligible disks were found, please check specific disks to see why they are not eligible',
            'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1',
            'The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB',
            'The host name localhost is forbidden',
          ].join(' ; '),
      );
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
      expect(hwa.find((v) => v.id === 'hostname-unique')).toBeUndefined(); // suppressed for unbound hosts
      const other = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${b}`);
      expect(other.json.status).toBe('known-unbound');
      expect(other.json.status_info).toBe('Host is ready to be bound to a cluster');
      expect((await http('PATCH', `${f.h.api}/infra-envs/${ie.id}/hosts/${a}`, { host_name: 'Bad_Name' })).status).toBe(
        400,
      );

      expect((await http('DELETE', `${f.h.api}/infra-envs/${ie.id}/hosts/${a}`)).status).toBe(204);
      expect((await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${a}`)).status).toBe(404);
      const ignition = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${b}/ignition`);
      expect(ignition.status).toBe(404);
      conforms('error', ignition.json);
    });

    it('answers 404 for hosts of a missing InfraEnv and 422 (602) for a registration without host_id', async () => {
      const missing = crypto.randomUUID();
      expect(
        (await http('POST', `${f.h.api}/infra-envs/${missing}/hosts`, { host_id: crypto.randomUUID() })).status,
      ).toBe(404);
      const ie = await f.newInfraEnv();
      const r = await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, {});
      expect(r.status).toBe(422);
      frameworkError(r.json, 602, /^host_id in body is required$/);
    });

    it('refuses install progress for unbound hosts as upstream does, records logs progress, resets only stuck hosts', async () => {
      const ie = await f.newInfraEnv();
      const hostId = crypto.randomUUID();
      const base = `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}`;
      expect((await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, { host_id: hostId })).status).toBe(201);
      const progress = await http('PUT', `${base}/progress`, { current_stage: 'Installing' });
      expect(progress.status).toBe(400);
      conforms('error', progress.json);
      expect(progress.json.reason).toBe(`host ${hostId} is not bound to any cluster, cannot update progress`);
      const badStage = await http('PUT', `${base}/progress`, { current_stage: 'Flying' });
      expect(badStage.status).toBe(422);
      frameworkError(badStage.json, 606, /^current_stage in body should be one of \[Starting installation /);
      const noHost = await http('PUT', `${f.h.api}/infra-envs/${ie.id}/hosts/${crypto.randomUUID()}/progress`, {
        current_stage: 'Done',
      });
      expect(noHost.status).toBe(404);
      const after = await http('GET', base);
      expect(after.json.status).toBe('discovering-unbound'); // nothing changed
      expect(after.json).not.toHaveProperty('progress');

      expect(after.json.logs_info).toBe('');
      const logs = await http('PUT', `${base}/logs-progress`, { logs_state: 'requested' });
      expect(logs.status, logs.text).toBe(204);
      const withLogs = await http('GET', base);
      conforms('host', withLogs.json);
      expect(withLogs.json.logs_info).toBe('requested');
      expect(Date.parse(withLogs.json.logs_started_at)).toBeGreaterThan(0);
      expect((await http('PUT', `${base}/logs-progress`, { logs_state: 'completed' })).status).toBe(204);
      expect((await http('GET', base)).json.logs_info).toBe('completed');
      const badLogs = await http('PUT', `${base}/logs-progress`, {});
      expect(badLogs.status).toBe(422);
      frameworkError(badLogs.json, 602, /^logs_state in body is required$/);

      const reset = await http('POST', `${base}/actions/reset`);
      expect(reset.status).toBe(409);
      conforms('error', reset.json);
      expect(reset.json.reason).toBe('method only allowed when adding hosts to an existing cluster');

      // a host an earlier release left installing (it accepted progress for unbound hosts) is reset
      const pg = (await import('pg')).default;
      const sql = new pg.Client({ connectionString: f.storage.databaseUrl });
      await sql.connect();
      try {
        await sql.query(
          `UPDATE hosts SET status = 'installing-in-progress', status_info = 'Installing', progress = $3 WHERE infra_env_id = $1 AND id = $2`,
          [ie.id, hostId, JSON.stringify({ current_stage: 'Installing' })],
        );
      } finally {
        await sql.end();
      }
      const stuck = await http('POST', `${base}/actions/reset`);
      expect(stuck.status, stuck.text).toBe(200);
      conforms('host', stuck.json);
      expect(stuck.json.status).toBe('discovering-unbound');
      expect(stuck.json).not.toHaveProperty('progress');
      const ev = await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}&host_id=${hostId}`);
      expect(ev.json.map((e: { message: string }) => e.message)).toContain(
        `Host ${hostId}: updated status from installing-in-progress to discovering-unbound (Waiting for host to send hardware details)`,
      );
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
      ['POST', 'hosts', '[]', 400, 400, /cannot unmarshal array into Go value of type models.HostCreateParams/],
      ['POST', 'hosts', { host_id: 'not-a-uuid' }, 422, 601, /^host_id in body must be of type uuid: "not-a-uuid"$/],
      ['GET', 'hosts/not-a-uuid', undefined, 422, 601, /^host_id in path must be of type strfmt.UUID/],
    ] as const)('%s %s %j → %i', async (method, tail, body, status, code, message) => {
      const ie = await f.newInfraEnv();
      const r = await http(method, `${f.h.api}/infra-envs/${ie.id}/${tail}`, body);
      expect(r.status, r.text).toBe(status);
      frameworkError(r.json, code, message);
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
