// Issue 23, finding 2: the send timeout and the artifact slots' minimum-progress rule fire at their
// configured time on the real serving paths, not at about twice it. The image role of the real
// service serves a 51 MB CoreOS-style ISO with a 48 MiB real-bytes rootfs; clients that request the
// ISO through the hot path (`/byid/…/full.iso`), the express route (`/images/{id}?…`) or
// `/boot-artifacts/rootfs`, over HTTP and HTTPS, then never read, or read one byte a second from
// their TCP socket, are closed by the SERVER at the configured time (observed on the server's own
// socket) within a bound; a client that reads slowly but steadily is not cut.
//
// Timing bounds are asserted here because the issue asks for the server-side close at the
// configured time: the lower bound is the rule itself (less sampling slack), the upper one is
// generous for a loaded 2-core machine and still below twice the timeout (what Node's own socket
// timeout gave).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_OPENSSL } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import { BIG_ISO_NEEDS, buildBigIso } from './test-support/big-iso.js';
import { ID, type ImageService, startImageService } from '../../../test/support/image-service.js';
import { type StallMode, type StallingClient, serverSideCloses, stallingGet } from './test-support/stalling-clients.js';
import { makeCa, makeLeaf } from './tls/test-support/certificates.js';

const missing = unavailable({ ...BIG_ISO_NEEDS, openssl: HAVE_OPENSSL });

/** The configured time of the rule under test (seconds, as the setting is written). */
const RULE_SECONDS = 4;
const RULE_MS = RULE_SECONDS * 1000;
/** The server may sample a little before the client's head arrived (it filled the kernel buffers first). */
const EARLY_SLACK_MS = 500;
/** Sampling (a tenth of the rule) plus event-loop delay on a loaded machine; below RULE_MS, so 2× fails. */
const LATE_SLACK_MS = 3_000;
/** How long any close is waited for before the test gives up. */
const WAIT_BOUND_MS = 4 * RULE_MS + 10_000;

const ROUTES = {
  'hot path': `/byid/${ID}/4.17/x86_64/full.iso`,
  'express ISO route': `/images/${ID}?version=4.17&arch=x86_64&type=full-iso`,
  '/boot-artifacts/rootfs': `/boot-artifacts/rootfs?version=4.17&arch=x86_64`,
} as const;
const MODES: StallMode[] = ['never-read', 'byte-per-second'];
/** A slow but live reader: the 48 MiB rootfs lasts it 24 s, longer than the test looks at it. */
const STEADY_BYTES_PER_SECOND = 2 * 1024 ** 2;

let scratch: string;
let iso: string;
let caPem: string;
let tlsEnv: Record<string, string>;

beforeAll(() => {
  if (missing) return;
  return (async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'send-timeout-real-path-'));
    iso = buildBigIso(scratch);
    const ca = makeCa(scratch);
    const leaf = makeLeaf(scratch, ca, 'server', ['localhost', '127.0.0.1']);
    caPem = ca.certPem;
    tlsEnv = { HTTPS_CERT_FILE: leaf.certFile, HTTPS_KEY_FILE: leaf.keyFile };
  })();
}, 180_000);
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<ImageService> {
  return startImageService({
    osImages: [{ openshift_version: '4.17', cpu_architecture: 'x86_64', url: iso, version: '417.94.1' }],
    env,
  });
}

