// IgnitionSource backed by a remote assisted-service compatible REST API (v2).
//
// Per lookup: the discovery Ignition (`downloads/files?file_name=discovery.ign`), the
// InfraEnv (its `kernel_arguments` JSON string; `append` operations become kargs) and the
// minimal initrd (`downloads/minimal-initrd`, 204 = none), all with the caller's credential
// forwarded (api_key query, Image-Token header, or Authorization header). Upstream
// 401/403/404 pass through; anything else becomes a 502 with a clear message.
// Caching lives in ../cached-ignition-source.ts, not here. Never logs bodies or credentials.
import { BadRequestError, UpstreamError } from '../../errors.js';
import type { Metrics } from '../../metrics.js';
import { redactText, redactUrl } from '../../redact.js';
import { isUuid } from '../../uuid.js';
import { API_PREFIX as API } from '../../url-grammar.js';
import type { Credential, DiscoveryCustomization, DiscoveryRequest, IgnitionSource } from '../ignition-source.js';

export interface RemoteSourceOptions {
  /** e.g. `http://assisted-service:8090` */
  baseUrl: string;
  timeoutMs?: number;
  metrics?: Metrics;
  /** For tests and custom agents (TLS trust); defaults to the global fetch. */
  fetch?: typeof fetch;
}

type Endpoint = 'discovery-ignition' | 'infra-env' | 'minimal-initrd';

export class RemoteIgnitionSource implements IgnitionSource {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: RemoteSourceOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.fetchImpl = options.fetch ?? fetch;
  }

  async discoveryCustomization(request: DiscoveryRequest): Promise<DiscoveryCustomization> {
    const { infraEnvId, imageType, credential } = request;
    if (!isUuid(infraEnvId)) throw new BadRequestError(`invalid InfraEnv id ${JSON.stringify(infraEnvId)}`);
    const id = encodeURIComponent(infraEnvId);
    const [ignition, infraEnv, minimalInitrd] = await Promise.all([
      this.get(
        'discovery-ignition',
        `${API}/infra-envs/${id}/downloads/files?file_name=discovery.ign&discovery_iso_type=${imageType}`,
        credential,
      ),
      this.get('infra-env', `${API}/infra-envs/${id}`, credential),
      this.get('minimal-initrd', `${API}/infra-envs/${id}/downloads/minimal-initrd`, credential),
    ]);
    const kernelArguments = parseKernelArguments(infraEnv.body, infraEnvId);
    const lastModified = parseDate(ignition.lastModified) ?? parseUpdatedAt(infraEnv.body);
    return {
      ignition: ignition.body,
      kernelArguments,
      ...(minimalInitrd.status === 204 || minimalInitrd.body.length === 0 ? {} : { extraInitrd: minimalInitrd.body }),
      ...(lastModified ? { lastModified } : {}),
    };
  }

  private async get(endpoint: Endpoint, pathAndQuery: string, credential: Credential) {
    const url = new URL(this.baseUrl + pathAndQuery);
    const headers: Record<string, string> = { Accept: endpoint === 'infra-env' ? 'application/json' : '*/*' };
    if (credential.kind === 'api-key') url.searchParams.set('api_key', credential.value);
    else if (credential.kind === 'image-token') headers['Image-Token'] = credential.value;
    else if (credential.kind === 'authorization') headers.Authorization = credential.value;
    const where = `${endpoint} from ${redactUrl(this.baseUrl)}`;
    const stop = this.options.metrics?.upstreamDuration.startTimer({ endpoint });
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        headers,
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'follow',
      });
    } catch (err) {
      stop?.({ outcome: 'unreachable' });
      const reason =
        (err as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : causeMessage(err);
      throw new UpstreamError(
        `assisted-service is unreachable: fetching ${where}: ${reason}`,
        undefined,
        { endpoint },
        { cause: err },
      );
    }
    stop?.({ outcome: String(response.status) });
    let body: Buffer;
    try {
      body = Buffer.from(await response.arrayBuffer());
    } catch (err) {
      throw new UpstreamError(
        `assisted-service broke off while sending ${where}: ${causeMessage(err)}`,
        undefined,
        { endpoint },
        { cause: err },
      );
    }
    const ok =
      endpoint === 'minimal-initrd' ? response.status === 200 || response.status === 204 : response.status === 200;
    if (!ok)
      throw new UpstreamError(
        `assisted-service answered ${response.status} for ${where}${upstreamReason(body)}`,
        response.status,
        { endpoint },
      );
    return { status: response.status, body, lastModified: response.headers.get('last-modified') };
  }
}

/** `kernel_arguments` is a JSON string of `[{operation, value}]`; only `append` is meaningful here. */
export function parseKernelArguments(infraEnvJson: Buffer, infraEnvId: string): string[] {
  let infraEnv: { kernel_arguments?: unknown };
  try {
    infraEnv = JSON.parse(infraEnvJson.toString('utf8')) as { kernel_arguments?: unknown };
  } catch {
    throw new UpstreamError(`assisted-service returned an InfraEnv that is not JSON (${infraEnvId})`, undefined);
  }
  const raw = infraEnv.kernel_arguments;
  if (raw === undefined || raw === null || raw === '') return [];
  let operations: unknown;
  try {
    operations = typeof raw === 'string' ? JSON.parse(raw) : raw;
  } catch {
    throw new UpstreamError(`InfraEnv ${infraEnvId} has kernel_arguments that are not a JSON list`, undefined);
  }
  if (!Array.isArray(operations))
    throw new UpstreamError(`InfraEnv ${infraEnvId} has kernel_arguments that are not a list`, undefined);
  const kargs: string[] = [];
  for (const op of operations as Array<{ operation?: unknown; value?: unknown }>) {
    if (op?.operation !== 'append') {
      throw new UpstreamError(
        `InfraEnv ${infraEnvId}: kernel argument operation ${JSON.stringify(op?.operation)} is not supported (only append)`,
        undefined,
      );
    }
    if (typeof op.value !== 'string' || op.value.trim() === '') continue;
    kargs.push(...op.value.trim().split(/\s+/));
  }
  return kargs;
}

function parseDate(value: string | null): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function parseUpdatedAt(infraEnvJson: Buffer): Date | undefined {
  try {
    const value = (JSON.parse(infraEnvJson.toString('utf8')) as { updated_at?: unknown }).updated_at;
    return typeof value === 'string' ? parseDate(value) : undefined;
  } catch {
    return undefined;
  }
}

/** The upstream error `reason`/`message`, which never carries secrets, when the body has one. */
function upstreamReason(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { reason?: unknown; message?: unknown };
    const text =
      typeof parsed.reason === 'string'
        ? parsed.reason
        : typeof parsed.message === 'string'
          ? parsed.message
          : undefined;
    return text ? `: ${text.slice(0, 300)}` : '';
  } catch {
    return '';
  }
}

function causeMessage(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string; code?: string } };
  return redactText(e.cause?.code ?? e.cause?.message ?? e.message ?? String(err));
}
