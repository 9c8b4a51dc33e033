// The client's read verbs in this process — `infraenv list|show|delete`, `hosts list`, `events`
// (with --follow through the poll loop) — against a loopback API whose answers are made by the
// core's own renderers (src/core/render.ts) and error bodies (src/platform/api/error-handler.ts) from
// records, so the wire shapes are the real ones; the same verbs against a real `bootsmith serve`
// are client-verbs.tools.test.ts. Also hostName's rule and the poll loop's option checks as tables.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Readable, Writable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { errorBody } from '../../platform/api/error-handler.js';
import type { EventRecord, HostRecord, InfraEnvRecord } from '../../core/model.js';
import { renderEvent, renderHost, renderInfraEnv } from '../../core/render.js';
import { type CliIo, runVerb, type Verb } from '../verb.js';
import { eventsVerb } from './events.js';
import { hostName, hostsList } from './hosts-list.js';
import { infraenvDelete, infraenvList, infraenvShow } from './infraenv-read.js';

const T = new Date('2026-04-01T10:00:00.000Z');
const ENV_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const ENV_B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const HOST_1 = '11111111-0000-4000-8000-000000000001';
const HOST_2 = '22222222-0000-4000-8000-000000000002';

function infraEnv(id: string, name: string, imageType: 'full-iso' | 'minimal-iso'): InfraEnvRecord {
  return {
    id,
    name,
    clusterId: null,
    openshiftVersion: '4.16',
    cpuArchitecture: 'x86_64',
    imageType,
    pullSecret: '{"auths":{"quay.io":{"auth":"c2VjcmV0OnB3"}}}',
    sshAuthorizedKey: '',
    proxy: null,
    additionalNtpSources: '',
    staticNetworkConfig: null,
    ignitionConfigOverride: '',
    kernelArguments: null,
    additionalTrustBundle: '',
    imageTokenKey: 'key',
    agentToken: null,
    networkDiscoveryDelaySeconds: null,
    createdAt: T,
    updatedAt: T,
  };
}

function host(id: string, infraEnvId: string, extra: Partial<HostRecord>): HostRecord {
  return {
    infraEnvId,
    id,
    status: 'discovering-unbound',
    statusInfo: 'Waiting for host to send hardware details',
    validationsInfo: '',
    inventory: null,
    requestedHostname: '',
    role: 'auto-assign',
    discoveryAgentVersion: '',
    progress: null,
    hostTimestamp: null,
    checkedInAt: T,
    registeredAt: T,
    statusUpdatedAt: T,
    createdAt: T,
    updatedAt: T,
    logsInfo: '',
    logsStartedAt: null,
    ...extra,
  };
}

const event = (message: string, at: number, hostId: string | null = null): EventRecord => ({
  name: 'test_event',
  infraEnvId: ENV_A,
  hostId,
  clusterId: null,
  severity: 'info',
  message,
  eventTime: new Date(T.getTime() + at * 1000),
});

