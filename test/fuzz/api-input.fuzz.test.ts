// Fault category "api-input" (issue 15, findings 6–8): fast-check-generated hostile bodies and
// query strings against the assisted API over real HTTP to a core from the test harness —
// InfraEnv create/patch, host patch, events, and the agent endpoints (register, step replies,
// inventory, progress, heartbeat). Hostile means control characters, lone surrogates, huge and
// non-integer numbers, wrong types, deep JSON, long strings, boot-script metacharacters and
// NetworkManager keyfile injections, each dropped into an otherwise valid request.
//
// Oracles: a 5xx or a dropped connection is a crash; a request past its bound is a hang; a
// 4xx must leave storage as it was (the listing, the InfraEnv, the host); a 2xx must store
// nothing hostile (independent checks: no control characters outside multi-line fields, no
// kernel argument iPXE/grub would interpret, no keyfile line outside the known sections and
// keys). Such a case counts as a wrong acceptance.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  http as rawHttp,
  inventory,
  PULL_SECRET,
  sshKey,
  startHarness,
  type Harness,
} from '../../src/core/test-support/harness.js';
import { backends } from '../../src/platform/db/test-support/backends.js';
import { fuzzParameters, fuzzRuns } from './support/budget.js';
import { recordFigures } from './support/figures.js';

/** No API call of this category may take longer (a hang otherwise). */
const REQUEST_BOUND_MS = 10_000;
const MULTILINE_FIELDS = new Set([
  'pull_secret',
  'ssh_authorized_key',
  'ignition_config_override',
  'additional_trust_bundle',
  'network_yaml',
]);

const figures = { cases: 0, crashes: 0, hangs: 0, wrongAcceptances: 0, dataLost: 0 };
const failures: string[] = [];
function note(kind: 'crashes' | 'hangs' | 'wrongAcceptances', what: string): void {
  figures[kind]++;
  if (failures.length < 20) failures.push(`${kind}: ${what.slice(0, 300)}`);
}

async function call(
  method: string,
  url: string,
  body?: unknown,
  what = '',
): Promise<Awaited<ReturnType<typeof rawHttp>> | undefined> {
  figures.cases++;
  try {
    const r = await Promise.race([
      rawHttp(method, url, body),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('bound')), REQUEST_BOUND_MS).unref()),
    ]);
    if (r.status >= 500)
      note('crashes', `${method} ${url.slice(0, 120)} ${what} → ${r.status} ${r.text.slice(0, 120)}`);
    return r;
  } catch (err) {
    note(
      (err as Error).message === 'bound' ? 'hangs' : 'crashes',
      `${method} ${url.slice(0, 120)} ${what}: ${(err as Error).message}`,
    );
    return undefined;
  }
}

