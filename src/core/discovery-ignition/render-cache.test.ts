// The per-content render cache: one render per version of an InfraEnv's inputs, shared by
// concurrent callers; any change of any input renders anew; a config refused for its content
// stays refused without rendering again. Counts renders, no timing.
import { describe, expect, it } from 'vitest';
import { BadRequestError, PayloadTooLargeError } from '../../errors.js';
import type { InfraEnvRecord } from '../model.js';
import { renderIgnition, discoveryIgnition, type DiscoveryContext } from './discovery.js';
import { DiscoveryRenderCache, renderFingerprint } from './render-cache.js';

function record(extra: Partial<InfraEnvRecord> = {}): InfraEnvRecord {
  return {
    id: '0a1b2c3d-0000-4000-8000-000000000002',
    name: 'cache',
    clusterId: null,
    openshiftVersion: '4.16',
    cpuArchitecture: 'x86_64',
    imageType: 'full-iso',
    pullSecret: '{"auths":{}}',
    sshAuthorizedKey: '',
    proxy: null,
    additionalNtpSources: '',
    staticNetworkConfig: null,
    ignitionConfigOverride: JSON.stringify({
      ignition: { version: '3.1.0' },
      storage: { files: [{ path: '/etc/custom', contents: { source: 'data:,hello' } }] },
    }),
    kernelArguments: null,
    additionalTrustBundle: '',
    imageTokenKey: 'k',
    agentToken: null,
    networkDiscoveryDelaySeconds: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...extra,
  };
}

const CTX: DiscoveryContext = {
  serviceBaseUrl: 'http://api.example.test:8090',
  agentImage: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
  agentToken: undefined,
};

describe('discovery render cache', () => {
  it('renders the same bytes as the synchronous path, once per content', async () => {
    const cache = new DiscoveryRenderCache();
    const first = await cache.render(record(), CTX);
    expect(first).toEqual(renderIgnition(discoveryIgnition(record(), CTX)));
    // a fresh record object with the same content (as read again from the database)
    expect(await cache.render(record({ updatedAt: new Date(5) }), CTX)).toBe(first);
    expect(cache.renders).toBe(1);
  });

  it('shares one render among concurrent callers', async () => {
    const cache = new DiscoveryRenderCache();
    const all = await Promise.all(Array.from({ length: 20 }, () => cache.render(record(), CTX)));
    expect(new Set(all).size).toBe(1);
    expect(cache.renders).toBe(1);
  });

  it('renders again when any input changes', async () => {
    const base = await renderFingerprint(record(), CTX);
    const changed: [string, InfraEnvRecord, DiscoveryContext][] = [
      ['override', record({ ignitionConfigOverride: '' }), CTX],
      ['pull secret', record({ pullSecret: '{"auths":{"a":{}}}' }), CTX],
      ['proxy', record({ proxy: { http_proxy: 'http://p:1' } }), CTX],
      ['ntp', record({ additionalNtpSources: 'a.b' }), CTX],
      ['ssh key', record({ sshAuthorizedKey: 'ssh-ed25519 AAAA' }), CTX],
      ['trust bundle', record({ additionalTrustBundle: 'x' }), CTX],
      ['id', record({ id: '0a1b2c3d-0000-4000-8000-000000000003' }), CTX],
      ['agent token', record(), { ...CTX, agentToken: 't' }],
      ['service URL', record(), { ...CTX, serviceBaseUrl: 'http://other:1' }],
      ['agent image', record(), { ...CTX, agentImage: 'quay.io/x/y:1' }],
      ['CA', record(), { ...CTX, serviceCaCert: 'pem' }],
    ];
    for (const [what, r, c] of changed) expect(await renderFingerprint(r, c), what).not.toBe(base);
    // field boundaries are unambiguous: moving text from one field to the next is a new key
    expect(await renderFingerprint(record({ pullSecret: 'ab', sshAuthorizedKey: '' }), CTX)).not.toBe(
      await renderFingerprint(record({ pullSecret: 'a', sshAuthorizedKey: 'b' }), CTX),
    );
  });

  it('keeps a refusal of the content without rendering it again', async () => {
    const cache = new DiscoveryRenderCache();
    const bad = record({ ignitionConfigOverride: '{"ignition":{"version":"3.1.0"},"storgae":{}}' });
    await expect(cache.render(bad, CTX)).rejects.toBeInstanceOf(BadRequestError);
    await expect(cache.render(bad, CTX)).rejects.toBeInstanceOf(BadRequestError);
    expect(cache.renders).toBe(1);
    const huge = record({ ignitionConfigOverride: `{"a":${' '.repeat(2 * 1024 * 1024)}1}` });
    await expect(cache.render(huge, CTX)).rejects.toBeInstanceOf(PayloadTooLargeError);
  });

  it('bounds what it keeps by bytes', async () => {
    const cache = new DiscoveryRenderCache(64 * 1024);
    for (let i = 0; i < 50; i++) await cache.render(record({ pullSecret: `{"auths":{},"n":${i}}` }), CTX);
    expect(cache.renders).toBe(50);
    await cache.render(record({ pullSecret: '{"auths":{},"n":0}' }), CTX); // evicted long ago
    expect(cache.renders).toBe(51);
  });
});
