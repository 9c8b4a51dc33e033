// Builds an InfraEnv's discovery Ignition (spec 3.1.0): what the live ISO boots with.
//
// Contents: user `core` with the SSH keys; the pull secret at /root/.docker/config.json;
// agent.service running the discovery agent against SERVICE_BASE_URL with the
// InfraEnv id, its token and proxy environment; ignition.proxy and /etc/profile.d/proxy.sh;
// the additional trust bundle; the CA of SERVICE_BASE_URL for the agent's --cacert (when set); extra NTP sources; static network config as
// NetworkManager keyfiles; the registry mirrors the image store pulls through (REGISTRIES_CONF_FILE
// as /etc/containers/registries.conf with a policy.json that accepts what comes through them, and
// REGISTRY_CA_FILE as a CA anchor), so hosts pull the agent image from the mirror as
// assisted-service's discovery config makes them; then the user's ignition_config_override
// merged on top.
// Every value written into a shell script or a unit goes through escape.ts for that syntax
// (a proxy URL with `$(…)`, backticks or `%` is inert text there). What we render is validated on
// Ignition's rules (validate.ts) before anything serves or embeds it: the generated part alone,
// where a refusal is our bug (DiscoveryRenderBug: a 500 that both HTTP faces log), and the
// config with the user's override merged, where it is the user's (400/413).
// Rendering is bounded (override-limits.ts); an override of WORKER_RENDER_MIN_BYTES or more is
// merged in a worker thread (render-worker.ts), so no override holds the event loop;
// render-cache.ts keeps the bytes per content. Templates are our own; the shape follows
// assisted-service's. Next: render-cache.ts, then infraenv/service.ts.
import type { InfraEnvRecord } from '../model.js';
import { generateKeyfiles } from '../static-network.js';
import type { HostRegistryFiles } from '../settings.js';
import { shQuote, systemdEnvironment, systemdExecArg } from './escape.js';
import { mergeIgnition } from './merge.js';
import { checkOverrideSize } from './override-limits.js';
import { renderOverrideInWorker } from './render-worker.js';
import { parseIgnition, validateIgnition, type IgnitionConfig } from './validate.js';

/** Where the agent reads the CA of SERVICE_BASE_URL from: upstream's HostCACertPath. */
export const SERVICE_CA_CERT_PATH = '/etc/assisted-service/service-ca-cert.crt';
export const TRUST_BUNDLE_PATH = '/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem';
/** The mirror configuration's paths and the CA anchor's name are assisted-service's (discovery.ign). */
export const REGISTRIES_CONF_PATH = '/etc/containers/registries.conf';
export const POLICY_JSON_PATH = '/etc/containers/policy.json';
/**
 * REGISTRY_CA_FILE on the host: an anchor that CoreOS's coreos-update-ca-trust.service turns into
 * the system trust at boot (before the agent pulls), so nothing runs update-ca-trust here either.
 */
export const REGISTRY_CA_PATH = '/etc/pki/ca-trust/source/anchors/domain.crt';

export interface DiscoveryContext {
  serviceBaseUrl: string;
  agentImage: string;
  /** The agent's credential (PULL_SECRET_TOKEN, sent as X-Secret-Key); undefined with AUTH_TYPE=none. Secret. */
  agentToken: string | undefined;
  /** PEM CA bundle of SERVICE_BASE_URL (SERVICE_CA_CERT_FILE): written for the agent, which gets --cacert. */
  serviceCaCert?: string | undefined;
  /** The mirrors and registry CA of the image store, for the hosts' own pulls. */
  registry?: HostRegistryFiles | undefined;
}

const AGENT_UNIT = `[Unit]
Description=Assisted Installer discovery agent
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
Restart=always
RestartSec=3
StartLimitInterval=0
TimeoutStartSec=3600
@@ENV@@
ExecStartPre=/bin/sh -c @@PULL@@
ExecStartPre=podman run --pull=never --privileged --rm -v /usr/local/bin:/hostbin @@IMAGE@@ cp /usr/bin/agent /hostbin
ExecStart=/usr/local/bin/agent --url @@URL@@ --infra-env-id @@INFRA_ENV_ID@@ --agent-version @@IMAGE@@ --insecure=false@@CACERT@@

[Install]
WantedBy=multi-user.target
`;

const NTP_UNIT = `[Unit]
Description=Add the InfraEnv's NTP sources to chrony
Before=agent.service
After=chronyd.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/bin/add-ntp-sources.sh

[Install]
WantedBy=multi-user.target
`;

