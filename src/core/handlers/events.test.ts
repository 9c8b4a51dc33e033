// GET /v2/events (events.ts) over real HTTP on a real core: filters by InfraEnv and host(s),
// order, paging, message, the Event-Count and Severity-Count-* headers, and bad parameters.
// Events come from real actions (creating an InfraEnv, registering hosts), not from inserts.
// Runs on the embedded PostgreSQL server, and on TEST_DATABASE_URL when it is set.
import { describe, expect, it } from 'vitest';
import { backends, http } from '../test-support/harness.js';
import { conforms, useApi } from './test-support/api-fixture.js';

interface Ev {
  name: string;
  infra_env_id?: string;
  host_id?: string;
  severity: string;
  message: string;
  event_time: string;
}

for (const backend of backends()) {
  describe(`event handler on ${backend.name}`, () => {
    const f = useApi(backend);

    async function infraEnvWithHosts(n: number) {
      const ie = await f.newInfraEnv();
      const hosts: string[] = [];
      for (let i = 0; i < n; i++) {
        const id = crypto.randomUUID();
        expect((await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, { host_id: id })).status).toBe(201);
        hosts.push(id);
      }
      return { ie, hosts };
    }

    it("lists an InfraEnv's events only, with counts in the headers", async () => {
      const { ie, hosts } = await infraEnvWithHosts(2);
      const other = await infraEnvWithHosts(1);
      const r = await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}`);
      expect(r.status).toBe(200);
      conforms('event-list', r.json);
      const events = r.json as Ev[];
      expect(events.every((e) => e.infra_env_id === ie.id)).toBe(true);
      for (const host of hosts) {
        expect(
          events.some((e) => e.host_id === host && e.message.endsWith('Successfully registered')),
          host,
        ).toBe(true);
      }
      expect(events.some((e) => e.host_id === other.hosts[0])).toBe(false);
      expect(Number(r.headers.get('event-count'))).toBe(events.length);
      const bySeverity = ['info', 'warning', 'error', 'critical'].map((s) =>
        Number(r.headers.get(`severity-count-${s}`)),
      );
      expect(bySeverity.reduce((a, b) => a + b, 0)).toBe(events.length);
      expect(bySeverity[0]).toBe(events.filter((e) => e.severity === 'info').length);
    });

    it('filters by host_id and host_ids, and orders and pages as asked', async () => {
      const { ie, hosts } = await infraEnvWithHosts(3);
      const one = (await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}&host_id=${hosts[0]}`)).json as Ev[];
      expect(one.length).toBeGreaterThan(0);
      expect(one.every((e) => e.host_id === hosts[0])).toBe(true);
      const two = (await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}&host_ids=${hosts[1]},${hosts[2]}`))
        .json as Ev[];
      expect(new Set(two.map((e) => e.host_id))).toEqual(new Set([hosts[1], hosts[2]]));

      const ascending = (await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}`)).json as Ev[];
      const descending = (await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}&order=descending`)).json as Ev[];
      expect(descending).toEqual([...ascending].reverse());
      const page = await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}&limit=1&offset=1`);
      expect(page.json).toEqual(ascending.slice(1, 2));
      expect(Number(page.headers.get('event-count'))).toBe(ascending.length); // before limit/offset
    });

    it('matches message as a literal, case-insensitive substring', async () => {
      const { ie } = await infraEnvWithHosts(1);
      const hits = (await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}&message=SUCCESSFULLY%20REGISTERED`))
        .json as Ev[];
      expect(hits.length).toBe(1);
      expect(hits[0]!.message).toMatch(/Successfully registered$/);
      // LIKE wildcards in the filter are plain characters
      expect((await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}&message=%25`)).json).toEqual([]);
      expect((await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}&message=_`)).json).toEqual([]);
    });

    it.each([
      ['severities=loud', /unknown severity/],
      ['order=sideways', /order must be ascending or descending/],
      ['infra_env_id=not-a-uuid', /infra_env_id must be a UUID/],
      ['host_id=42', /host_id must be a UUID/],
    ])('answers 400 for %s', async (query, reason) => {
      const r = await http('GET', `${f.h.api}/events?${query}`);
      expect(r.status).toBe(400);
      conforms('error', r.json);
      expect(r.json.reason).toMatch(reason);
    });
  });
}
