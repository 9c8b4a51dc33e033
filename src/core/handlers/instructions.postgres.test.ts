// GET|POST /v2/infra-envs/{id}/hosts/{host_id}/instructions (instructions.ts) over real HTTP on a
// real core: a scripted agent drives the unbound host state machine (discovering-unbound,
// known-unbound, disconnected-unbound by the monitor, back on the next heartbeat), and the error
// cases of the agent calls.
// Runs on the embedded PostgreSQL server, and on TEST_DATABASE_URL when it is set.
import { describe, expect, it } from 'vitest';
import { http, inventory } from '../test-support/harness.js';
import { backends } from '../../platform/db/test-support/backends.js';
import { conforms, useApi, waitFor } from '../test-support/api-fixture.js';

for (const backend of backends()) {
  describe(`agent instruction handlers on ${backend.name}`, () => {
    const f = useApi(backend);

    it('drives a scripted agent: register, poll, inventory, known, disconnected, back', async () => {
      const ie = await f.newInfraEnv();
      const hostId = crypto.randomUUID();
      const reg = await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, {
        host_id: hostId,
        discovery_agent_version: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
      });
      expect(reg.status, reg.text).toBe(201);
      conforms('host_registration_response', reg.json);
      expect(reg.json.status).toBe('discovering-unbound');
      expect(reg.json.status_info).toBe('Waiting for host to send hardware details');
      expect(JSON.parse(reg.json.next_step_runner_command.args[0])).toMatchObject({
        infra_env_id: ie.id,
        host_id: hostId,
      });

      const steps = await http(
        'GET',
        `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`,
      );
      expect(steps.status).toBe(200);
      conforms('steps', steps.json);
      expect(steps.json.next_instruction_seconds).toBe(60);
      const inv = steps.json.instructions.find((s: { step_type: string }) => s.step_type === 'inventory');
      expect(inv.args).toEqual([hostId]);

      const reply = await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}/instructions`, {
        step_type: 'inventory',
        step_id: inv.step_id,
        exit_code: 0,
        output: JSON.stringify(inventory({ mac: '52:54:00:aa:bb:01' })),
      });
      expect(reply.status, reply.text).toBe(204);

      const known = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}`);
      conforms('host', known.json);
      expect(known.json.status).toBe('known-unbound');
      expect(known.json.status_info).toBe('Host is ready to be bound to a cluster');
      const vi = JSON.parse(known.json.validations_info);
      expect(Object.keys(vi).sort()).toEqual(['hardware', 'network']);
      const all = [...vi.hardware, ...vi.network];
      for (const id of [
        'has-inventory',
        'has-min-cpu-cores',
        'has-min-memory',
        'has-min-valid-disks',
        'hostname-valid',
        'connected',
      ]) {
        expect(
          all.find((v: { id: string }) => v.id === id),
          id,
        ).toMatchObject({ status: 'success' });
      }

      // Agent stops polling → disconnected.
      const disc = await waitFor(
        () => http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}`),
        (r) => r.json.status === 'disconnected-unbound',
      );
      expect(disc.json.status).toBe('disconnected-unbound');
      expect(disc.json.status_info).toBe('Host has stopped communicating with the installation service');
      const vd = JSON.parse(disc.json.validations_info);
      expect(vd.network.find((v: { id: string }) => v.id === 'connected')).toMatchObject({
        status: 'failure',
        message: 'Host is disconnected',
      });
      const beat = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}/instructions`);
      expect(beat.status).toBe(200);
      conforms('steps', beat.json);

      // That heartbeat brought it back.
      const back = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}`);
      expect(back.json.status).toBe('known-unbound');

      const list = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts`);
      conforms('host-list', list.json);
      expect(list.json).toHaveLength(1);

      const ev = await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}&host_id=${hostId}`);
      expect(ev.status).toBe(200);
      conforms('event-list', ev.json);
      const messages = ev.json.map((e: { message: string }) => e.message);
      expect(messages).toContain(
        'Host worker-0.example.com: updated status from known-unbound to disconnected-unbound (Host has stopped communicating with the installation service)',
      );
      expect(messages.some((m: string) => m.endsWith('Successfully registered'))).toBe(true);
      expect(Number(ev.headers.get('event-count'))).toBe(ev.json.length);
      expect(Number(ev.headers.get('severity-count-warning'))).toBeGreaterThanOrEqual(1);
      const limited = await http(
        'GET',
        `${f.h.api}/events?infra_env_id=${ie.id}&limit=1&order=descending&severities=warning`,
      );
      expect(limited.json).toHaveLength(1);
      expect(limited.json[0].severity).toBe('warning');
    });

    it('answers 404 for instructions of a missing host and 400 for an unreadable step reply', async () => {
      const missing = crypto.randomUUID();
      const ie = await f.newInfraEnv();
      expect((await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${missing}/instructions`)).status).toBe(404);
      const hostId = crypto.randomUUID();
      await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, { host_id: hostId });
      expect(
        (
          await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}/instructions`, {
            step_type: 'inventory',
            exit_code: 0,
            output: '{bad',
          })
        ).status,
      ).toBe(400);
    });
  });
}
