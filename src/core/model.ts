// The core's records as stored: InfraEnvs, hosts, events. Plain data, no behaviour.
//
// Field names follow the upstream models in camelCase; JSON rendering to the
// assisted-service v2 wire shapes lives in src/core/render.ts. Secrets (pull
// secret, image token key) live here and must never reach a response or a log.
import type { CpuArchitecture } from '../cpu-architecture.js';

export type ImageType = 'full-iso' | 'minimal-iso';

export interface Proxy {
  http_proxy?: string | null;
  https_proxy?: string | null;
  no_proxy?: string | null;
}

export interface StaticNetworkConfigEntry {
  network_yaml: string;
  mac_interface_map: { mac_address: string; logical_nic_name?: string }[];
}

export interface KernelArgument {
  operation: 'append';
  value: string;
}

export interface InfraEnvRecord {
  id: string;
  name: string;
  clusterId: string | null;
  openshiftVersion: string;
  cpuArchitecture: CpuArchitecture;
  imageType: ImageType;
  pullSecret: string;
  sshAuthorizedKey: string;
  proxy: Proxy | null;
  additionalNtpSources: string;
  staticNetworkConfig: StaticNetworkConfigEntry[] | null;
  ignitionConfigOverride: string;
  kernelArguments: KernelArgument[] | null;
  additionalTrustBundle: string;
  /** HS256 key for this InfraEnv's image tokens (base64url); rotated by regenerate-signing-key. */
  imageTokenKey: string;
  /**
   * The InfraEnv-scoped ES256 JWT (AUTH_TYPE=local) used as agent token and api_key.
   * Stored so the discovery Ignition and download URL stay byte-stable. Secret.
   */
  agentToken: string | null;
  /** network_discovery_delay_seconds as the client set it (echoed; the minimal ISO does not use it yet). */
  networkDiscoveryDelaySeconds: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Hosts of a cluster-less InfraEnv are unbound: upstream's pool state machine
 * (internal/host/pool_host_statemachine.go) names their states `*-unbound`. `binding`/`unbinding`
 * exist only around binds to a cluster, which this core has none of. The installation states are
 * only found on rows written by bootsmith releases that accepted install progress for unbound
 * hosts; POST …/actions/reset brings such a host back.
 */
export type HostStatus =
  | 'discovering-unbound'
  | 'known-unbound'
  | 'insufficient-unbound'
  | 'disconnected-unbound'
  | 'installing-in-progress'
  | 'installed'
  | 'error';

export interface HostProgress {
  current_stage: string;
  progress_info?: string;
  stage_started_at?: string;
  stage_updated_at?: string;
}

export interface HostRecord {
  infraEnvId: string;
  id: string;
  status: HostStatus;
  statusInfo: string;
  /** JSON text in the upstream validations_info shape; '' before the first refresh. */
  validationsInfo: string;
  /** The agent's inventory JSON text, verbatim; null until the first inventory reply. */
  inventory: string | null;
  requestedHostname: string;
  role: string;
  discoveryAgentVersion: string;
  progress: HostProgress | null;
  hostTimestamp: number | null;
  checkedInAt: Date;
  registeredAt: Date;
  statusUpdatedAt: Date;
  createdAt: Date;
  updatedAt: Date;
  /** logs_info: the agent's log collection state (v2UpdateHostLogsProgress); '' before any. */
  logsInfo: string;
  /** When the agent reported `requested` log collection last. */
  logsStartedAt: Date | null;
}

export type Severity = 'info' | 'warning' | 'error' | 'critical';
export const SEVERITIES: readonly Severity[] = ['info', 'warning', 'error', 'critical'];

export interface EventRecord {
  name: string;
  infraEnvId: string | null;
  hostId: string | null;
  clusterId: string | null;
  severity: Severity;
  message: string;
  eventTime: Date;
  props?: string;
}
