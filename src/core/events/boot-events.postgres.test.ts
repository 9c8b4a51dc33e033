// Boot events through one all-in-one service on real PostgreSQL: a 1,000-request range storm
// over loopback from one address yields exactly one "Discovery ISO requested" event, a second
// address a second; the PXE initrd, kernel and rootfs URLs of the iPXE script each yield one;
// the 10-minute window is checked with the injected clock; User-Agent text is cleaned and capped.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_USER_AGENT_CHARS } from '../../image-ports/boot-event-observer.js';
import { type AllInOne, API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../../test/support/all-in-one.js';

interface EventJson {
  name: string;
  message: string;
  infra_env_id?: string;
}

const STORM_REQUESTS = 1_000;
const STORM_CLIENTS = 8;

/** One request from `localAddress` (127.0.0.0/8 is all loopback on Linux), body drained. */
function get(
  url: string,
  options: { method?: string; headers?: Record<string, string>; localAddress?: string; agent?: http.Agent } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        ...(options.agent ? { agent: options.agent } : {}),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${url} within 30 s`)));
    req.on('error', reject);
    req.end();
  });
}

describe('boot events', () => {
  let s: AllInOne;
  beforeAll(async () => {
    s = await startAllInOne();
  }, 60_000);
  afterAll(() => s?.close());

  const create = async (): Promise<{ id: string; download_url: string }> => {
    const res = await s.call('POST', `${API}/infra-envs`, {
      name: 'rack',
      pull_secret: PULL_SECRET,
      openshift_version: DEMO_VERSION,
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; download_url: string };
  };
  const bootEvents = async (id: string): Promise<EventJson[]> => {
    const res = await s.call('GET', `${API}/events?infra_env_id=${id}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as EventJson[]).filter((e) => e.name !== 'infra_env_registered');
  };
  /** Polls until `n` boot events exist (bounded), then once more after a pause so a late extra shows. */
  const settle = async (id: string, n: number, waitMs = 10_000): Promise<EventJson[]> => {
    const deadline = Date.now() + waitMs;
    while ((await bootEvents(id)).length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    return bootEvents(id);
  };

  it('records one event for a 1,000-request range storm from one address, and one per further address', async () => {
    const ie = await create();
    const agent = new http.Agent({ keepAlive: true, maxSockets: STORM_CLIENTS });
    let next = 0;
    const statuses = new Map<number, number>();
    const client = async () => {
      while (next < STORM_REQUESTS) {
        const i = next++;
        const start = (i * 65_536) % (1024 * 1024);
        const status = await get(ie.download_url, {
          headers: { Range: `bytes=${start}-${start + 4095}`, 'User-Agent': 'iDRAC-VirtualMedia/7.0' },
          localAddress: '127.0.0.1',
          agent,
        });
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: STORM_CLIENTS }, client));
    agent.destroy();
    expect(statuses).toEqual(new Map([[206, STORM_REQUESTS]]));
    const afterStorm = await settle(ie.id, 1);
    expect(afterStorm).toHaveLength(1);
    expect(afterStorm[0]).toMatchObject({
      name: 'discovery_image_requested',
      infra_env_id: ie.id,
      message: 'Discovery ISO requested by 127.0.0.1 (virtual media, User-Agent iDRAC-VirtualMedia/7.0)',
    });

    expect(await get(ie.download_url, { method: 'HEAD', localAddress: '127.0.0.2' })).toBe(200);
    expect(await get(ie.download_url, { localAddress: '127.0.0.2', headers: { Range: 'bytes=0-1' } })).toBe(206);
    const second = await settle(ie.id, 2);
    expect(second.map((e) => e.message).sort()).toEqual([
      'Discovery ISO requested by 127.0.0.1 (virtual media, User-Agent iDRAC-VirtualMedia/7.0)',
      'Discovery ISO requested by 127.0.0.2 (virtual media, no User-Agent)',
    ]);

    // a full GET is a download; the User-Agent loses its controls (tab and C1 are what HTTP lets through) and is capped
    const hostile = `curl/8\tX\u0085Y\u009b${'A'.repeat(1000)}`;
    expect(await get(ie.download_url, { localAddress: '127.0.0.3', headers: { 'User-Agent': hostile } })).toBe(200);
    const third = (await settle(ie.id, 3)).find((e) => e.message.includes('127.0.0.3'))!;
    expect(third.message.startsWith('Discovery ISO requested by 127.0.0.3 (download, User-Agent curl/8XYAAA')).toBe(
      true,
    );
    expect(third.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(third.message.endsWith('A…)')).toBe(true);
    expect(third.message.length).toBeLessThan(80 + MAX_USER_AGENT_CHARS);
  }, 120_000);

  it('records the PXE initrd, kernel and rootfs of the iPXE script once each per address', async () => {
    const ie = await create();
    const script = await (
      await s.call('GET', `${API}/infra-envs/${ie.id}/downloads/files?file_name=ipxe-script`)
    ).text();
    const initrd = /^initrd --name initrd (\S+)/m.exec(script)![1]!;
    const kernel = /^kernel (\S+)/m.exec(script)![1]!;
    const rootfs = /coreos\.live\.rootfs_url=(\S+)/.exec(script)![1]!;
    expect(new URL(kernel).searchParams.get('infra_env_id')).toBe(ie.id);
    expect(new URL(rootfs).searchParams.get('infra_env_id')).toBe(ie.id);
    for (let i = 0; i < 3; i++) {
      for (const url of [initrd, kernel, rootfs])
        expect(await get(url, { headers: { 'User-Agent': 'iPXE/1.21.1' } })).toBe(200);
    }
    const events = await settle(ie.id, 3);
    expect(events.map((e) => `${e.name}: ${e.message}`).sort()).toEqual([
      'pxe_artifact_fetched: PXE initrd fetched by 127.0.0.1 (download, User-Agent iPXE/1.21.1)',
      'pxe_artifact_fetched: PXE kernel fetched by 127.0.0.1 (download, User-Agent iPXE/1.21.1)',
      'pxe_artifact_fetched: rootfs fetched by 127.0.0.1 (download, User-Agent iPXE/1.21.1)',
    ]);
  });

  it('serves kernel and rootfs without infra_env_id, or naming no InfraEnv, and records nothing then', async () => {
    const ie = await create();
    const base = `${s.service.url}/boot-artifacts`;
    const stranger = '5f0c2f5e-7c8d-4e6f-9a1b-2c3d4e5f6a7b';
    for (const url of [
      `${base}/kernel?version=4.17&arch=x86_64`,
      `${base}/rootfs?version=4.17&arch=x86_64&infra_env_id=not-a-uuid`,
      `${base}/kernel?version=4.17&arch=x86_64&infra_env_id=${stranger}`,
    ])
      expect(await get(url, { localAddress: '127.0.0.4' })).toBe(200);
    expect(
      await get(`${base}/kernel?version=4.17&arch=x86_64&infra_env_id=${ie.id}`, { localAddress: '127.0.0.4' }),
    ).toBe(200);
    const events = await settle(ie.id, 1);
    expect(events.map((e) => e.message)).toEqual(['PXE kernel fetched by 127.0.0.4 (download, no User-Agent)']);
    const all = (await (await s.call('GET', `${API}/events`)).json()) as EventJson[];
    expect(all.filter((e) => e.infra_env_id === stranger)).toEqual([]);
  });

  it('records the same address and artifact again only after 10 minutes (injected clock)', async () => {
    const ie = await create();
    const fetchIso = () => get(ie.download_url, { method: 'HEAD', localAddress: '127.0.0.5' });
    expect(await fetchIso()).toBe(200);
    expect(await settle(ie.id, 1)).toHaveLength(1);
    s.clock.advance(10 * 60_000 - 1000);
    expect(await fetchIso()).toBe(200);
    expect(await settle(ie.id, 2, 1000)).toHaveLength(1);
    s.clock.advance(1000);
    expect(await fetchIso()).toBe(200);
    expect(await fetchIso()).toBe(200);
    expect(await settle(ie.id, 2)).toHaveLength(2);
  });
});
