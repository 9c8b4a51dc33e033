// The front door over stand-in ports (the core's and the BMC wing's answers as data; their real
// implementations run in front-door.postgres.test.ts): what each asker gets for a matched,
// installed and unknown host, the PXE wing's port (Secure Boot per assignment, grub.cfg by MAC),
// the events (one per host and answer per window, a cap per minute), off when not turned on, the
// metrics (over loopback HTTP: a request moves its counter, /metrics carries it, no host's
// identity in a label), and the settings' refusals.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDuration } from '../duration.js';
import { headersForError, statusForError } from '../error-status.js';
import { metricsRoutes } from '../http/face/routes/metrics.js';
import { Metrics } from '../metrics.js';
import { UnknownInfraEnvError } from './assignments/assignment-store.js';
import type { FrontDoorCorePort } from './core-port.js';
import { DECISION_EVENT_WINDOW_MS, MAX_EVENTS_PER_MINUTE } from './decision-events.js';
import { FrontDoor, FrontDoorOffError, MAX_DECISIONS_IN_FLIGHT, MAX_DECISIONS_WAITING } from './front-door.js';
import { frontDoorHostRoutes } from './front-door-routes.js';
import { DEFAULT_FRONT_DOOR_SETTINGS, type FrontDoorSettings, frontDoorSettingsOf } from './front-door-settings.js';
import type { HostIdentity } from './host-identity.js';

const A = 'aaaaaaaa-0000-4000-8000-000000000000';
const KNOWN = '52:54:00:00:00:01';
const INSTALLED = '52:54:00:00:00:02';
const host = (mac: string, extra: Partial<HostIdentity> = {}): HostIdentity => ({
  mac,
  uuid: undefined,
  serial: undefined,
  buildarch: undefined,
  platform: undefined,
  ...extra,
});