const NTP_SCRIPT = `#!/bin/sh
# Appends each NTP source given to the InfraEnv to chrony's configuration once, then restarts chronyd.
set -eu
changed=0
for src in @@SOURCES@@; do
  if ! awk -v s="$src" '($1 == "server" || $1 == "pool") && $2 == s { found = 1 } END { exit !found }' /etc/chrony.conf; then
    echo "server $src iburst" >> /etc/chrony.conf
    changed=1
  fi
done
if [ "$changed" = 1 ]; then systemctl try-restart chronyd.service; fi
`;

const MOTD = `This is a discovery image host of an Assisted Installer InfraEnv.
The discovery agent (agent.service) reports this host's hardware to the service.
Logs: journalctl -u agent.service
`;

function dataUrl(text: string): string {
  return `data:text/plain;charset=utf-8;base64,${Buffer.from(text, 'utf8').toString('base64')}`;
}

function file(path: string, text: string, mode: number): Record<string, unknown> {
  return { path, mode, overwrite: true, user: { name: 'root' }, contents: { source: dataUrl(text) } };
}

function proxyEnv(infraEnv: InfraEnvRecord): [string, string][] {
  const p = infraEnv.proxy ?? {};
  return [
    ['HTTP_PROXY', p.http_proxy ?? ''],
    ['http_proxy', p.http_proxy ?? ''],
    ['HTTPS_PROXY', p.https_proxy ?? ''],
    ['https_proxy', p.https_proxy ?? ''],
    ['NO_PROXY', p.no_proxy ?? ''],
    ['no_proxy', p.no_proxy ?? ''],
  ];
}

function hasProxy(infraEnv: InfraEnvRecord): boolean {
  const p = infraEnv.proxy;
  return !!p && !!(p.http_proxy || p.https_proxy);
}

