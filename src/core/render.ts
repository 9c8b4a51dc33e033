// Renders records into the assisted-service v2 JSON shapes (infra-env, host, event).
//
// The pull secret, image-token key and agent token are never rendered
// (`pull_secret_set: true` instead). Optional fields are omitted rather than null.
import type { EventRecord, HostRecord, InfraEnvRecord } from './model.js';
import { API_PREFIX } from '../url-grammar.js';

/** Upstream's zero time: what `expires_at` says when the URL does not expire. */
export const NEVER_EXPIRES = '0001-01-01T00:00:00.000Z';

export function renderInfraEnv(
  r: InfraEnvRecord,
  download: { url: string; expiresAt: Date | undefined },
): Record<string, unknown> {
  return {
    kind: 'InfraEnv',
    id: r.id,
    href: `${API_PREFIX}/infra-envs/${r.id}`,
    name: r.name,
    type: r.imageType,
    openshift_version: r.openshiftVersion,
    cpu_architecture: r.cpuArchitecture,
    pull_secret_set: r.pullSecret !== '',
    ssh_authorized_key: r.sshAuthorizedKey,
    ...(r.proxy ? { proxy: r.proxy } : {}),
    additional_ntp_sources: r.additionalNtpSources,
    static_network_config: r.staticNetworkConfig ? JSON.stringify(r.staticNetworkConfig) : '',
    ...(r.ignitionConfigOverride ? { ignition_config_override: r.ignitionConfigOverride } : {}),
    ...(r.clusterId ? { cluster_id: r.clusterId } : {}),
    ...(r.kernelArguments ? { kernel_arguments: JSON.stringify(r.kernelArguments) } : {}),
    additional_trust_bundle: r.additionalTrustBundle,
    ...(r.networkDiscoveryDelaySeconds !== null
      ? { network_discovery_delay_seconds: r.networkDiscoveryDelaySeconds }
      : {}),
    download_url: download.url,
    expires_at: download.expiresAt ? download.expiresAt.toISOString() : NEVER_EXPIRES,
    generator_version: 'bootsmith',
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export function renderHost(h: HostRecord): Record<string, unknown> {
  return {
    kind: 'Host',
    id: h.id,
    href: `${API_PREFIX}/infra-envs/${h.infraEnvId}/hosts/${h.id}`,
    infra_env_id: h.infraEnvId,
    status: h.status,
    status_info: h.statusInfo,
    validations_info: h.validationsInfo,
    logs_info: h.logsInfo,
    ...(h.logsStartedAt ? { logs_started_at: h.logsStartedAt.toISOString() } : {}),
    ...(h.inventory !== null ? { inventory: h.inventory } : {}),
    requested_hostname: h.requestedHostname,
    role: h.role,
    suggested_role: h.role,
    bootstrap: false,
    discovery_agent_version: h.discoveryAgentVersion,
    ...(h.progress ? { progress: h.progress } : {}),
    ...(h.hostTimestamp !== null ? { timestamp: h.hostTimestamp } : {}),
    checked_in_at: h.checkedInAt.toISOString(),
    registered_at: h.registeredAt.toISOString(),
    status_updated_at: h.statusUpdatedAt.toISOString(),
    created_at: h.createdAt.toISOString(),
    updated_at: h.updatedAt.toISOString(),
  };
}

export function renderEvent(e: EventRecord): Record<string, unknown> {
  return {
    name: e.name,
    ...(e.infraEnvId ? { infra_env_id: e.infraEnvId } : {}),
    ...(e.hostId ? { host_id: e.hostId } : {}),
    ...(e.clusterId ? { cluster_id: e.clusterId } : {}),
    severity: e.severity,
    category: 'user',
    message: e.message,
    event_time: e.eventTime.toISOString(),
    ...(e.props ? { props: e.props } : {}),
  };
}
