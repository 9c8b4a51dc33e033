// What a start with the defaults hands out and exposes, through the real all-in-one service
// (src/service.ts with src/startup/): on every address the URLs carry this host's routable
// address and work from it; with no address to put in them the start is refused with what to
// set, and the port is released; AUTH_TYPE=local is the default and an unauthenticated client
// gets no pull secret; AUTH_TYPE=none beyond loopback and loopback URLs are warnings in the
// log, /health and the console's settings.
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.js';
import { type HostNetwork, readHostNetwork } from './startup/host-routes.js';
import { chooseAddress } from './startup/routable-address.js';
import { API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../test/support/all-in-one.js';
import { unavailable } from '../test/support/requirements.js';
import { freePort } from '../test/support/serve-child.js';

const LOOPBACK_ONLY: HostNetwork = {
  routes: [],
  interfaces: { lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }] },
};
const THIS_HOST = chooseAddress('0.0.0.0', await readHostNetwork());

async function health(url: string): Promise<{ warnings: string[] }> {
  return (await (await fetch(`${url}/health`)).json()) as { warnings: string[] };
}

async function settings(url: string): Promise<{ auth_type: string; warnings: string[] }> {
  return (await (await fetch(`${url}/console/settings.json`)).json()) as { auth_type: string; warnings: string[] };
}

describe.skipIf(unavailable({ 'a routable (non-loopback) address on this machine': THIS_HOST.kind === 'chosen' }))(
  'the defaults on every address',
  () => {
    it('hand out URLs on the routable address that work from it, require the admin token, and warn about nothing', async () => {
      const address = THIS_HOST.kind === 'chosen' ? THIS_HOST.address : '';
      // AUTH_TYPE is the default here (local): the harness's explicit none is unset
      const s = await startAllInOne({ LISTEN_ADDRESS: '0.0.0.0', AUTH_TYPE: '' });
      try {
        const port = new URL(s.service.url).port;
        const host = address.includes(':') ? `[${address}]` : address;
        expect(s.service.imageServiceBaseUrl).toBe(`http://${host}:${port}`);
        expect(s.service.serviceBaseUrl).toBe(`http://${host}:${port}`);
        expect(s.service.warnings).toEqual([]);
        expect((await health(s.service.url)).warnings).toEqual([]);
        expect(s.logs.join('')).toContain(`use ${address}, `);

        // no credential, on the routable address: nothing, and no pull secret
        const remote = `http://${host}:${port}`;
        expect((await fetch(`${remote}${API}/infra-envs`)).status).toBe(401);
        const admin = (await readFile(`${s.dir}/auth/admin-token`, 'utf8')).trim();
        const created = await fetch(`${remote}${API}/infra-envs`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'lab', pull_secret: PULL_SECRET, openshift_version: DEMO_VERSION }),
        });
        expect(created.status).toBe(201);
        const ie = (await created.json()) as { id: string; download_url: string };
        expect(ie.download_url.startsWith(`${remote}/bytoken/`)).toBe(true);
        expect((await fetch(ie.download_url, { method: 'HEAD' })).status).toBe(200);
        for (const p of [
          `${API}/infra-envs/${ie.id}`,
          `${API}/infra-envs/${ie.id}/downloads/files?file_name=discovery.ign`,
          `/byid/${ie.id}/${DEMO_VERSION}/x86_64/full.iso`,
          `/images/${ie.id}?version=${DEMO_VERSION}&type=full-iso`,
          `/images/${ie.id}/pxe-initrd?version=${DEMO_VERSION}`,
        ]) {
          const r = await fetch(remote + p);
          const body = await r.text();
          expect(r.status, p).toBe(401);
          expect(body).not.toContain('dXNlcjpwYXNz');
        }
      } finally {
        await s.close();
      }
    });
  },
);

