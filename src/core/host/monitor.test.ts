// The host monitor at a scale that needs several batches: every silent host turns
// disconnected-unbound, hosts that keep checking in stay as they are, and a disconnected host comes
// back on its next heartbeat. On the embedded server, and on TEST_DATABASE_URL when set.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, http, PULL_SECRET, startHarness, type Harness } from '../test-support/harness.js';

const HOSTS = 250; // more than two monitor batches of 100

for (const backend of backends()) {
  describe(`host monitor on ${backend.name}`, () => {
    let h: Harness;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      const storage = await backend.create();
      cleanup = storage.cleanup;
      h = await startHarness(storage, { hostMaxDisconnectionMs: 2_000, monitorIntervalMs: 100 });
    });
    afterAll(async () => {
      await h?.close();
      await cleanup?.();
    });

    it(`disconnects ${HOSTS} silent hosts (more than one monitor batch) and leaves a polling host alone`, async () => {
      const ie = await http('POST', `${h.api}/infra-envs`, {
        name: 'many',
        pull_secret: PULL_SECRET,
        openshift_version: '4.16',
      });
      expect(ie.status, ie.text).toBe(201);
      const hosts = `${h.api}/infra-envs/${ie.json.id}/hosts`;
      const ids = Array.from({ length: HOSTS }, () => randomUUID());
      for (const id of ids) expect((await http('POST', hosts, { host_id: id })).status).toBe(201);
      const [polling] = ids as [string];

      const deadline = Date.now() + 30_000;
      let statuses: Record<string, number> = {};
      while (Date.now() < deadline) {
        await http('GET', `${hosts}/${polling}/instructions`); // this agent keeps checking in
        const list = await http('GET', hosts);
        statuses = {};
        for (const host of list.json as Array<{ status: string }>)
          statuses[host.status] = (statuses[host.status] ?? 0) + 1;
        if (statuses['disconnected-unbound'] === HOSTS - 1) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(statuses).toEqual({ 'disconnected-unbound': HOSTS - 1, 'discovering-unbound': 1 });

      const silent = ids[1]!;
      await http('GET', `${hosts}/${silent}/instructions`);
      expect((await http('GET', `${hosts}/${silent}`)).json.status).toBe('discovering-unbound');
    });
  });
}
