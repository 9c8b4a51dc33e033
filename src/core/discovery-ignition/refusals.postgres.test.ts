// Issue 26, deliverable 1's other half: a config Ignition would refuse (or would silently apply
// only in part) is never served. Through the assisted API of a real core over loopback:
//  - mutation cases (a wrong spec version, a bad mode, a huge file, a file that does not fit the
//    ISO's embed area, a feature or key the declared spec version lacks, a data: URL that does not
//    decode, a unit that does not parse, an override whose merge with the generated config puts a
//    generated file below a link) get a 400/413 naming the problem at InfraEnv create AND update,
//    and nothing is stored: the InfraEnv keeps its override and serves the same discovery.ign;
//    each case is checked against Debian's `ignition-validate` too (it refuses it, or warns that it
//    ignores the key), so the refusal is Ignition's rule and not a guess;
//  - a generated config that breaks Ignition's rules (here: an AGENT_DOCKER_IMAGE so long that
//    agent.service has a line over systemd's limit) is our bug: a 500 with a generic message,
//    logged with what is wrong, and nothing stored.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailable } from '../../../test/support/requirements.js';
import { http, PULL_SECRET, startHarness, type Harness } from '../test-support/harness.js';
import { backends } from '../../platform/db/test-support/backends.js';
import { MAX_OVERRIDE_BYTES } from './override-limits.js';
import { HAVE_IGNITION_VALIDATE, ignitionValidate } from './test-support/real-ignition.js';

const v = (version: string, rest: Record<string, unknown> = {}) => JSON.stringify({ ignition: { version }, ...rest });
const files = (version: string, file: Record<string, unknown>) =>
  v(version, { storage: { files: [{ path: '/etc/lab', ...file }] } });
/** Base64 of pseudo-random bytes: incompressible, as a real binary or key would be. */
function randomBase64(bytes: number): string {
  const out = Buffer.alloc(bytes);
  let x = 0x9e3779b9;
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out.toString('base64');
}

interface Mutation {
  what: string;
  override: string;
  /** Other InfraEnv fields the case needs. */
  body?: Record<string, unknown>;
  status: 400 | 413;
  message: RegExp;
  /**
   * What Debian's ignition-validate says of the override alone: it refuses it (an error), or it
   * accepts it with a warning that it ignores a key (the user's intent lost at boot); undefined
   * where the limit is ours (sizes) or only the merged config breaks the rule.
   */
  ignition?: ['refuses' | 'ignores', RegExp];
}