export function ntpSources(infraEnv: InfraEnvRecord): string[] {
  return infraEnv.additionalNtpSources
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * bootsmith rendered a discovery config that Ignition would refuse: a bug of ours (input
 * validation let a value through that the render cannot write, or a template is wrong), never
 * the user's to fix. Deliberately not a BootsmithError: both HTTP faces answer untyped errors with
 * a generic 500 and log them with their message and stack (src/platform/api/error-handler.ts,
 * src/http/error-mapping.ts), which is what a bug needs. The message names the rule, not contents.
 */
export class DiscoveryRenderBug extends Error {
  constructor(infraEnvId: string, cause: unknown) {
    super(
      `bootsmith rendered a discovery Ignition for infra-env ${infraEnvId} that Ignition would refuse (a bootsmith bug): ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.name = 'DiscoveryRenderBug';
  }
}

/** The discovery config before the user's override. */
export function baseDiscoveryIgnition(infraEnv: InfraEnvRecord, ctx: DiscoveryContext): IgnitionConfig {
  const env = proxyEnv(infraEnv).map(([k, v]) => systemdEnvironment(k, v));
  if (ctx.agentToken) env.push(systemdEnvironment('PULL_SECRET_TOKEN', ctx.agentToken));
  const pull = `until podman pull --authfile /root/.docker/config.json ${shQuote(ctx.agentImage)}; do echo "agent image pull failed, retrying"; sleep 5; done`;
  const agentUnit = AGENT_UNIT.replace('@@ENV@@', () => env.join('\n'))
    .replace('@@PULL@@', () => systemdExecArg(pull))
    .replaceAll('@@IMAGE@@', () => systemdExecArg(ctx.agentImage))
    .replace('@@URL@@', () => systemdExecArg(ctx.serviceBaseUrl))
    .replace('@@INFRA_ENV_ID@@', () => systemdExecArg(infraEnv.id))
    .replace('@@CACERT@@', () => (ctx.serviceCaCert ? ` --cacert ${SERVICE_CA_CERT_PATH}` : ''));

  const sshKeys = infraEnv.sshAuthorizedKey
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const units: Record<string, unknown>[] = [{ name: 'agent.service', enabled: true, contents: agentUnit }];
  const files: Record<string, unknown>[] = [
    file('/root/.docker/config.json', infraEnv.pullSecret, 0o600),
    file('/etc/motd', MOTD, 0o644),
  ];
  const ignition: Record<string, unknown> = { version: '3.1.0' };

  if (hasProxy(infraEnv)) {
    const p = infraEnv.proxy!;
    const noProxy = (p.no_proxy ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    ignition.proxy = {
      ...(p.http_proxy ? { httpProxy: p.http_proxy } : {}),
      ...(p.https_proxy ? { httpsProxy: p.https_proxy } : {}),
      ...(noProxy.length ? { noProxy } : {}),
    };
    const exports = proxyEnv(infraEnv)
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `export ${k}=${shQuote(v)}`);
    files.push(file('/etc/profile.d/proxy.sh', `${exports.join('\n')}\n`, 0o644));
  }
  if (ctx.serviceCaCert) files.push(file(SERVICE_CA_CERT_PATH, ctx.serviceCaCert, 0o644));
  if (infraEnv.additionalTrustBundle.trim() !== '') {
    files.push(file(TRUST_BUNDLE_PATH, infraEnv.additionalTrustBundle, 0o644));
  }
  const ntp = ntpSources(infraEnv);
  if (ntp.length > 0) {
    const quoted = ntp.map(shQuote).join(' ');
    files.push(
      file(
        '/usr/local/bin/add-ntp-sources.sh',
        NTP_SCRIPT.replace('@@SOURCES@@', () => quoted),
        0o755,
      ),
    );
    units.push({ name: 'add-ntp-sources.service', enabled: true, contents: NTP_UNIT });
  }
  if (ctx.registry?.registriesConf) {
    files.push(file(REGISTRIES_CONF_PATH, ctx.registry.registriesConf.text, 0o644));
    files.push(file(POLICY_JSON_PATH, ctx.registry.registriesConf.policyJson, 0o644));
  }
  if (ctx.registry?.caPem) files.push(file(REGISTRY_CA_PATH, ctx.registry.caPem, 0o644));
  for (const kf of generateKeyfiles(infraEnv.staticNetworkConfig ?? [])) {
    files.push(file(`/etc/NetworkManager/system-connections/${kf.name}`, kf.contents, 0o600));
  }

  const cfg = {
    ignition,
    passwd: { users: [{ name: 'core', passwordHash: '!', ...(sshKeys.length ? { sshAuthorizedKeys: sshKeys } : {}) }] },
    systemd: { units },
    storage: { files },
  };
  try {
    validateIgnition(cfg, 'discovery ignition');
  } catch (err) {
    throw new DiscoveryRenderBug(infraEnv.id, err);
  }
  return cfg;
}

/**
 * Overrides from this size on are merged in a worker thread (render-worker.ts): below it a
 * parse, validation and merge take well under a millisecond; at MAX_OVERRIDE_BYTES they take
 * tens of milliseconds on a loaded machine, which the event loop must not spend.
 */
export const WORKER_RENDER_MIN_BYTES = 64 * 1024;

/** The override (JSON text) merged into `base` and validated: a config Ignition accepts, or a 400/413. */
export function mergeOverride(base: IgnitionConfig, overrideText: string): IgnitionConfig {
  const override = parseIgnition(overrideText, 'ignition_config_override');
  const merged = mergeIgnition(base, override);
  validateIgnition(merged, 'merged discovery ignition');
  return merged;
}

/**
 * The full discovery Ignition as JSON bytes: base merged with the InfraEnv's override and
 * validated; a large override off the main thread.
 */
export async function renderDiscoveryIgnition(infraEnv: InfraEnvRecord, ctx: DiscoveryContext): Promise<Buffer> {
  const base = baseDiscoveryIgnition(infraEnv, ctx);
  const overrideText = infraEnv.ignitionConfigOverride;
  if (overrideText.trim() === '') return renderIgnition(base);
  if (overrideText.length < WORKER_RENDER_MIN_BYTES) return renderIgnition(mergeOverride(base, overrideText));
  checkOverrideSize(overrideText, 'ignition_config_override'); // refused here, without a worker
  return renderOverrideInWorker({ base, overrideText });
}

/** The full discovery Ignition, on the calling thread (tests, and the render worker's reference). */
export function discoveryIgnition(infraEnv: InfraEnvRecord, ctx: DiscoveryContext): IgnitionConfig {
  const base = baseDiscoveryIgnition(infraEnv, ctx);
  if (infraEnv.ignitionConfigOverride.trim() === '') return base;
  return mergeOverride(base, infraEnv.ignitionConfigOverride);
}

export function renderIgnition(cfg: IgnitionConfig): Buffer {
  return Buffer.from(JSON.stringify(cfg), 'utf8');
}
