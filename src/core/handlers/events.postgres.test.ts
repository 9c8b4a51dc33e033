// GET /v2/events (events.ts) over real HTTP on a real core: filters by InfraEnv and host(s),
// order, paging, message, the Event-Count and Severity-Count-* headers, and bad parameters;
// POST /v2/events (v2TriggerEvent): agent events land in the listing, bad bodies are refused.
// Events come from real actions (creating an InfraEnv, registering hosts), not from inserts.
// Runs on the embedded PostgreSQL server, and on TEST_DATABASE_URL when it is set.
import { describe, expect, it } from 'vitest';
import { http } from '../test-support/harness.js';
import { backends } from '../../platform/db/test-support/backends.js';
import { conforms, frameworkError, useApi } from '../test-support/api-fixture.js';

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
      ['severities=loud', 606, /^severities.0 in query should be one of \[info warning error critical\]$/],
      ['order=sideways', 606, /^order in query should be one of \[ascending descending\]$/],
      ['infra_env_id=not-a-uuid', 601, /^infra_env_id in query must be of type strfmt.UUID: "not-a-uuid"$/],
      ['host_id=42', 601, /^host_ids.0 in query must be of type strfmt.UUID: "42"$/],
      ['limit=ten', 601, /^limit in query must be of type int64: "ten"$/],
    ])('answers 422 for %s, as upstream binds the query', async (query, code, message) => {
      const r = await http('GET', `${f.h.api}/events?${query}`);
      expect(r.status).toBe(422);
      frameworkError(r.json, code, message);
    });

    it('v2TriggerEvent: an agent event lands in the events API; metrics events are not listed; bad bodies refused', async () => {
      const { ie, hosts } = await infraEnvWithHosts(1);
      const before = Number((await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}`)).headers.get('event-count'));
      const created = await http('POST', `${f.h.api}/events`, {
        name: 'host_agent_custom',
        infra_env_id: ie.id,
        host_id: hosts[0],
        severity: 'warning',
        category: 'user',
        message: 'agent: disk sda is slow',
        event_time: '2020-01-01T00:00:00.000Z', // upstream stamps the server's time
        props: '{"disk":"sda"}',
        some_future_field: true,
      });
      expect(created.status, created.text).toBe(201);
      expect(created.text).toBe('');
      const metrics = await http('POST', `${f.h.api}/events`, {
        infra_env_id: ie.id,
        severity: 'info',
        category: 'metrics',
        message: 'metric',
        event_time: new Date().toISOString(),
      });
      expect(metrics.status).toBe(201);
      const list = await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}&host_id=${hosts[0]}&severities=warning`);
      conforms('event-list', list.json);
      const mine = (list.json as (Ev & { props?: string })[]).find((e) => e.name === 'host_agent_custom');
      expect(mine).toMatchObject({ message: 'agent: disk sda is slow', severity: 'warning', props: '{"disk":"sda"}' });
      expect(Date.parse(mine!.event_time)).toBeGreaterThan(Date.parse('2021-01-01T00:00:00Z'));
      const after = await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}`);
      expect(Number(after.headers.get('event-count'))).toBe(before + 1);

      const bad: [unknown, number, number, RegExp][] = [
        [{ severity: 'info', event_time: '2024-01-01T00:00:00Z' }, 422, 602, /^message in body is required$/],
        [{ severity: 'loud', message: 'm', event_time: '2024-01-01T00:00:00Z' }, 422, 606, /^severity in body/],
        [{ severity: 'info', message: 'm', event_time: 'yesterday' }, 400, 400, /parsing triggerEventParams body/],
        [
          { severity: 'info', message: 'm', event_time: '2024-01-01T00:00:00Z', infra_env_id: 'x' },
          422,
          601,
          /^infra_env_id in body must be of type uuid: "x"$/,
        ],
      ];
      for (const [body, status, code, message] of bad) {
        const r = await http('POST', `${f.h.api}/events`, body);
        expect(r.status, JSON.stringify(body)).toBe(status);
        frameworkError(r.json, code, message);
      }
      const tooLong = await http('POST', `${f.h.api}/events`, {
        infra_env_id: ie.id,
        severity: 'info',
        message: 'x'.repeat(4097),
        event_time: '2024-01-01T00:00:00Z',
      });
      expect(tooLong.status).toBe(400);
      conforms('error', tooLong.json);
      expect(Number((await http('GET', `${f.h.api}/events?infra_env_id=${ie.id}`)).headers.get('event-count'))).toBe(
        before + 1,
      );
    });
  });

  describe(`event bounds on ${backend.name}`, () => {
    // small limits so a flood is a few dozen requests
    const f = useApi(backend, {
      runMonitor: false,
      events: {
        perHostPerMinute: 5,
        perInfraEnvPerMinute: 8,
        bytesPerHostPerMinute: 64 * 1024,
        bytesPerInfraEnvPerMinute: 1024 * 1024,
        maxPage: 150,
      },
    });
    const post = (body: Record<string, unknown>) =>
      http('POST', `${f.h.api}/events`, {
        severity: 'info',
        message: 'm',
        event_time: new Date().toISOString(),
        ...body,
      });
    const count = async (infraEnvId: string) =>
      Number((await http('GET', `${f.h.api}/events?infra_env_id=${infraEnvId}&limit=0`)).headers.get('event-count'));

    it('refuses a flood per host and per InfraEnv with 429, Retry-After and the limit named, storing none of it', async () => {
      const ie = await f.newInfraEnv();
      const before = await count(ie.id);
      const [h1, h2] = [crypto.randomUUID(), crypto.randomUUID()];
      for (let i = 0; i < 5; i++)
        expect((await post({ infra_env_id: ie.id, host_id: h1, name: 'flood' })).status).toBe(201);
      const refused = await post({ infra_env_id: ie.id, host_id: h1, name: 'flood' });
      expect(refused.status).toBe(429);
      conforms('error', refused.json);
      expect(refused.json.reason).toMatch(
        /^too many events for host .*: EVENTS_PER_HOST_PER_MINUTE is 5; retry in \d+ s$/,
      );
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // another host of the same InfraEnv has its own share, until the InfraEnv's is gone
      for (let i = 0; i < 3; i++) expect((await post({ infra_env_id: ie.id, host_id: h2 })).status).toBe(201);
      const full = await post({ infra_env_id: ie.id, host_id: crypto.randomUUID() });
      expect(full.status).toBe(429);
      expect(full.json.reason).toMatch(/EVENTS_PER_INFRA_ENV_PER_MINUTE is 8/);
      expect(await count(ie.id)).toBe(before + 8);
      // another InfraEnv is not affected
      const other = await f.newInfraEnv();
      expect((await post({ infra_env_id: other.id, host_id: crypto.randomUUID() })).status).toBe(201);
    });

    it('refuses events of an InfraEnv that does not exist (404)', async () => {
      const r = await post({ infra_env_id: crypto.randomUUID() });
      expect(r.status).toBe(404);
      conforms('error', r.json);
    });

    it('drops events EVENT_RATE_LIMITS limits, as upstream (201, not stored)', async () => {
      const ie = await f.newInfraEnv();
      const host = crypto.randomUUID();
      const before = await count(ie.id);
      for (let i = 0; i < 3; i++)
        expect((await post({ infra_env_id: ie.id, host_id: host, name: 'upgrade_agent_failed' })).status).toBe(201);
      expect(await count(ie.id)).toBe(before + 1);
      // per entity: another host's first one is kept
      expect(
        (await post({ infra_env_id: ie.id, host_id: crypto.randomUUID(), name: 'upgrade_agent_failed' })).status,
      ).toBe(201);
      expect(await count(ie.id)).toBe(before + 2);
    });
  });

  describe(`event listing bounds on ${backend.name}`, () => {
    const f = useApi(backend, {
      runMonitor: false,
      events: { perHostPerMinute: 10_000, perInfraEnvPerMinute: 10_000, maxPage: 150 },
    });

    it('caps limit at EVENTS_MAX_PAGE (-1 and larger included), streams across batches and pages with offset', async () => {
      const ie = await f.newInfraEnv();
      const host = crypto.randomUUID();
      for (let i = 0; i < 260; i++) {
        const r = await http('POST', `${f.h.api}/events`, {
          infra_env_id: ie.id,
          host_id: host,
          severity: i % 10 === 0 ? 'warning' : 'info',
          message: `agent event ${i}`,
          event_time: new Date().toISOString(),
        });
        expect(r.status).toBe(201);
      }
      const url = (q: string) => `${f.h.api}/events?infra_env_id=${ie.id}${q}`;
      const total = Number((await http('GET', url('&limit=0'))).headers.get('event-count'));
      expect(total).toBeGreaterThan(260);
      for (const q of ['', '&limit=-1', '&limit=-5', '&limit=100000', '&limit=9223372036854775807']) {
        const r = await http('GET', url(q));
        expect(r.status, q).toBe(200);
        expect(r.json, q).toHaveLength(150);
        expect(Number(r.headers.get('event-count')), q).toBe(total);
      }
      // the pages, concatenated, are the whole listing in order, each event once
      const pages: Ev[] = [];
      for (let offset = 0; offset < total; offset += 150)
        pages.push(...((await http('GET', url(`&offset=${offset}`))).json as Ev[]));
      expect(pages).toHaveLength(total);
      const messages = pages.filter((e) => e.message.startsWith('agent event ')).map((e) => e.message);
      expect(messages).toEqual(Array.from({ length: 260 }, (_, i) => `agent event ${i}`));
      const descending = (await http('GET', url('&order=descending&limit=120'))).json as Ev[];
      expect(descending.map((e) => e.message)).toEqual(
        [...pages]
          .reverse()
          .slice(0, 120)
          .map((e) => e.message),
      );
      const warnings = (await http('GET', url('&severities=warning&limit=-1'))).json as Ev[];
      expect(warnings).toHaveLength(26);
      conforms('event-list', warnings);
    });
  });
}
