// Large overrides merged in a worker thread (issue 23, finding 3): the same bytes as on the main
// thread, the same typed refusals (400, 413), a render that overruns its time stopped
// with a clear internal error while this process carries on, and the number of waiting renders
// bounded (503 beyond it).
import { describe, expect, it } from 'vitest';
import { BadRequestError, BootsmithError, PayloadTooLargeError, UnavailableError } from '../../errors.js';
import type { InfraEnvRecord } from '../model.js';
import {
  baseDiscoveryIgnition,
  discoveryIgnition,
  renderDiscoveryIgnition,
  renderIgnition,
  WORKER_RENDER_MIN_BYTES,
} from './discovery.js';
import { MAX_OVERRIDE_ENTRIES } from './override-limits.js';
import { MAX_QUEUED_RENDERS, MAX_RENDER_WORKERS, renderOverrideInWorker } from './render-worker.js';

const CTX = { serviceBaseUrl: 'http://api.example.test:8090', agentImage: 'quay.io/a/agent:1', agentToken: undefined };

function record(override: string): InfraEnvRecord {
  return {
    id: '0a1b2c3d-0000-4000-8000-000000000004',
    name: 'worker',
    clusterId: null,
    openshiftVersion: '4.16',
    cpuArchitecture: 'x86_64',
    imageType: 'full-iso',
    pullSecret: '{"auths":{}}',
    sshAuthorizedKey: '',
    proxy: null,
    additionalNtpSources: '',
    staticNetworkConfig: null,
    ignitionConfigOverride: override,
    kernelArguments: null,
    additionalTrustBundle: '',
    imageTokenKey: 'k',
    agentToken: null,
    networkDiscoveryDelaySeconds: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
}

const files = (n: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    ignition: { version: '3.1.0' },
    storage: {
      files: Array.from({ length: n }, (_, i) => ({
        path: `/etc/w/f${i}`,
        mode: 420,
        contents: { source: `data:,${i}` },
        ...extra,
      })),
    },
  });

describe('render worker', () => {
  it('renders a large override to the same bytes as the main thread', async () => {
    const text = files(MAX_OVERRIDE_ENTRIES);
    expect(text.length).toBeGreaterThanOrEqual(WORKER_RENDER_MIN_BYTES);
    const bytes = await renderDiscoveryIgnition(record(text), CTX);
    expect(bytes.equals(renderIgnition(discoveryIgnition(record(text), CTX)))).toBe(true);
    expect(JSON.parse(bytes.toString('utf8')).storage.files).toHaveLength(MAX_OVERRIDE_ENTRIES + 2);
  });

  it('gives the typed refusals of the main thread', async () => {
    const invalid = files(5000, { mode: 0o10000 });
    const err = await renderDiscoveryIgnition(record(invalid), CTX).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as Error).message).toMatch(/storage\.files\[0\]\.mode must be from 0 to 0o7777/);
    const tooMany = files(MAX_OVERRIDE_ENTRIES + 1);
    await expect(renderDiscoveryIgnition(record(tooMany), CTX)).rejects.toThrow(
      `ignition_config_override has more than ${MAX_OVERRIDE_ENTRIES} list entries`,
    );
    const tooBig = files(1, { contents: { source: `data:,${'x'.repeat(1024 * 1024)}` } });
    await expect(renderDiscoveryIgnition(record(tooBig), CTX)).rejects.toBeInstanceOf(PayloadTooLargeError);
  });

  it('stops a render that overruns its time, and renders again afterwards', async () => {
    const base = baseDiscoveryIgnition(record(''), CTX);
    const overrideText = files(MAX_OVERRIDE_ENTRIES);
    const slow = await renderOverrideInWorker({ base, overrideText }, { timeoutMs: 1 }).catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(BootsmithError);
    expect((slow as BootsmithError).kind).toBe('internal');
    expect((slow as Error).message).toMatch(/did not finish within 1 ms/);
    expect((await renderOverrideInWorker({ base, overrideText })).length).toBeGreaterThan(overrideText.length);
  });

  it('refuses renders beyond the waiting room with a 503', async () => {
    const base = baseDiscoveryIgnition(record(''), CTX);
    const overrideText = files(10);
    const all = await Promise.allSettled(
      Array.from({ length: MAX_RENDER_WORKERS + MAX_QUEUED_RENDERS + 3 }, () =>
        renderOverrideInWorker({ base, overrideText }, { timeoutMs: 1 }),
      ),
    );
    const refused = all.filter((r) => r.status === 'rejected' && r.reason instanceof UnavailableError);
    expect(refused).toHaveLength(3);
    expect((refused[0] as PromiseRejectedResult).reason.retryAfterSeconds).toBeGreaterThan(0);
  });
});