describe('reachable URLs and warnings', () => {
  it('refuses to start, naming what to set, when no address can be handed out; the port is released', async () => {
    const port = await freePort();
    const start = startAllInOne(
      { LISTEN_ADDRESS: '0.0.0.0', LISTEN_PORT: String(port) },
      { hostNetwork: LOOPBACK_ONLY },
    );
    await expect(start).rejects.toThrow(ConfigError);
    await expect(start).rejects.toThrow(
      `LISTEN_ADDRESS is 0.0.0.0 (every address) but this host has no address other than loopback and link-local ones: set IMAGE_SERVICE_BASE_URL and SERVICE_BASE_URL to the URL BMCs and booted hosts reach this service on (e.g. http://<this host's address>:${port}), or set LISTEN_ADDRESS to that address`,
    );
    const again = net.createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(port, '0.0.0.0', resolve);
    });
    await new Promise((resolve) => again.close(resolve));
  });

  it('uses the default route interface of the host network it is given', async () => {
    const s = await startAllInOne(
      { LISTEN_ADDRESS: '0.0.0.0', AUTH_TYPE: 'local' },
      {
        hostNetwork: {
          routes: [{ iface: 'eth7', family: 4, metric: 0 }],
          interfaces: {
            lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
            eth7: [{ address: '203.0.113.7', family: 'IPv4', internal: false }],
            eth8: [{ address: '198.51.100.8', family: 'IPv4', internal: false }],
          },
        },
      },
    );
    try {
      const port = new URL(s.service.url).port;
      const created = (await (
        await s.call('POST', `${API}/infra-envs`, {
          name: 'x',
          pull_secret: PULL_SECRET,
          openshift_version: DEMO_VERSION,
        })
      ).json()) as { id: string; download_url: string };
      expect(created.download_url.startsWith(`http://203.0.113.7:${port}/bytoken/`)).toBe(true);
      const ignition = await (
        await s.call('GET', `${API}/infra-envs/${created.id}/downloads/files?file_name=discovery.ign`)
      ).text();
      expect(ignition).toContain(`--url http://203.0.113.7:${port}`);
      expect(s.logs.join('')).toContain("use 203.0.113.7, the address of eth7 (the default route's interface)");
    } finally {
      await s.close();
    }
  });

  it('AUTH_TYPE=none beyond loopback is a warning in the log, /health and the console settings', async () => {
    const s = await startAllInOne({
      LISTEN_ADDRESS: '0.0.0.0',
      AUTH_TYPE: 'none',
      IMAGE_SERVICE_BASE_URL: 'http://img.example',
      SERVICE_BASE_URL: 'http://api.example',
    });
    try {
      const expected = [expect.stringMatching(/^AUTH_TYPE=none while listening on 0\.0\.0\.0:\d+: anyone who reaches/)];
      expect((await health(s.service.url)).warnings).toEqual(expected);
      expect(await settings(s.service.url)).toEqual({ auth_type: 'none', warnings: expected });
      expect(s.logs.some((l) => l.includes('"level":40') && l.includes('AUTH_TYPE=none while listening'))).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('a loopback URL handed out is a warning: a configured one, and any on a loopback-only listener', async () => {
    const configured = await startAllInOne(
      { LISTEN_ADDRESS: '0.0.0.0', AUTH_TYPE: 'local', IMAGE_SERVICE_BASE_URL: 'http://127.0.0.1:8080' },
      {
        hostNetwork: {
          ...LOOPBACK_ONLY,
          interfaces: { ...LOOPBACK_ONLY.interfaces, eth0: [{ address: '10.0.0.5', family: 'IPv4', internal: false }] },
        },
      },
    );
    try {
      expect((await health(configured.service.url)).warnings).toEqual([
        expect.stringMatching(/^IMAGE_SERVICE_BASE_URL is http:\/\/127\.0\.0\.1:8080, a loopback address/),
      ]);
      expect(configured.service.serviceBaseUrl).toMatch(/^http:\/\/10\.0\.0\.5:\d+$/);
    } finally {
      await configured.close();
    }
    const local = await startAllInOne({ LISTEN_ADDRESS: '127.0.0.1' });
    try {
      expect((await settings(local.service.url)).warnings).toEqual([
        expect.stringMatching(
          /^listening on 127\.0\.0\.1 only: the URLs handed out \(http:\/\/127\.0\.0\.1:\d+\) reach this machine only/,
        ),
      ]);
    } finally {
      await local.close();
    }
  });
});
