// A stand-in for the first call of the assisted discovery agent on a virtual guest that booted
// from its CD: what lets `bmc boot --wait registered` reach "registered" without qemu, for
// `npm run try:bmc` and tests. It uses only what the medium gives it, as the real host does:
//   1. reads the CD (the ISO URL in the drive) through Range GETs as a mounted ISO 9660 (the
//      project's ISO reader over ./http-range-reader.ts): coreos/igninfo.json, then the Ignition
//      embed area, decoded as the initramfs would (the project's embed-archive reader);
//   2. takes agent.service from the config's systemd units as systemd would read it: ExecStart's
//      --url, --infra-env-id, --agent-version, --cacert (the file of that path in the config's
//      storage, a data: URL); Environment= PULL_SECRET_TOKEN (the agent's credential);
//   3. registers: POST <url>/api/assisted-install/v2/infra-envs/<id>/hosts {host_id,
//      discovery_agent_version} with the credential in X-Secret-Key, host_id the System UUID its
//      BMC reports (the DMI product UUID the real agent sends); a refused call is final, no answer
//      or a 5xx is tried again (ATTEMPTS, DELAY_MS apart), each call bounded (CALL_TIMEOUT_MS).
// Stands in for: the agent's registration only (fixtures/guest/agent.sh is the fuller stand-in the
// qemu guests run after the real Ignition applied the config). Checked against the real producer
// and consumer: the unit the service renders (agent-stand-in.test.ts), and the service's core,
// which accepts the registration only with the InfraEnv's agent token (test/docs/bmc-try.postgres.test.ts).
// Does NOT: apply the Ignition config, pull or run the agent, answer next-step instructions or
// send an inventory (the host registers, then goes quiet: the service marks it disconnected
// after its heartbeat timeout), or ever report the credential.
import http from 'node:http';
import https from 'node:https';
import { readEmbedArea } from '../../../src/initrd/embed-archive.js';
import { locateIgnitionArea } from '../../../src/iso/ignition-area.js';
import { IsoFs } from '../../../src/iso/iso9660.js';
import { HttpRangeReader } from './http-range-reader.js';

/** A discovery config is a few KiB; an override at most a few MiB. */
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;
/** Each read of the CD and each call to the service. */
const CALL_TIMEOUT_MS = 30_000;
/** A registration that gets no answer or a 5xx is tried this often, this far apart. */
const ATTEMPTS = 5;
const DELAY_MS = 2_000;
const API_PREFIX = '/api/assisted-install/v2';

export interface AgentOutcome {
  hostId: string;
  registered: boolean;
  /** What happened, in words (never the credential). */
  detail: string;
}

export interface AgentOptions {
  /** The ISO URL in the CD drive and its size (learnt at insert). */
  isoUrl: string;
  size: number;
  /** The System UUID the BMC reports. */
  hostId: string;
  /** CAs trusted for an https:// ISO URL. */
  ca?: string;
  localAddress?: string;
}

/** Splits a unit value into words as systemd does: quotes, C escapes inside them, `%%` → `%` (and `$$` → `$` on Exec lines). */
export function systemdWords(value: string, exec: boolean): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && i + 1 < value.length) {
        const n = value[++i]!;
        word += n === 'n' ? '\n' : n === 't' ? '\t' : n;
      } else word += c;
      continue;
    }
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < value.length) {
      word = (word ?? '') + value[++i]!;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words.map((w) => {
    const s = w.replaceAll('%%', '%');
    return exec ? s.replaceAll('$$', '$') : s;
  });
}

export interface AgentUnit {
  url: string | undefined;
  infraEnvId: string | undefined;
  agentVersion: string | undefined;
  cacert: string | undefined;
  insecure: boolean;
  token: string | undefined;
}

/** What agent.service hands the agent: its command line's options and its environment. */
export function readAgentUnit(contents: string): AgentUnit {
  const lines = contents.split('\n').map((l) => l.trim());
  const exec =
    lines
      .filter((l) => l.startsWith('ExecStart='))
      .at(-1)
      ?.slice('ExecStart='.length) ?? '';
  const words = systemdWords(exec, true);
  const option = (name: string): string | undefined => {
    for (let i = 0; i < words.length; i++) {
      if (words[i] === `--${name}`) return words[i + 1];
      if (words[i]!.startsWith(`--${name}=`)) return words[i]!.slice(name.length + 3);
    }
    return undefined;
  };
  const env = new Map<string, string>();
  for (const line of lines.filter((l) => l.startsWith('Environment='))) {
    for (const assignment of systemdWords(line.slice('Environment='.length), false)) {
      const eq = assignment.indexOf('=');
      if (eq > 0) env.set(assignment.slice(0, eq), assignment.slice(eq + 1));
    }
  }
  return {
    url: option('url'),
    infraEnvId: option('infra-env-id'),
    agentVersion: option('agent-version'),
    cacert: option('cacert'),
    insecure: option('insecure') === 'true',
    token: env.get('PULL_SECRET_TOKEN') || undefined,
  };
}

