// The request-body models of the operations bootsmith serves, as upstream's swagger declares them
// (definitions infra-env-create-params, infra-env-update-params, host-create-params,
// host-update-params, host-progress, logs-progress-params, event, step-reply), with the body
// parameter names of upstream's generated server (they appear in its error messages).
//
// Does: declare types, required properties, enums, formats, maxLength, minimum and patterns, for
// body-schema.ts to bind against. Declared-but-unimplemented fields (rendezvous_ip, ntp_sources,
// disks_selected_config, …) are typed so a client sending them is neither refused nor logged as
// unknown. Does NOT: check meanings (pull secret JSON, kernel argument safety, host names): those
// are semantic 400s in infraenv/params.ts and the host handlers.
import type { BodyDefinition, ObjectSchema, Schema } from './body-schema.js';

const str: Schema = { type: 'string' };
const uuid: Schema = { type: 'string', format: 'uuid' };
const any: Schema = { type: 'any' };

/**
 * The swagger's enum, as sent: `arm64` and `aarch64` both pass (src/cpu-architecture.ts normalises
 * them); `multi` passes too and gets the InfraEnv service's 400 (no single base image boots it).
 */
export const CPU_ARCHITECTURES = ['x86_64', 'aarch64', 'arm64', 'ppc64le', 's390x', 'multi'] as const;
export const IMAGE_TYPES = ['full-iso', 'minimal-iso', 'disconnected-iso'] as const;
export const HOST_ROLES = ['auto-assign', 'master', 'arbiter', 'worker'] as const;
export const LOGS_STATES = ['requested', 'collecting', 'completed', 'timeout', ''] as const;
export const EVENT_SEVERITIES = ['info', 'warning', 'error', 'critical'] as const;
export const EVENT_CATEGORIES = ['user', 'metrics'] as const;
/** definitions/host-stage. */
export const HOST_STAGES = [
  'Starting installation',
  'Waiting for control plane',
  'Waiting for bootkube',
  'Waiting for controller',
  'Installing',
  'Writing image to disk',
  'Copying registry data to disk',
  'Rebooting',
  'Waiting for ignition',
  'Configuring',
  'Joined',
  'Done',
  'Failed',
] as const;

const proxy: ObjectSchema = {
  type: 'object',
  goType: 'Proxy',
  properties: { http_proxy: str, https_proxy: str, no_proxy: str },
};

/** definitions/kernel_argument; upstream's pattern has nested quantifiers, so test an equivalent. */
const kernelArgument: ObjectSchema = {
  type: 'object',
  goType: 'KernelArgument',
  properties: {
    operation: { type: 'string', enum: ['append', 'replace', 'delete'] },
    value: {
      type: 'string',
      pattern: '^(?:(?:[^ \\t\\n\\r"]+)|(?:"[^"]*"))+$',
      safePattern: /^(?:[^ \t\n\r"]|"[^"]*")+$/,
    },
  },
};

const staticNetworkConfig: ObjectSchema = {
  type: 'object',
  goType: 'HostStaticNetworkConfig',
  properties: {
    network_yaml: str,
    mac_interface_map: {
      type: 'array',
      items: {
        type: 'object',
        goType: 'MacInterfaceMapItems0',
        required: ['mac_address'],
        properties: {
          mac_address: { type: 'string', pattern: '^([0-9A-Fa-f]{2}[:]){5}([0-9A-Fa-f]{2})$' },
          logical_nic_name: str,
        },
      },
    },
  },
};

/** Properties infra-env-create-params and infra-env-update-params share. */
const infraEnvCommon: Record<string, Schema> = {
  proxy,
  additional_ntp_sources: str,
  ntp_sources: str,
  ssh_authorized_key: str,
  pull_secret: str,
  static_network_config: { type: 'array', items: staticNetworkConfig },
  rendezvous_ip: str,
  image_type: { type: 'string', enum: IMAGE_TYPES },
  ignition_config_override: str,
  openshift_version: str,
  kernel_arguments: { type: 'array', items: kernelArgument },
  additional_trust_bundle: { type: 'string', maxLength: 65535 },
  network_discovery_delay_seconds: { type: 'integer', minimum: 0 },
};

export const INFRA_ENV_CREATE: BodyDefinition = {
  param: 'infraenvCreateParams',
  required: true,
  schema: {
    type: 'object',
    goType: 'InfraEnvCreateParams',
    required: ['name', 'pull_secret'],
    properties: {
      ...infraEnvCommon,
      name: str,
      cluster_id: uuid,
      cpu_architecture: { type: 'string', enum: CPU_ARCHITECTURES },
    },
  },
};

export const INFRA_ENV_UPDATE: BodyDefinition = {
  param: 'infraEnvUpdateParams',
  required: true,
  schema: { type: 'object', goType: 'InfraEnvUpdateParams', properties: infraEnvCommon },
};

export const HOST_CREATE: BodyDefinition = {
  param: 'newHostParams',
  required: true,
  schema: {
    type: 'object',
    goType: 'HostCreateParams',
    required: ['host_id'],
    properties: { host_id: uuid, discovery_agent_version: str },
  },
};

export const HOST_UPDATE: BodyDefinition = {
  param: 'hostUpdateParams',
  required: true,
  schema: {
    type: 'object',
    goType: 'HostUpdateParams',
    properties: {
      host_role: { type: 'string', enum: HOST_ROLES },
      host_name: str,
      disks_selected_config: any,
      disks_skip_formatting: any,
      machine_config_pool_name: str,
      ignition_endpoint_token: str,
      ignition_endpoint_http_headers: any,
      node_labels: any,
      fencing_credentials: any,
    },
  },
};

export const HOST_PROGRESS: BodyDefinition = {
  param: 'hostProgress',
  required: true,
  schema: {
    type: 'object',
    goType: 'HostProgress',
    properties: { current_stage: { type: 'string', enum: HOST_STAGES }, progress_info: str },
  },
};

export const LOGS_PROGRESS: BodyDefinition = {
  param: 'logsProgressParams',
  required: true,
  schema: {
    type: 'object',
    goType: 'LogsProgressParams',
    required: ['logs_state'],
    properties: { logs_state: { type: 'string', enum: LOGS_STATES } },
  },
};

export const TRIGGER_EVENT: BodyDefinition = {
  param: 'triggerEventParams',
  required: true,
  schema: {
    type: 'object',
    goType: 'Event',
    required: ['severity', 'message', 'event_time'],
    properties: {
      name: str,
      cluster_id: uuid,
      host_id: uuid,
      infra_env_id: uuid,
      severity: { type: 'string', enum: EVENT_SEVERITIES },
      category: { type: 'string', enum: EVENT_CATEGORIES },
      message: str,
      event_time: { type: 'string', format: 'date-time' },
      request_id: uuid,
      props: str,
    },
  },
};

export const STEP_REPLY: BodyDefinition = {
  param: 'reply',
  required: false,
  schema: {
    type: 'object',
    goType: 'StepReply',
    properties: { step_type: str, step_id: str, exit_code: { type: 'integer' }, output: str, error: str },
  },
};
