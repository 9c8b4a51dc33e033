// Fuzz support: concurrent API writes against a running `bootsmith serve` (InfraEnv creates and
// NTP patches, host registrations), with every acknowledged (2xx) write remembered and checked
// afterwards. Used by the categories that kill a part under writes: the service itself
// (kill-during-writes) and its embedded PostgreSQL (pg-kill-during-writes).
//
// Does: send the seeded writes, hand every answer (or a failed request) to the caller's
// classifier, and verify: an acknowledged create or host missing, or an InfraEnv whose NTP
// sources are neither the acknowledged patch nor a later one that was in flight, is data lost.
// Does NOT: kill anything or decide what counts as a crash (the category does).
import { PULL_SECRET } from '../../../src/core/test-support/harness.js';

/** One request's bound: a write that has not answered by then is not acknowledged. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** A seeded generator (mulberry32): the same seed replays the same writes. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

/** One JSON request; undefined when it failed without an answer (killed, reset, timed out). */
export async function send(method: string, url: string, body?: unknown): Promise<Answer | undefined> {
  try {
    const r = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await r.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: r.status, headers: r.headers, json };
  } catch {
    return undefined;
  }
}

interface Env {
  id: string;
  /** NTP sources of the last acknowledged patch ('' = as created). */
  acked: string;
  /** Patches sent after it, acknowledged or not (any may have committed). */
  later: string[];
  /** Patches sent and not answered yet. */
  inflight: Set<string>;
  hosts: Set<string>;
}

export class WriteLoad {
  readonly envs = new Map<string, Env>();
  acknowledged = 0;
  dataLost = 0;
  readonly notes: string[] = [];

  constructor(private readonly random: () => number) {}

  /**
   * Runs `writers` concurrent writers against `api` until `stopped()` says so; `onAnswer` hears
   * every answer and every request that got none (undefined).
   */
  async run(
    api: string,
    writers: number,
    label: string,
    stopped: () => boolean,
    onAnswer: (answer: Answer | undefined, what: string) => void,
  ): Promise<void> {
    await Promise.all(Array.from({ length: writers }, (_, w) => this.writer(api, `${label}-w${w}`, stopped, onAnswer)));
  }

  private async writer(
    api: string,
    label: string,
    stopped: () => boolean,
    onAnswer: (answer: Answer | undefined, what: string) => void,
  ): Promise<void> {
    let n = 0;
    while (!stopped()) {
      n++;
      const pick = this.random();
      const existing = [...this.envs.values()];
      if (pick < 0.35 || existing.length === 0) {
        const r = await send('POST', `${api}/infra-envs`, {
          name: `${label}-${n}`,
          openshift_version: '4.17',
          pull_secret: PULL_SECRET,
        });
        onAnswer(r, 'POST infra-envs');
        if (r?.status === 201) {
          this.acknowledged++;
          this.envs.set(r.json.id, { id: r.json.id, acked: '', later: [], inflight: new Set(), hosts: new Set() });
        }
      } else if (pick < 0.65) {
        const env = existing[Math.floor(this.random() * existing.length)]!;
        const value = `ntp-${label}-${n}.example.com`;
        env.later.push(value);
        env.inflight.add(value);
        const r = await send('PATCH', `${api}/infra-envs/${env.id}`, { additional_ntp_sources: value });
        env.inflight.delete(value);
        onAnswer(r, 'PATCH infra-env');
        if (r?.status === 201 || r?.status === 200) {
          this.acknowledged++;
          // after this acknowledgement the stored value is this one, or one of the patches in
          // flight now or sent later (writers race on one InfraEnv)
          env.acked = value;
          env.later = [...env.inflight];
        }
      } else {
        const env = existing[Math.floor(this.random() * existing.length)]!;
        const hostId = crypto.randomUUID();
        const r = await send('POST', `${api}/infra-envs/${env.id}/hosts`, {
          host_id: hostId,
          discovery_agent_version: 'v1',
        });
        onAnswer(r, 'POST hosts');
        if (r?.status === 201) {
          this.acknowledged++;
          env.hosts.add(hostId);
        }
      }
    }
  }

  /** Counts (and notes) every acknowledged write `api` does not have. */
  async verify(api: string): Promise<void> {
    for (const env of this.envs.values()) {
      const r = await send('GET', `${api}/infra-envs/${env.id}`);
      if (r?.status !== 200) {
        this.lost(`InfraEnv ${env.id} missing (${r?.status})`);
        continue;
      }
      const ntp = r.json.additional_ntp_sources ?? '';
      if (ntp !== env.acked && !env.later.includes(ntp))
        this.lost(`InfraEnv ${env.id} ntp "${ntp}" is neither the acknowledged "${env.acked}" nor a later patch`);
      const hosts = await send('GET', `${api}/infra-envs/${env.id}/hosts`);
      const have = new Set((hosts?.json ?? []).map((h: { id: string }) => h.id));
      for (const h of env.hosts) if (!have.has(h)) this.lost(`host ${h} of ${env.id} missing`);
    }
  }

  private lost(note: string): void {
    this.dataLost++;
    this.notes.push(note);
  }
}