const MUTATIONS: Mutation[] = [
  {
    what: 'spec version 2.2.0 (Ignition 0.x/2.x configs)',
    override: v('2.2.0'),
    status: 400,
    message: /unsupported ignition\.version "2\.2\.0"/,
    ignition: ['refuses', /couldn't parse config: unsupported config version/],
  },
  {
    what: 'spec version 3.5.0 (unknown)',
    override: v('3.5.0'),
    status: 400,
    message: /unsupported ignition\.version "3\.5\.0"/,
    ignition: ['refuses', /couldn't parse config: unsupported config version/],
  },
  {
    what: 'file mode 010000',
    override: files('3.1.0', { mode: 0o10000 }),
    status: 400,
    message: /storage\.files\[0\]\.mode must be from 0 to 0o7777/,
    ignition: ['refuses', /^error at \$\.storage\.files\.0\.mode/m],
  },
  {
    what: 'file mode as a string',
    override: files('3.1.0', { mode: '0644' }),
    status: 400,
    message: /storage\.files\[0\]\.mode must be an integer/,
    ignition: [
      'refuses',
      /^error at line 1 col \d+: json: cannot unmarshal string into Go struct field File\.storage\.files\.mode/m,
    ],
  },
  {
    what: 'a huge file (the override past its byte limit)',
    override: files('3.1.0', { contents: { source: `data:;base64,${randomBase64((MAX_OVERRIDE_BYTES * 3) / 4)}` } }),
    status: 413,
    message: new RegExp(`ignition_config_override is \\d+ bytes but only ${MAX_OVERRIDE_BYTES} bytes`),
  },
  {
    what: 'a file that fits the override limit but not the ISO embed area',
    override: files('3.1.0', { contents: { source: `data:;base64,${randomBase64(300 * 1024)}` } }),
    status: 413,
    message: /compressed discovery ignition \(with ignition_config_override\) is \d+ bytes/,
  },
  {
    what: 'LUKS in spec 3.1.0 (added in 3.2.0)',
    override: v('3.1.0', { storage: { luks: [{ name: 'data', device: '/dev/sdb' }] } }),
    status: 400,
    message: /storage: key "luks" needs spec 3\.2\.0 or later \(spec 3\.1\.0\)/,
    ignition: ['ignores', /^warning at \$\.storage\.luks.*Unused key luks/m],
  },
  {
    what: 'HTTP headers in spec 3.0.0 (added in 3.1.0)',
    override: files('3.0.0', { contents: { source: 'https://h.example/x', httpHeaders: [{ name: 'A', value: 'b' }] } }),
    status: 400,
    message: /storage\.files\[0\]\.contents: key "httpHeaders" needs spec 3\.1\.0 or later/,
    ignition: ['ignores', /^warning at \$\.storage\.files\.0\.contents\.httpHeaders.*Unused key/m],
  },
  {
    what: 'kernelArguments in spec 3.2.0 (added in 3.3.0)',
    override: v('3.2.0', { kernelArguments: { shouldExist: ['nosmt'] } }),
    status: 400,
    message: /top level: key "kernelArguments" needs spec 3\.3\.0 or later/,
    ignition: ['ignores', /^warning at \$\.kernelArguments.*Unused key kernelArguments/m],
  },
  {
    what: 'a misspelled key',
    override: files('3.1.0', { overwirte: true }),
    status: 400,
    message: /storage\.files\[0\]: unknown key "overwirte"/,
    ignition: ['ignores', /^warning at \$\.storage\.files\.0\.overwirte.*Unused key overwirte/m],
  },
  {
    what: 'a data: URL that does not decode',
    override: files('3.1.0', { contents: { source: 'data:;base64,!!!!' } }),
    status: 400,
    message: /storage\.files\[0\]\.contents\.source is a data URL that does not decode/,
    ignition: ['refuses', /^error at \$\.storage\.files\.0\.contents\.source/m],
  },
  {
    what: 'a unit that does not parse',
    override: v('3.1.0', {
      systemd: { units: [{ name: 'lab.service', contents: '[Service\nExecStart=/bin/true\n' }] },
    }),
    status: 400,
    message: /systemd\.units\[0\]\.contents is not a unit: line 1 opens a section without closing it/,
    ignition: ['refuses', /^error at \$\.systemd\.units\.0\.contents/m],
  },
  {
    what: 'a link over /etc/profile.d, where the generated proxy.sh goes (only the merge breaks it)',
    override: v('3.1.0', { storage: { links: [{ path: '/etc/profile.d', target: '/var/profile.d' }] } }),
    body: { proxy: { http_proxy: 'http://proxy.example.com:3128' } },
    status: 400,
    message: /merged discovery ignition is invalid: storage\.files\[\d+\]\.path lies below a link of this config/,
  },
];

const backend = backends().at(-1)!;

describe(`configs Ignition would refuse are refused at create and update (${backend.name})`, () => {
  let h: Harness;
  let cleanup: () => Promise<void>;
  let id: string;
  let servedBefore: string;
  const GOOD = v('3.1.0', { storage: { files: [{ path: '/etc/lab', contents: { source: 'data:,ok' } }] } });

  beforeAll(async () => {
    const s = await backend.create();
    cleanup = s.cleanup;
    h = await startHarness(s, { runMonitor: false });
    const created = await http('POST', `${h.api}/infra-envs`, {
      name: 'kept',
      pull_secret: PULL_SECRET,
      ignition_config_override: GOOD,
    });
    expect(created.status, created.text).toBe(201);
    id = created.json.id as string;
    servedBefore = (await http('GET', `${h.api}/infra-envs/${id}/downloads/files?file_name=discovery.ign`)).text;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await cleanup?.();
  });

  const count = async () => ((await http('GET', `${h.api}/infra-envs`)).json as unknown[]).length;

  it.each(MUTATIONS.map((m) => [m.what, m] as const))('%s', async (_what, m) => {
    const before = await count();
    const created = await http('POST', `${h.api}/infra-envs`, {
      name: 'mutation',
      pull_secret: PULL_SECRET,
      ...m.body,
      ignition_config_override: m.override,
    });
    expect(created.status, created.text).toBe(m.status);
    expect(created.json.reason).toMatch(m.message);
    expect(await count()).toBe(before);

    const updated = await http('PATCH', `${h.api}/infra-envs/${id}`, {
      ...m.body,
      ignition_config_override: m.override,
    });
    expect(updated.status, updated.text).toBe(m.status);
    expect(updated.json.reason).toMatch(m.message);
    const kept = await http('GET', `${h.api}/infra-envs/${id}`);
    expect(kept.json.ignition_config_override).toBe(GOOD);
    expect(kept.json.proxy ?? null).toBeNull();
    const served = await http('GET', `${h.api}/infra-envs/${id}/downloads/files?file_name=discovery.ign`);
    expect(served.text).toBe(servedBefore);
  });

  describe.skipIf(unavailable({ "ignition-validate (Debian's ignition)": HAVE_IGNITION_VALIDATE }))(
    "each refusal is Ignition's own rule",
    () => {
      it.each(MUTATIONS.filter((m) => m.ignition).map((m) => [m.what, m] as const))('%s', async (_what, m) => {
        const real = await ignitionValidate(m.override);
        const [verdict, report] = m.ignition!;
        expect(real.report).toMatch(report);
        expect(real.ok, real.report).toBe(verdict === 'ignores');
        if (verdict === 'ignores') expect(real.warnings.join('\n')).toMatch(report);
      });
    },
  );
});

describe(`a generated config that breaks Ignition's rules is our bug (${backend.name})`, () => {
  it('answers 500 with a generic message, logs what is wrong, stores nothing', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          lines.push(chunk.toString('utf8'));
          cb();
        },
      }),
    );
    const s = await backend.create();
    // agent.service's ExecStartPre and ExecStart lines carry the image: past systemd's 2048-byte line limit
    const h = await startHarness(s, {
      runMonitor: false,
      logger,
      agentImage: `quay.io/lab/${'a'.repeat(2100)}:latest`,
    });
    try {
      const r = await http('POST', `${h.api}/infra-envs`, { name: 'bug', pull_secret: PULL_SECRET });
      expect(r.status).toBe(500);
      expect(r.json.reason).toBe('internal server error');
      expect((await http('GET', `${h.api}/infra-envs`)).json).toEqual([]);
      const logged = lines.join('');
      expect(logged).toMatch(
        /bootsmith rendered a discovery Ignition for infra-env [0-9a-f-]{36} that Ignition would refuse \(a bootsmith bug\): discovery ignition is invalid: systemd\.units\[0\]\.contents is not a unit: line \d+ is 2048 bytes or longer/,
      );
      expect(logged).not.toContain(PULL_SECRET.slice(10, 40));
    } finally {
      await h.close();
      await s.cleanup();
    }
  });
});