function door(settings: Partial<FrontDoorSettings> = {}) {
  const events: { name: string; message: string; infraEnvId: string | null }[] = [];
  let now = Date.parse('2026-11-28T10:00:00Z');
  const metrics = new Metrics({ defaultMetrics: false });
  const core: FrontDoorCorePort = {
    infraEnv: (id) => Promise.resolve(id === A ? { id: A, name: 'rack-a', cpuArchitecture: 'x86_64' } : undefined),
    ipxeScript: (id, type, mac) =>
      Promise.resolve(
        id !== A
          ? undefined
          : mac === INSTALLED
            ? { kind: 'skip' as const, reason: `the host with MAC ${mac} is already installed` }
            : { kind: 'script' as const, script: `#!ipxe\n# ${type} ${mac ?? ''}\n` },
      ),
    bootFiles: (id) =>
      Promise.resolve(
        id === A
          ? {
              kernel: 'http://192.0.2.10:8081/boot-artifacts/kernel?arch=x86_64',
              initrd: 'http://192.0.2.10:8081/images/A/pxe-initrd',
              rootfs: 'http://192.0.2.10:8081/boot-artifacts/rootfs',
              kernelArguments: 'coreos.live.rootfs_url=http://192.0.2.10:8081/boot-artifacts/rootfs ignition.firstboot',
              cpuArchitecture: 'x86_64',
              boot: {
                arch: 'x86_64' as const,
                urls: {
                  kernel: 'http://192.0.2.10:8081/boot-artifacts/kernel?arch=x86_64',
                  initrd: 'http://192.0.2.10:8081/images/A/pxe-initrd',
                  rootfs: 'http://192.0.2.10:8081/boot-artifacts/rootfs',
                },
                kernelArguments: [],
              },
            }
          : undefined,
      ),
    registrations: () => Promise.resolve([]),
    staticNetworkInfraEnvs: () => Promise.resolve([]),
    recordEvent: (e) => {
      events.push(e);
      return Promise.resolve();
    },
  };
  const d = new FrontDoor({
    settings: { ...DEFAULT_FRONT_DOOR_SETTINGS, pxeFrontDoor: true, ...settings },
    core,
    bmc: () => undefined,
    assignments: {
      lookup: (mac) =>
        Promise.resolve(
          mac === KNOWN || mac === INSTALLED
            ? { infraEnvId: A, key: { kind: 'mac' as const, value: mac }, secureBoot: mac === KNOWN }
            : undefined,
        ),
    },
    pxeServiceBaseUrl: 'http://192.0.2.10:8081/',
    logger: pino({ level: 'silent' }),
    now: () => new Date(now),
    registry: metrics.registry,
  });
  /** The value of one sample of the registry's exposition (0 when absent). */
  const sample = async (name: string, labels: string) => {
    const line = (await metrics.registry.metrics()).split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
    return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  return { d, core, events, metrics, sample, advance: (ms: number) => (now += ms) };
}

describe('FrontDoor', () => {
  it("answers a matched host's iPXE with its InfraEnv's script (the configured type, its MAC), and records why", async () => {
    const { d, events } = door();
    expect(await d.hostScript(host(KNOWN, { serial: 'SN1' }))).toBe(`#!ipxe\n# boot-order-control ${KNOWN}\n`);
    expect(events).toEqual([
      {
        infraEnvId: A,
        hostId: null,
        name: 'pxe_host_matched',
        severity: 'info',
        message: `PXE host ${KNOWN} (serial SN1) boots InfraEnv rack-a (${A}) (ipxe): assigned by MAC ${KNOWN}`,
      },
    ]);
  });

  it('sends an installed host to its next device, and an unknown one to wait and ask again', async () => {
    const { d, events } = door({ pxeUnknownHostRetryMs: 120_000 });
    expect(await d.hostScript(host(INSTALLED))).toMatch(/already installed\n.*\nexit 0\n$/);
    const wait = await d.hostScript(host('52:54:00:00:00:09', { uuid: '00112233-4455-6677-8899-aabbccddeeff' }));
    expect(wait).toContain('\nsleep 120\n');
    expect(wait).toContain(
      'chain --replace --autofree http://192.0.2.10:8081/pxe/host.ipxe?mac=52-54-00-00-00-09&uuid=00112233-4455-6677-8899-aabbccddeeff || exit 1',
    );
    expect(events.map((e) => e.name)).toEqual(['pxe_host_matched', 'pxe_host_skipped', 'pxe_host_unmatched']);
    expect(events[2]).toMatchObject({ infraEnvId: null, severity: 'warning' });
    expect(d.status()).toMatchObject({ state: 'on', decisions: { ipxe: 2 }, unmatched: 1, events_written: 3 });
  });

  it('boots an installed host again under discovery-image-always (the core is not asked by MAC)', async () => {
    const { d, events } = door({ pxeIpxeScriptType: 'discovery-image-always' });
    expect(await d.hostScript(host(INSTALLED))).toBe('#!ipxe\n# discovery-image-always \n');
    expect(await d.grubConfig(host(INSTALLED))).toContain('  if linux ');
    expect(events.map((e) => e.name)).toEqual(['pxe_host_matched']);
  });

  it("serves GRUB and pixiecore from the same match; the PXE wing's port asks by MAC", async () => {
    const { d } = door();
    const grub = await d.grubConfig(host(KNOWN));
    expect(grub).toContain(
      "  if linux '(http,192.0.2.10:8081)/boot-artifacts/kernel?arch=x86_64' 'coreos.live.rootfs_url=",
    );
    expect(grub).toContain("    if initrd '(http,192.0.2.10:8081)/images/A/pxe-initrd'");
    expect(await d.grubConfig(host(INSTALLED))).toMatch(/\nexit\n$/);
    expect(await d.pixiecore(host(KNOWN))).toEqual({
      kernel: 'http://192.0.2.10:8081/boot-artifacts/kernel?arch=x86_64',
      initrd: ['http://192.0.2.10:8081/images/A/pxe-initrd'],
      cmdline: 'coreos.live.rootfs_url=http://192.0.2.10:8081/boot-artifacts/rootfs ignition.firstboot',
    });
    expect(await d.pixiecore(host(INSTALLED))).toBeUndefined();
    expect(await d.pixiecore(host('52:54:00:00:00:09'))).toBeUndefined();

    const port = d.pxePort();
    expect(port.ipxeScriptUrl({ mac: KNOWN })).toBe('http://192.0.2.10:8081/boot.ipxe');
    expect(await port.bootChoice({ mac: KNOWN, uuid: undefined })).toEqual({
      secureBoot: true,
      httpBootUrl: undefined,
    });
    expect(await port.bootChoice({ mac: INSTALLED, uuid: undefined })).toEqual({
      secureBoot: false,
      httpBootUrl: undefined,
    });
    expect(await port.grubConfig({ mac: KNOWN })).toBe(grub);
    expect(await port.grubConfig({ mac: '52:54:00:00:00:09' })).toMatch(/\nreboot\n$/);
  });

  it('records one event per host and answer per window, and at most MAX_EVENTS_PER_MINUTE a minute', async () => {
    const { d, events, advance } = door();
    await d.hostScript(host(KNOWN));
    await d.hostScript(host(KNOWN));
    expect(events).toHaveLength(1);
    advance(DECISION_EVENT_WINDOW_MS);
    await d.hostScript(host(KNOWN));
    expect(events).toHaveLength(2);
    advance(60_000);
    for (let i = 0; i < MAX_EVENTS_PER_MINUTE + 5; i++)
      await d.hostScript(
        host(`52:54:00:01:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`),
      );
    expect(events).toHaveLength(2 + MAX_EVENTS_PER_MINUTE);
    expect(d.status()).toMatchObject({ events_dropped: 5 });
  });

  it('lets decisions past MAX_DECISIONS_IN_FLIGHT wait their turn, answers 503 with Retry-After once the line is full, and serves again after', async () => {
    const { d, core, sample } = door();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const registrations = core.registrations;
    core.registrations = async (...args) => {
      await held;
      return registrations(...args);
    };
    const mac = (i: number) =>
      `52:54:00:${(2 + (i >> 16)).toString(16).padStart(2, '0')}:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
    // running and waiting: a rack booting at once is not refused, it waits
    const queued = Array.from({ length: MAX_DECISIONS_IN_FLIGHT + MAX_DECISIONS_WAITING }, (_, i) =>
      d.hostScript(host(mac(i))),
    );
    const refused = await d.hostScript(host('52:54:00:ff:01:00')).catch((err: unknown) => err);
    expect(statusForError(refused)).toBe(503);
    expect(headersForError(refused)).toMatchObject({ 'Retry-After': '10' });
    release();
    const answers = await Promise.all(queued);
    expect(answers.every((script) => script.includes('sleep 300'))).toBe(true);
    expect(await d.hostScript(host('52:54:00:ff:01:00'))).toContain('sleep 300');
    expect(d.status()).toMatchObject({ busy: 1 });
    expect(await sample('bootsmith_pxe_front_door_answers_total', 'kind="ipxe",outcome="busy"')).toBe(1);
    expect(await sample('bootsmith_pxe_front_door_answers_total', 'kind="ipxe",outcome="unmatched"')).toBe(
      MAX_DECISIONS_IN_FLIGHT + MAX_DECISIONS_WAITING + 1,
    );
  });

  it('answers nothing while PXE_FRONT_DOOR is off (404); the port hands out no Secure Boot and no grub.cfg; no metric families', async () => {
    const { d, events, metrics } = door({ pxeFrontDoor: false });
    const off = (() => {
      try {
        d.bootScript();
      } catch (err) {
        return err;
      }
    })();
    expect(off).toBeInstanceOf(FrontDoorOffError);
    expect(statusForError(off)).toBe(404);
    // src/error-status.ts maps the front door's errors by their kind: an assignment's missing InfraEnv too
    expect(statusForError(new UnknownInfraEnvError('InfraEnv x does not exist'))).toBe(404);
    await expect(d.hostScript(host(KNOWN))).rejects.toThrow(/PXE_FRONT_DOOR=on/);
    expect(await d.pxePort().bootChoice({ mac: KNOWN, uuid: undefined })).toEqual({
      secureBoot: false,
      httpBootUrl: undefined,
    });
    expect(await d.pxePort().grubConfig({ mac: KNOWN })).toBeUndefined();
    expect(events).toEqual([]);
    // its metric families exist only while it is on (as /health's pxe_front_door)
    expect(await metrics.registry.metrics()).not.toContain('bootsmith_pxe_front_door');
  });
});

describe('front door metrics', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /** The door's host routes and /metrics on one loopback app, as the service mounts them. */
  async function serve(parts: ReturnType<typeof door>): Promise<(path: string) => Promise<[number, string]>> {
    const app = express();
    app.set('query parser', 'simple');
    app.use(frontDoorHostRoutes(parts.d));
    app.use(metricsRoutes(parts.metrics));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return async (path) => {
      const r = await fetch(base + path);
      return [r.status, await r.text()];
    };
  }
  const answers = (labels: string) => `bootsmith_pxe_front_door_answers_total{${labels}}`;

  it('counts each request by kind and outcome, times each match by source, and /metrics carries them', async () => {
    const parts = door();
    const get = await serve(parts);
    const hyphens = (mac: string) => mac.replaceAll(':', '-');
    expect((await get(`/pxe/host.ipxe?mac=${hyphens(KNOWN)}&serial=SN1`))[0]).toBe(200);
    expect((await get(`/pxe/host.ipxe?mac=${hyphens(INSTALLED)}`))[1]).toMatch(/already installed/);
    expect((await get('/pxe/host.ipxe?mac=52-54-00-00-00-09'))[1]).toMatch(/asking again/);
    expect((await get('/pxe/host.ipxe?mac=52-54-00-00-00-0g'))[0]).toBe(400);
    expect((await get(`/pxe/grub.cfg?mac=${hyphens(KNOWN)}`))[0]).toBe(200);
    expect((await get('/pxe/v1/boot/52:54:00:00:00:09'))[0]).toBe(404);
    expect((await get('/boot.ipxe'))[0]).toBe(200); // the same script for all: not a per-host answer

    const [status, text] = await get('/metrics');
    expect(status).toBe(200);
    const lines = text.split('\n').filter((l) => l.startsWith('bootsmith_pxe_front_door_'));
    expect(lines.filter((l) => l.startsWith('bootsmith_pxe_front_door_answers_total')).sort()).toEqual(
      [
        `${answers('kind="ipxe",outcome="assignment"')} 1`,
        `${answers('kind="ipxe",outcome="skipped"')} 1`,
        `${answers('kind="ipxe",outcome="unmatched"')} 1`,
        `${answers('kind="ipxe",outcome="invalid"')} 1`,
        `${answers('kind="grub",outcome="assignment"')} 1`,
        `${answers('kind="pixiecore",outcome="unmatched"')} 1`,
      ].sort(),
    );
    // KNOWN, INSTALLED (matched, then skipped) and KNOWN's grub.cfg by assignment; two unknown hosts
    expect(lines).toContain('bootsmith_pxe_front_door_match_duration_seconds_count{source="assignment"} 3');
    expect(lines).toContain('bootsmith_pxe_front_door_match_duration_seconds_count{source="none"} 2');
    const inf = lines.find((l) => l.includes('_bucket{') && l.includes('le="+Inf"') && l.includes('"assignment"'));
    expect(inf).toMatch(/ 3$/);
    // bounded labels: no MAC, serial or InfraEnv id in any of them
    expect(lines.join('\n')).not.toMatch(/52[:-]54|SN1|aaaaaaaa/);
  });

  it("counts the default InfraEnv, the PXE wing's questions, and a failed lookup as an error", async () => {
    const parts = door({ pxeDefaultInfraEnv: A });
    const { d, core, sample } = parts;
    expect(await d.hostScript(host('52:54:00:00:00:09'))).toMatch(/^#!ipxe\n# boot-order-control/);
    const port = d.pxePort();
    await port.bootChoice({ mac: KNOWN, uuid: undefined });
    await port.grubConfig({ mac: '52:54:00:00:00:09' });
    core.registrations = () => Promise.reject(new Error('connection refused'));
    await expect(d.pixiecore(host('52:54:00:00:00:0a'))).rejects.toThrow('connection refused');

    expect(await sample('bootsmith_pxe_front_door_answers_total', 'kind="ipxe",outcome="default"')).toBe(1);
    expect(await sample('bootsmith_pxe_front_door_answers_total', 'kind="dhcp",outcome="assignment"')).toBe(1);
    expect(await sample('bootsmith_pxe_front_door_answers_total', 'kind="tftp_grub",outcome="default"')).toBe(1);
    expect(await sample('bootsmith_pxe_front_door_answers_total', 'kind="pixiecore",outcome="error"')).toBe(1);
    expect(await sample('bootsmith_pxe_front_door_match_duration_seconds_count', 'source="default"')).toBe(2);
    expect(await sample('bootsmith_pxe_front_door_match_duration_seconds_count', 'source="error"')).toBe(1);
  });
});

describe('frontDoorSettingsOf', () => {
  it('reads the variables, defaults off', () => {
    expect(frontDoorSettingsOf({}, parseDuration)).toEqual(DEFAULT_FRONT_DOOR_SETTINGS);
    expect(
      frontDoorSettingsOf(
        {
          PXE_FRONT_DOOR: 'on',
          PXE_DEFAULT_INFRA_ENV: A.toUpperCase(),
          PXE_IPXE_SCRIPT_TYPE: 'discovery-image-always',
          PXE_UNKNOWN_HOST_RETRY: '90s',
        },
        parseDuration,
      ),
    ).toEqual({
      pxeFrontDoor: true,
      pxeDefaultInfraEnv: A,
      pxeIpxeScriptType: 'discovery-image-always',
      pxeUnknownHostRetryMs: 90_000,
    });
  });

  it.each([
    [{ PXE_FRONT_DOOR: 'yes' }, /PXE_FRONT_DOOR must be on or off/],
    [{ PXE_DEFAULT_INFRA_ENV: 'pool' }, /PXE_DEFAULT_INFRA_ENV must be an InfraEnv id/],
    [{ PXE_IPXE_SCRIPT_TYPE: 'always' }, /PXE_IPXE_SCRIPT_TYPE must be one of/],
    [{ PXE_UNKNOWN_HOST_RETRY: '5s' }, /from 60s to 1h/],
    [{ PXE_UNKNOWN_HOST_RETRY: '2h' }, /from 60s to 1h/],
    [{ PXE_UNKNOWN_HOST_RETRY: 'soon' }, /from 60s to 1h/],
  ])('refuses %j', (env, message) => {
    expect(() => frontDoorSettingsOf(env, parseDuration)).toThrow(message);
  });
});
