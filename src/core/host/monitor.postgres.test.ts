// The host monitor at a scale that needs several batches, on a fake clock (the core's injected
// `now`): time moves only when the test moves it, so whether a host is past
// HOST_MAX_DISCONNECTION is decided by the test, not by how fast a loaded machine runs it. Every
// silent host turns disconnected-unbound, a host that checked in recently stays as it is, a
// disconnected host comes back on its next heartbeat, and once the clock passes its limit too it
// goes. The monitor's own timer runs for real (every 100 ms); the test waits for its passes with
// a generous bound. On the embedded server, and on TEST_DATABASE_URL when set.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, PULL_SECRET, startHarness, type Harness } from '../test-support/harness.js';
import { backends } from '../../platform/db/test-support/backends.js';

const HOSTS = 250; // more than two monitor batches of 100
const MAX_DISCONNECTION_MS = 180_000; // the default HOST_MAX_DISCONNECTION
/** Bound on waiting for the monitor's passes (every 100 ms) on a loaded two-core machine. */
const PASSES_BOUND_MS = 30_000;
const T0 = Date.parse('2026-05-01T00:00:00Z');

for (const backend of backends()) {
  describe(`host monitor on ${backend.name}`, () => {
    let h: Harness;
    let cleanup: () => Promise<void>;
    let clock = T0;
    beforeAll(async () => {
      const storage = await backend.create();
      cleanup = storage.cleanup;
      h = await startHarness(storage, {
        hostMaxDisconnectionMs: MAX_DISCONNECTION_MS,
        monitorIntervalMs: 100,
        now: () => new Date(clock),
      });
    });
    afterAll(async () => {
      await h?.close();
      await cleanup?.();
    });

    /** Host statuses, counted, once the monitor's passes have brought them to `expected` (or the bound ran out). */
    async function statusesOnceSettled(
      hosts: string,
      expected: Record<string, number>,
    ): Promise<Record<string, number>> {
      const deadline = Date.now() + PASSES_BOUND_MS;
      let statuses: Record<string, number> = {};
      for (;;) {
        const list = await http('GET', hosts);
        statuses = {};
        for (const host of list.json as Array<{ status: string }>)
          statuses[host.status] = (statuses[host.status] ?? 0) + 1;
        if (JSON.stringify(statuses) === JSON.stringify(expected) || Date.now() > deadline) return statuses;
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    it(`disconnects ${HOSTS} silent hosts (more than one monitor batch) and leaves a recent one alone`, async () => {
      const ie = await http('POST', `${h.api}/infra-envs`, {
        name: 'many',
        pull_secret: PULL_SECRET,
        openshift_version: '4.16',
      });
      expect(ie.status, ie.text).toBe(201);
      const hosts = `${h.api}/infra-envs/${ie.json.id}/hosts`;
      const ids = Array.from({ length: HOSTS }, () => randomUUID());
      for (const id of ids) expect((await http('POST', hosts, { host_id: id })).status).toBe(201);
      const [recent, silent] = ids as [string, string];

      // Half the limit later the recent host checks in; then the clock passes the others' limit by a second.
      clock = T0 + MAX_DISCONNECTION_MS / 2;
      expect((await http('GET', `${hosts}/${recent}/instructions`)).status).toBe(200);
      clock = T0 + MAX_DISCONNECTION_MS + 1_000;
      const expected = { 'disconnected-unbound': HOSTS - 1, 'discovering-unbound': 1 };
      expect(await statusesOnceSettled(hosts, expected)).toEqual(expected);
      expect((await http('GET', `${hosts}/${recent}`)).json.status).toBe('discovering-unbound');

      // A disconnected host's heartbeat brings it back at once.
      await http('GET', `${hosts}/${silent}/instructions`);
      expect((await http('GET', `${hosts}/${silent}`)).json.status).toBe('discovering-unbound');

      // Past the limit of the last check-ins, every host goes.
      clock += MAX_DISCONNECTION_MS + 1;
      const all = { 'disconnected-unbound': HOSTS };
      expect(await statusesOnceSettled(hosts, all)).toEqual(all);
    });
  });
}