/** Percent-encodes every UTF-8 byte (lone surrogates become U+FFFD, as a client would send them). */
const pct = (v: unknown): string =>
  [...Buffer.from(String(v), 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

// ---- generators -------------------------------------------------------------------------
const controlChar = fc
  .integer({ min: 0, max: 0x9f })
  .filter((c) => c < 0x20 || c >= 0x7f)
  .map((c) => String.fromCharCode(c));
const metachar = fc.constantFrom(
  '${net0/mac}',
  '$x',
  '||',
  '&&',
  ';',
  '#',
  '"',
  "'",
  '\\',
  '|',
  '&',
  '<',
  '>',
  '{',
  '}',
  '`',
);
const injection = fc.constantFrom(
  '\n[vpn]\nservice-type=x',
  '\nmethod=shared',
  '\r\n[ipv4]',
  ';\n[proxy]',
  '\u0000',
  '\ud800',
  '\udfff',
);
const hostileString = fc.oneof(
  fc.tuple(fc.string({ maxLength: 8 }), controlChar, fc.string({ maxLength: 8 })).map(([a, c, b]) => `${a}${c}${b}`),
  fc
    .tuple(fc.constantFrom('console=ttyS0', 'a=b', '192.168.1.10', 'eth0', 'x'), metachar, fc.string({ maxLength: 6 }))
    .map(([a, m, b]) => `${a}${m}${b}`),
  fc.tuple(fc.constantFrom('192.168.1.10', '10.0.0.0/8', 'example.com', 'eth0'), injection).map(([a, i]) => `${a}${i}`),
  fc.integer({ min: 1, max: 200_000 }).map((n) => 'x'.repeat(n)),
  fc
    .tuple(fc.integer({ min: 20, max: 2048 }), fc.constantFrom('"', ' "', '" ', '\t'))
    .map(([n, end]) => `${'a'.repeat(n)}${end}`),
  fc.constantFrom('1e20', '-1', '1.5', '0x10', '99999999999999999999', 'NaN', '', ' ', '\u2028'),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
function deep(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
}
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  fc.constantFrom(1e20, -1, 1.5, Number.MAX_SAFE_INTEGER + 2, -0, 1e308, true, false, null, [], {}, [[['x']]], {
    a: { b: 'c' },
  }),
  fc.integer({ min: 20, max: 2000 }).map(deep),
  fc.array(hostileString, { maxLength: 3 }),
);

const INFRA_ENV_FIELDS = [
  'name',
  'pull_secret',
  'ssh_authorized_key',
  'additional_ntp_sources',
  'image_type',
  'ignition_config_override',
  'openshift_version',
  'cpu_architecture',
  'additional_trust_bundle',
  'cluster_id',
  'proxy.http_proxy',
  'proxy.https_proxy',
  'proxy.no_proxy',
  'kernel_arguments.value',
  'kernel_arguments.operation',
  'kernel_arguments',
  'static_network_config',
  'snc.ip',
  'snc.prefix',
  'snc.name',
  'snc.route.destination',
  'snc.route.next-hop',
  'snc.route.metric',
  'snc.dns.server',
  'snc.dns.search',
  'snc.mac',
  'snc.mtu',
  'snc.logical_nic_name',
];

function staticConfig(field: string, v: unknown): unknown {
  const yamlValue = (x: unknown) => JSON.stringify(x); // JSON is YAML: the hostile value arrives as is
  const at = (f: string, good: string) => (field === f ? yamlValue(v) : good);
  const yaml = [
    'interfaces:',
    `- name: ${at('snc.name', 'eth0')}`,
    '  type: ethernet',
    '  state: up',
    ...(field === 'snc.mtu' ? [`  mtu: ${yamlValue(v)}`] : []),
    '  ipv4:',
    '    enabled: true',
    '    address:',
    `    - ip: ${at('snc.ip', '192.168.1.10')}`,
    `      prefix-length: ${at('snc.prefix', '24')}`,
    'dns-resolver:',
    '  config:',
    `    server: [${at('snc.dns.server', '192.168.1.1')}]`,
    `    search: [${at('snc.dns.search', 'example.com')}]`,
    'routes:',
    '  config:',
    `  - destination: ${at('snc.route.destination', '10.0.0.0/8')}`,
    `    next-hop-address: ${at('snc.route.next-hop', '192.168.1.254')}`,
    `    metric: ${at('snc.route.metric', '100')}`,
  ].join('\n');
  return [
    {
      network_yaml: yaml,
      mac_interface_map: [
        {
          mac_address: field === 'snc.mac' ? v : '52:54:00:00:00:01',
          logical_nic_name: field === 'snc.logical_nic_name' ? v : 'eth0',
        },
      ],
    },
  ];
}

function infraEnvBody(field: string, v: unknown, mode: 'create' | 'update'): Record<string, unknown> {
  const body: Record<string, unknown> = mode === 'create' ? { name: 'fuzz', pull_secret: PULL_SECRET } : {};
  if (field.startsWith('proxy.')) body.proxy = { [field.slice(6)]: v };
  else if (field === 'kernel_arguments.value') body.kernel_arguments = [{ operation: 'append', value: v }];
  else if (field === 'kernel_arguments.operation') body.kernel_arguments = [{ operation: v, value: 'a=b' }];
  else if (field.startsWith('snc.') || field === 'static_network_config')
    body.static_network_config = field === 'static_network_config' ? v : staticConfig(field, v);
  else body[field] = v;
  if (mode === 'update') for (const k of ['name', 'cluster_id', 'cpu_architecture']) delete body[k];
  return body;
}

// ---- independent oracles for accepted requests -----------------------------------------
const FORBIDDEN_LINE =
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const FORBIDDEN_MULTI =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function hostileStored(value: unknown, key = ''): string | undefined {
  if (typeof value === 'string') {
    const re =
      MULTILINE_FIELDS.has(key) || key === 'static_network_config' || key === 'kernel_arguments'
        ? FORBIDDEN_MULTI
        : FORBIDDEN_LINE;
    return re.test(value) ? `control character in ${key}` : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const bad = hostileStored(v, Array.isArray(value) ? key : k);
    if (bad) return bad;
  }
  return undefined;
}

function badKarg(value: string): string | undefined {
  if (/[$\\'\u0000-\u001f]/.test(value)) return 'expansion, escape or control character';
  if (value.split(/\s+/).some((w) => w.startsWith('#') || ['||', '&&', ';'].includes(w)))
    return 'iPXE separator or comment';
  let quoted = false;
  for (const ch of value) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ';|&<>{}'.includes(ch)) return `grub metacharacter ${ch}`;
  }
  return undefined;
}

const KEYFILE_KEYS: Record<string, RegExp> = {
  connection: /^(id|uuid|type|autoconnect|autoconnect-priority)$/,
  ethernet: /^(mac-address|mtu)$/,
  ipv4: /^(method|address\d+|route\d+|dns|dns-search)$/,
  ipv6: /^(method|address\d+|route\d+|dns|dns-search)$/,
};
function badKeyfile(text: string): string | undefined {
  let section = '';
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const s = /^\[([a-z0-9-]+)\]$/.exec(line);
    if (s) {
      if (!KEYFILE_KEYS[s[1]!]) return `section [${s[1]}]`;
      section = s[1]!;
      continue;
    }
    const kv = /^([a-z0-9-]+)=(.*)$/.exec(line);
    if (!kv || !KEYFILE_KEYS[section]?.test(kv[1]!)) return `line ${JSON.stringify(line.slice(0, 60))}`;
  }
  return undefined;
}

/** The keyfiles inside the static-network-config tar (ustar: 512-byte headers, padded bodies). */
function tarFiles(buf: Buffer): string[] {
  const out: string[] = [];
  for (let off = 0; off + 512 <= buf.length;) {
    const header = buf.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(header.subarray(124, 136).toString('latin1').replace(/\0.*$/, '').trim() || '0', 8);
    out.push(buf.subarray(off + 512, off + 512 + size).toString('utf8'));
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

describe('api-input fault category', () => {
  const backend = backends().at(-1)!; // PostgreSQL when TEST_DATABASE_URL is set (faster), else PGlite
  let h: Harness;
  let cleanup: () => Promise<void>;
  let fixedEnv: { id: string };
  const hostId = '7d3f9a52-1c4e-4b8a-9f00-3c2d1e0f5a6b';

  beforeAll(async () => {
    const s = await backend.create();
    cleanup = s.cleanup;
    h = await startHarness(s, { runMonitor: false, imageServiceBaseUrl: 'http://img:8080' });
    fixedEnv = (
      await rawHttp('POST', `${h.api}/infra-envs`, {
        name: 'fixed',
        pull_secret: PULL_SECRET,
        ssh_authorized_key: sshKey(),
      })
    ).json;
    expect((await rawHttp('POST', `${h.api}/infra-envs/${fixedEnv.id}/hosts`, { host_id: hostId })).status).toBe(201);
  });
  afterAll(async () => {
    recordFigures({
      category: 'api-input',
      ...figures,
      notes:
        `InfraEnv create/patch, host patch, events queries, agent calls over HTTP on ${backend.name}; ` +
        `crash = 5xx or dropped connection; wrong acceptance = hostile text stored, or stored state changed by a 4xx` +
        (failures.length ? `; first: ${failures.join(' | ')}` : ''),
    });
    await h?.close();
    await cleanup?.();
  });

  async function listing(): Promise<string> {
    return JSON.stringify(
      (await rawHttp('GET', `${h.api}/infra-envs`)).json.map((e: { id: string; updated_at: string }) => [
        e.id,
        e.updated_at,
      ]),
    );
  }

  async function checkAccepted(id: string, what: string): Promise<void> {
    const rec = (await rawHttp('GET', `${h.api}/infra-envs/${id}`)).json as Record<string, unknown>;
    const bad = hostileStored(rec);
    if (bad) note('wrongAcceptances', `${what}: ${bad}`);
    for (const k of JSON.parse(String(rec.kernel_arguments || '[]')) as { value: string }[]) {
      const why = badKarg(k.value);
      if (why) note('wrongAcceptances', `${what}: kernel argument with ${why}`);
    }
    const tar = await fetch(`${h.api}/infra-envs/${id}/downloads/files?file_name=static-network-config`);
    if (tar.status >= 500) note('crashes', `${what}: static-network-config download ${tar.status}`);
    if (tar.status === 200) {
      for (const f of tarFiles(Buffer.from(await tar.arrayBuffer()))) {
        const why = badKeyfile(f);
        if (why) note('wrongAcceptances', `${what}: keyfile ${why}`);
      }
    }
    const script = await fetch(`${h.api}/infra-envs/${id}/downloads/files?file_name=ipxe-script`);
    if (script.status >= 500) note('crashes', `${what}: ipxe-script ${script.status}`);
  }

  it('InfraEnv create and patch: never a 5xx, nothing stored on 4xx, nothing hostile stored on 2xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...INFRA_ENV_FIELDS), hostileValue, fc.boolean(), async (field, v, patch) => {
        const what = `${patch ? 'PATCH' : 'POST'} ${field}=${JSON.stringify(v)?.slice(0, 80)}`;
        const before = await listing();
        const r = patch
          ? await call('PATCH', `${h.api}/infra-envs/${fixedEnv.id}`, infraEnvBody(field, v, 'update'), what)
          : await call('POST', `${h.api}/infra-envs`, infraEnvBody(field, v, 'create'), what);
        if (!r || r.status >= 500) return;
        if (r.status >= 400) {
          if ((await listing()) !== before) note('wrongAcceptances', `${what}: ${r.status} but storage changed`);
        } else {
          await checkAccepted(patch ? fixedEnv.id : r.json.id, what);
          if (!patch) await rawHttp('DELETE', `${h.api}/infra-envs/${r.json.id}`);
        }
      }),
      fuzzParameters(400),
    );
  });

  it('raw bodies: malformed, deep and oversized JSON never crash', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 1, max: 200_000 }).map((n) => `{"name":"x","pull_secret":${'['.repeat(n)}`),
          fc
            .integer({ min: 33, max: 100_000 })
            .map((n) => `{"name":"x","pull_secret":"p","proxy":${'['.repeat(n)}${']'.repeat(n)}}`),
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.constantFrom(
            '{"name":"\\u0000"}',
            '{"name":"\\ud800"}',
            '[1,2]',
            'null',
            '"x"',
            '{"__proto__":{"name":"x"}}',
            `{"name":"${'x'.repeat(3 * 1024 * 1024)}"}`,
          ),
        ),
        async (text) => {
          const before = await listing();
          const r = await call('POST', `${h.api}/infra-envs`, text, `raw ${JSON.stringify(text.slice(0, 60))}`);
          if (r && r.status < 500 && r.status >= 400 && (await listing()) !== before)
            note('wrongAcceptances', 'raw body stored on 4xx');
          if (r && r.status < 300) await rawHttp('DELETE', `${h.api}/infra-envs/${r.json.id}`);
        },
      ),
      fuzzParameters(80),
    );
  });

  it('host patch and agent calls: never a 5xx, the host unchanged on 4xx', async () => {
    const hostUrl = `${h.api}/infra-envs/${fixedEnv.id}/hosts/${hostId}`;
    const snapshot = async () => {
      const j = (await rawHttp('GET', hostUrl)).json as Record<string, unknown>;
      delete j.checked_in_at;
      return JSON.stringify(j);
    };
    const ops: Record<string, (v: unknown) => [string, string, unknown]> = {
      host_name: (v) => ['PATCH', hostUrl, { host_name: v }],
      host_role: (v) => ['PATCH', hostUrl, { host_role: v }],
      step_type: (v) => ['POST', `${hostUrl}/instructions`, { step_type: v, exit_code: 0, output: '' }],
      step_id: (v) => ['POST', `${hostUrl}/instructions`, { step_type: 'free-network-addresses', step_id: v }],
      exit_code: (v) => ['POST', `${hostUrl}/instructions`, { step_type: 'inventory', exit_code: v, output: '{}' }],
      output: (v) => ['POST', `${hostUrl}/instructions`, { step_type: 'inventory', exit_code: 0, output: v }],
      hostname: (v) => [
        'POST',
        `${hostUrl}/instructions`,
        { step_type: 'inventory', exit_code: 0, output: JSON.stringify(inventory({ hostname: v as string })) },
      ],
      current_stage: (v) => ['PUT', `${hostUrl}/progress`, { current_stage: v }],
      progress_info: (v) => ['PUT', `${hostUrl}/progress`, { current_stage: 'Installing', progress_info: v }],
      logs_state: (v) => ['PUT', `${hostUrl}/logs-progress`, { logs_state: v }],
      reset: () => ['POST', `${hostUrl}/actions/reset`, undefined],
      register_version: (v) => [
        'POST',
        `${h.api}/infra-envs/${fixedEnv.id}/hosts`,
        { host_id: hostId, discovery_agent_version: v },
      ],
      timestamp: (v) => ['GET', `${hostUrl}/instructions?timestamp=${pct(v)}`, undefined],
    };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(ops)), hostileValue, async (op, v) => {
        const [method, url, body] = ops[op]!(v);
        const before = await snapshot();
        const what = `${op}=${JSON.stringify(v)?.slice(0, 80)}`;
        const r = await call(method, url, body, what);
        if (!r || r.status >= 500) return;
        const host = (await rawHttp('GET', hostUrl)).json;
        if (r.status >= 400 && (await snapshot()) !== before)
          note('wrongAcceptances', `${what}: ${r.status} but the host changed`);
        if (r.status < 300) {
          const bad = hostileStored(host);
          if (bad) note('wrongAcceptances', `${what}: ${bad}`);
        }
      }),
      fuzzParameters(300),
    );
  });

  it('events queries: never a 5xx', async () => {
    const param = fc.constantFrom(
      'limit',
      'offset',
      'message',
      'order',
      'severities',
      'host_id',
      'infra_env_id',
      'cluster_id',
      'host_ids',
    );
    const rawBytes = fc.constantFrom('%ff%fe', '%00', '%c0%80', '%ed%a0%80', '%', '%zz', '%25');
    const value = fc.oneof(
      hostileString.map((v) => pct(v.slice(0, 2000))),
      rawBytes,
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(param, value), { minLength: 1, maxLength: 3 }), async (pairs) => {
        const q = pairs.map(([k, v]) => `${k}=${v}`).join('&');
        await call('GET', `${h.api}/events?${q}`, undefined, q.slice(0, 100));
      }),
      fuzzParameters(300),
    );
  });

  it('summary', () => {
    expect(figures.cases).toBeGreaterThan(fuzzRuns(1000));
    expect(failures, failures.join('\n')).toEqual([]);
  });
});