async function counter(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await registry.getSingleMetric(name)!.get();
  return metric.values
    .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
    .reduce((sum, v) => sum + v.value, 0);
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not closed by the server within ${ms} ms`)), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

interface Case {
  what: string;
  client: StallingClient;
}

/** Opens one stalling client per route × mode, each from its own loopback address. */
async function openCases(
  service: ImageService,
  routes: (keyof typeof ROUTES)[],
  firstAddress: number,
  tlsCa?: string,
): Promise<Case[]> {
  const port = Number(new URL(service.base).port);
  const cases: Case[] = [];
  let address = firstAddress;
  for (const route of routes) {
    for (const mode of MODES) {
      const client = await stallingGet({
        port,
        path: ROUTES[route],
        localAddress: `127.0.${address >> 8}.${address & 255}`,
        mode,
        ...(tlsCa ? { tlsCa } : {}),
      });
      address++;
      cases.push({ what: `${route}, ${String(mode)}${tlsCa ? ', HTTPS' : ''}`, client });
    }
  }
  return cases;
}

/** Every case closed by the server at RULE_MS (± the slack) after its client changed pace. */
async function expectClosedAtRule(cases: Case[], closedAt: (client: string) => Promise<number>): Promise<void> {
  try {
    const timings = await Promise.all(
      cases.map(async ({ what, client }) => {
        expect(client.status, what).toBe(200);
        const at = await within(closedAt(client.local), WAIT_BOUND_MS, what);
        return { what, afterMs: Math.round(at - client.headAt) };
      }),
    );
    for (const { what, afterMs } of timings) {
      expect(afterMs, `${what}: closed ${afterMs} ms after it stopped taking bytes`).toBeGreaterThanOrEqual(
        RULE_MS - EARLY_SLACK_MS,
      );
      expect(afterMs, `${what}: closed ${afterMs} ms after it stopped taking bytes`).toBeLessThanOrEqual(
        RULE_MS + LATE_SLACK_MS,
      );
    }
  } finally {
    for (const { client } of cases) client.destroy();
  }
}

describe.skipIf(missing)('HTTP_SEND_TIMEOUT on the real serving paths', () => {
  it(
    'closes never-reading and byte-a-second HTTP clients of the hot path, the express route and /boot-artifacts/rootfs at the send timeout',
    async () => {
      // the minimum-progress rule off: only the send timeout can close them
      const service = await start({ HTTP_SEND_TIMEOUT: `${RULE_SECONDS}s`, ARTIFACT_MIN_PROGRESS_BYTES: '0' });
      try {
        const closedAt = serverSideCloses(service.service.server);
        const cases = await openCases(service, Object.keys(ROUTES) as (keyof typeof ROUTES)[], 10);
        await expectClosedAtRule(cases, closedAt);
        const registry = service.service.metrics.registry;
        expect(await counter(registry, 'bootsmith_http_connections_closed_total', { reason: 'send_timeout' })).toBe(
          cases.length,
        );
        expect(await counter(registry, 'bootsmith_artifact_requests_in_flight', {})).toBe(0);
        for (const { client } of cases) expect(client.received()).toBeLessThan(40 * 1024 ** 2);
      } finally {
        await service.close();
      }
    },
    WAIT_BOUND_MS + 60_000,
  );

  it(
    'closes them over HTTPS too (hot path and express route)',
    async () => {
      const service = await start({
        ...tlsEnv,
        HTTP_SEND_TIMEOUT: `${RULE_SECONDS}s`,
        ARTIFACT_MIN_PROGRESS_BYTES: '0',
      });
      try {
        expect(service.base).toMatch(/^https:/);
        const closedAt = serverSideCloses(service.service.server);
        const cases = await openCases(service, ['hot path', 'express ISO route'], 40, caPem);
        await expectClosedAtRule(cases, closedAt);
        expect(
          await counter(service.service.metrics.registry, 'bootsmith_http_connections_closed_total', {
            reason: 'send_timeout',
          }),
        ).toBe(cases.length);
      } finally {
        await service.close();
      }
    },
    WAIT_BOUND_MS + 60_000,
  );
});

describe.skipIf(missing)('ARTIFACT_MIN_PROGRESS_* on the real serving paths', () => {
  it(
    'cuts never-reading and byte-a-second clients at the minimum-progress time and frees their slots, but not a steady slow reader',
    async () => {
      const service = await start({
        HTTP_SEND_TIMEOUT: '10m', // out of the way: only the minimum-progress rule can close them
        ARTIFACT_MIN_PROGRESS_BYTES: String(64 * 1024),
        ARTIFACT_MIN_PROGRESS_TIME: `${RULE_SECONDS}s`,
      });
      try {
        const closedAt = serverSideCloses(service.service.server);
        const port = Number(new URL(service.base).port);
        // The server sees progress as the kernel takes bytes from it: in jumps of about a third of
        // the socket's send buffer (up to 4 MiB on Linux), once that much has drained. A reader at
        // 2 MiB/s makes such a jump every second or so, far within the rule's time.
        const steady = await stallingGet({
          port,
          path: ROUTES['/boot-artifacts/rootfs'],
          localAddress: '127.0.1.1',
          mode: { steady: STEADY_BYTES_PER_SECOND },
        });
        const cases = await openCases(service, ['hot path', '/boot-artifacts/rootfs'], 70);
        await expectClosedAtRule(cases, closedAt);
        const registry = service.service.metrics.registry;
        expect(await counter(registry, 'bootsmith_artifact_requests_cut_total', { reason: 'min_progress' })).toBe(
          cases.length,
        );
        expect(await counter(registry, 'bootsmith_http_connections_closed_total', { reason: 'send_timeout' })).toBe(0);
        // A window later the steady reader still streams and holds the only slot left.
        const before = steady.received();
        await new Promise((resolve) => setTimeout(resolve, RULE_MS));
        expect(steady.received()).toBeGreaterThan(before + STEADY_BYTES_PER_SECOND);
        expect(await counter(registry, 'bootsmith_artifact_requests_in_flight', {})).toBe(1);
        steady.destroy();
      } finally {
        await service.close();
      }
    },
    WAIT_BOUND_MS + 60_000,
  );
});
