// The agent stand-in reads agent.service as systemd hands it to the agent: checked against the
// unit the service itself renders (src/core/discovery-ignition/discovery.ts), with values that
// need systemd's quoting (blanks, quotes, `%`, `$`, backslashes), and as a table of words.
import { describe, expect, it } from 'vitest';
import { baseDiscoveryIgnition, SERVICE_CA_CERT_PATH } from '../../../src/core/discovery-ignition/discovery.js';
import type { InfraEnvRecord } from '../../../src/core/model.js';
import { readAgentUnit, systemdWords } from './agent-stand-in.js';

const INFRA_ENV: InfraEnvRecord = {
  id: '6f9b2a1e-0c4d-4e5f-8a7b-1c2d3e4f5a6b',
  name: 'try',
  clusterId: null,
  openshiftVersion: '4.17',
  cpuArchitecture: 'x86_64',
  imageType: 'full-iso',
  pullSecret: '{"auths":{}}',
  sshAuthorizedKey: '',
  proxy: null,
  additionalNtpSources: '',
  staticNetworkConfig: null,
  ignitionConfigOverride: '',
  kernelArguments: null,
  additionalTrustBundle: '',
  imageTokenKey: 'a2V5',
  agentToken: null,
  networkDiscoveryDelaySeconds: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

describe('systemdWords', () => {
  it.each<[string, boolean, string[]]>([
    [
      '/usr/local/bin/agent --url http://h:8080 --insecure=false',
      true,
      ['/usr/local/bin/agent', '--url', 'http://h:8080', '--insecure=false'],
    ],
    ['"a b" c', true, ['a b', 'c']],
    [`"quote \\" and \\\\ backslash"`, true, ['quote " and \\ backslash']],
    ["'single quoted' x", true, ['single quoted', 'x']],
    ['100%% $$HOME', true, ['100%', '$HOME']],
    ['"PULL_SECRET_TOKEN=a b" HTTP_PROXY=', false, ['PULL_SECRET_TOKEN=a b', 'HTTP_PROXY=']],
    ['"A=$$x"', false, ['A=$$x']],
    ['', true, []],
  ])('%j (exec %s)', (value, exec, words) => {
    expect(systemdWords(value, exec)).toEqual(words);
  });
});

describe('readAgentUnit on the unit the service renders', () => {
  it.each([
    [
      'plain values, no credential (AUTH_TYPE=none)',
      'http://10.1.2.3:8080',
      'quay.io/edge/assisted-installer-agent:latest',
      undefined,
      false,
    ],
    [
      'a token and a URL that need quoting, a CA',
      'http://svc.lab:8080/a b%20c$x',
      'registry.lab/agent:v1',
      'eyJ.tok"en %n $HOME\\x',
      true,
    ],
  ])('%s', (_name, serviceBaseUrl, agentImage, agentToken, withCa) => {
    const config = baseDiscoveryIgnition(INFRA_ENV, {
      serviceBaseUrl,
      agentImage,
      agentToken,
      ...(withCa ? { serviceCaCert: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' } : {}),
    }) as unknown as { systemd: { units: { name: string; contents: string }[] } };
    const unit = config.systemd.units.find((u) => u.name === 'agent.service')!;
    expect(readAgentUnit(unit.contents)).toEqual({
      url: serviceBaseUrl,
      infraEnvId: INFRA_ENV.id,
      agentVersion: agentImage,
      cacert: withCa ? SERVICE_CA_CERT_PATH : undefined,
      insecure: false,
      token: agentToken,
    });
  });
});