/** The contents of an Ignition file's `data:` URL. */
function dataUrl(source: string): string | undefined {
  const m = /^data:([^,]*),(.*)$/s.exec(source);
  if (!m) return undefined;
  return m[1]!.endsWith(';base64') ? Buffer.from(m[2]!, 'base64').toString('utf8') : decodeURIComponent(m[2]!);
}

/** The discovery config on the CD: its Ignition embed area, decoded. */
async function configOnCd(options: AgentOptions): Promise<Record<string, unknown>> {
  const reader = new HttpRangeReader(options.isoUrl, {
    size: options.size,
    timeoutMs: CALL_TIMEOUT_MS,
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
  });
  const iso = await IsoFs.fromHandle(reader, 'the CD');
  const area = await locateIgnitionArea(iso);
  const contents = await readEmbedArea(
    await iso.readAt(area.offset, area.length, 'the Ignition area'),
    MAX_CONFIG_BYTES,
  );
  if (!contents.ignition) throw new Error('the CD holds no Ignition config');
  return JSON.parse(contents.ignition.toString('utf8')) as Record<string, unknown>;
}

function post(
  url: URL,
  body: string,
  headers: Record<string, string>,
  ca: string | undefined,
  insecure: boolean,
): Promise<{ status: number; text: string }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers },
        ...(url.protocol === 'https:' ? { ...(ca ? { ca } : {}), rejectUnauthorized: !insecure } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (text.length < 4096) text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.setTimeout(CALL_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${CALL_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads the discovery config from the CD and registers the host as the agent's first call does. */
export async function registerFromCd(options: AgentOptions): Promise<AgentOutcome> {
  const outcome = (registered: boolean, detail: string): AgentOutcome => ({
    hostId: options.hostId,
    registered,
    detail,
  });
  let config: Record<string, unknown>;
  try {
    config = await configOnCd(options);
  } catch (err) {
    return outcome(false, `no discovery config read from the CD: ${(err as Error).message}`);
  }
  const units = ((config.systemd as { units?: unknown } | undefined)?.units ?? []) as {
    name?: unknown;
    contents?: unknown;
  }[];
  const unit = Array.isArray(units) ? units.find((u) => u?.name === 'agent.service') : undefined;
  if (typeof unit?.contents !== 'string') return outcome(false, 'the discovery config has no agent.service');
  const agent = readAgentUnit(unit.contents);
  if (!agent.url || !agent.infraEnvId) return outcome(false, 'agent.service has no --url or --infra-env-id');
  let ca: string | undefined;
  if (agent.cacert) {
    const files = ((config.storage as { files?: unknown } | undefined)?.files ?? []) as {
      path?: unknown;
      contents?: { source?: unknown };
    }[];
    const source = Array.isArray(files) ? files.find((f) => f?.path === agent.cacert)?.contents?.source : undefined;
    ca = typeof source === 'string' ? dataUrl(source) : undefined;
    if (!ca) return outcome(false, `agent.service names --cacert ${agent.cacert}, which the config does not write`);
  }
  const target = new URL(
    `${agent.url.replace(/\/+$/, '')}${API_PREFIX}/infra-envs/${encodeURIComponent(agent.infraEnvId)}/hosts`,
  );
  const body = JSON.stringify({
    host_id: options.hostId,
    discovery_agent_version: agent.agentVersion ?? 'bootsmith-emulator-agent-stand-in',
  });
  const headers: Record<string, string> = agent.token ? { 'X-Secret-Key': agent.token } : {};
  let last = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const answer = await post(target, body, headers, ca, agent.insecure);
      if (answer.status === 200 || answer.status === 201)
        return outcome(true, `registered with ${agent.url} as host ${options.hostId} (HTTP ${answer.status})`);
      last = `HTTP ${answer.status}`;
      if (answer.status < 500) break;
    } catch (err) {
      last = (err as Error).message;
    }
    if (attempt < ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
  }
  return outcome(false, `the registration with ${agent.url} failed: ${last}`);
}