describe('client read verbs against the core’s wire shapes', () => {
  const envs = [infraEnv(ENV_A, 'edge-a', 'full-iso'), infraEnv(ENV_B, 'edge-b', 'minimal-iso')];
  const hosts: Record<string, HostRecord[]> = {
    [ENV_A]: [
      host(HOST_1, ENV_A, {
        status: 'known-unbound',
        statusInfo: 'Host is ready to be bound to a cluster',
        inventory: '{"hostname":"node-1"}',
      }),
      host(HOST_2, ENV_A, { requestedHostname: 'renamed', inventory: '{"hostname":"node-2"}' }),
    ],
    [ENV_B]: [],
  };
  let events: EventRecord[] = [];
  const requests: string[] = [];
  const deleted: string[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const app = express();
    app.use((req, _res, next) => {
      requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`);
      next();
    });
    const api = express.Router();
    const download = { url: 'https://img.example/x.iso', expiresAt: undefined };
    api.get('/infra-envs', (_req, res) => {
      res.json(envs.map((e) => renderInfraEnv(e, download)));
    });
    api.get('/infra-envs/:id', (req, res) => {
      const e = envs.find((x) => x.id === req.params.id);
      if (e) res.json({ ...renderInfraEnv(e, download), pull_secret: e.pullSecret });
      else res.status(404).json(errorBody(404, `infra env ${req.params.id} not found`));
    });
    api.delete('/infra-envs/:id', (req, res) => {
      deleted.push(req.params.id);
      res.status(204).end();
    });
    api.get('/infra-envs/:id/hosts', (req, res) => {
      res.json((hosts[req.params.id] ?? []).map(renderHost));
    });
    api.get('/events', (req, res) => {
      res.json(events.filter((e) => !req.query.host_id || e.hostId === req.query.host_id).map(renderEvent));
    });
    app.use('/api/assisted-install/v2', api);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function run(verb: Verb, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const sink = (append: (s: string) => void) =>
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          append(chunk.toString());
          cb();
        },
      });
    const io: CliIo = {
      env: { BOOTSMITH_URL: url, BOOTSMITH_TOKEN: 'tok' },
      stdin: Readable.from([]),
      stdout: sink((s) => (stdout += s)),
      stderr: sink((s) => (stderr += s)),
    };
    const code = await runVerb(verb, argv, io);
    return { code, stdout, stderr };
  }

  it('infraenv list: a table of id, name, version, arch, image type', async () => {
    expect(await run(infraenvList, [])).toEqual({
      code: 0,
      stdout: [
        'ID                                    NAME    VERSION  ARCH    IMAGE TYPE',
        `${ENV_A}  edge-a  4.16     x86_64  full-iso`,
        `${ENV_B}  edge-b  4.16     x86_64  minimal-iso`,
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(requests.at(-1)).toBe('GET /api/assisted-install/v2/infra-envs Bearer tok');
  });

  it('infraenv show: the InfraEnv as JSON, without the pull secret', async () => {
    const r = await run(infraenvShow, [ENV_A]);
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(shown.id).toBe(ENV_A);
    expect(shown.pull_secret_set).toBe(true);
    expect('pull_secret' in shown).toBe(false);
    expect(r.stdout).not.toContain('c2VjcmV0OnB3');
  });

  it('infraenv show of an unknown id: exit 1, one line with the service’s reason', async () => {
    const unknown = 'cccccccc-0000-4000-8000-00000000000c';
    expect(await run(infraenvShow, [unknown])).toEqual({
      code: 1,
      stdout: '',
      stderr: `bootsmith: ${url}: GET /api/assisted-install/v2/infra-envs/${unknown}: 404 infra env ${unknown} not found\n`,
    });
  });

  it('infraenv delete: a DELETE of that id, no output', async () => {
    expect(await run(infraenvDelete, [ENV_B])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(deleted).toEqual([ENV_B]);
  });

  it('hosts list: every InfraEnv’s hosts, named by requested or reported host name', async () => {
    expect((await run(hostsList, [])).stdout).toBe(
      [
        'HOST                                  INFRAENV                              HOSTNAME  STATUS               INFO',
        `${HOST_1}  ${ENV_A}  node-1    known-unbound        Host is ready to be bound to a cluster`,
        `${HOST_2}  ${ENV_A}  renamed   discovering-unbound  Waiting for host to send hardware details`,
        '',
      ].join('\n'),
    );
    await run(hostsList, [ENV_B]);
    expect(requests.slice(-1)).toEqual([`GET /api/assisted-install/v2/infra-envs/${ENV_B}/hosts Bearer tok`]);
  });

  it('events: oldest first, one line each; --host filters', async () => {
    events = [event('first', 0), event('second', 1, HOST_1)];
    expect((await run(eventsVerb, ['--infra-env', ENV_A])).stdout).toBe(
      '2026-04-01T10:00:00.000Z  info     first\n2026-04-01T10:00:01.000Z  info     second\n',
    );
    expect(requests.at(-1)).toBe(
      `GET /api/assisted-install/v2/events?order=ascending&limit=-1&infra_env_id=${ENV_A} Bearer tok`,
    );
    expect((await run(eventsVerb, ['--host', HOST_1])).stdout).toBe('2026-04-01T10:00:01.000Z  info     second\n');
  });

  it('events --follow: polls --count times and prints each event once', async () => {
    events = [event('first', 0)];
    const eventCalls = (): number =>
      requests.filter((r) => r.startsWith('GET /api/assisted-install/v2/events?')).length;
    const before = eventCalls();
    let polls = 0;
    const growing = setInterval(() => {
      if (events.length < 3) events = [...events, event(`new ${++polls}`, 10 + polls)];
    }, 5);
    try {
      const r = await run(eventsVerb, ['--follow', '--count', '3', '--interval', '0.05']);
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe('2026-04-01T10:00:00.000Z  info     first');
      expect(new Set(lines).size).toBe(lines.length);
    } finally {
      clearInterval(growing);
    }
    expect(eventCalls() - before).toBe(3);
  });

  it.each<[string[], string]>([
    [['--follow', '--count', '0'], 'bootsmith events: --count must be a positive number'],
    [['--follow', '--interval', 'soon'], 'bootsmith events: --interval must be a positive number'],
  ])('events %j: a usage error, exit 2', async (argv, message) => {
    const r = await run(eventsVerb, argv);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`bootsmith: ${message}`);
  });
});

describe('hostName: table', () => {
  it.each<[string, string | undefined, string | undefined, string]>([
    ['the requested host name first', 'renamed', '{"hostname":"node"}', 'renamed'],
    ['else the inventory’s', '', '{"hostname":"node"}', 'node'],
    ['no inventory: none', undefined, undefined, ''],
    ['an inventory without a host name', '', '{"cpu":{}}', ''],
    ['a host name that is no string', '', '{"hostname":7}', ''],
    ['an inventory that is not JSON', '', '{"hostname":', ''],
  ])('%s', (_name, requested, inventory, expected) => {
    expect(
      hostName({
        ...(requested !== undefined ? { requested_hostname: requested } : {}),
        ...(inventory !== undefined ? { inventory } : {}),
      }),
    ).toBe(expected);
  });
});
