// Issue 23, finding 6: values written into the discovery Ignition's shell scripts and systemd
// units stay inert text. Hostile proxy URLs (command substitution, `$VAR`, quotes, `%`
// escapes of a proxy password) and NTP sources are rendered, then judged by the real
// consumers: `sh -n` and dash itself (sourcing proxy.sh must give back the exact URLs),
// `systemd-analyze verify` and systemd's own unit parser (agent.service's Environment values
// must be the exact URLs), and Debian's real Ignition, which applies the whole config into a
// temporary root where the same checks run on the files it wrote. A negative control shows the
// checks catch the old, unescaped rendering. Values the URL grammar does not allow at all are
// refused with a 400 naming the field (infraenv/params.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../errors.js';
import { toolWorks, unavailable } from '../../../test/support/requirements.js';
import { parseInfraEnvParams } from '../infraenv/params.js';
import type { InfraEnvRecord } from '../model.js';
import { decodeDataUrl } from './data-url.js';
import { baseDiscoveryIgnition, renderIgnition, type DiscoveryContext } from './discovery.js';
import { shQuote, systemdEnvironment } from './escape.js';
import { applyIgnition, CAN_APPLY_IGNITION } from './test-support/real-ignition.js';
import {
  HAVE_SYSTEMD_ANALYZE,
  HAVE_SYSTEMD_PARSER,
  parseUnitWithSystemd,
  verifyUnit,
} from './test-support/systemd-tools.js';

const HAVE_DASH = toolWorks('dash', ['-c', 'true']);

/** Accepted by the URL grammar, but each one runs, expands or breaks something when unescaped. */
const HOSTILE_ACCEPTED = [
  'http://proxy.example.com:3128',
  'http://user:p%40ss%25word@proxy.example.com:3128',
  'http://user:$(id)@proxy.example.com:3128',
  'http://user:$HOME@proxy.example.com:3128',
  "http://user:it's@proxy.example.com:3128",
  'http://user:a;id;b@proxy.example.com:3128',
  'http://user:a&&id@proxy.example.com:3128',
  // %ab %Bd %d0 are valid URL escapes and systemd specifiers (%a, %B, %d) at once
  'http://user:%ab%Bd%d0@proxy.example.com:3128',
  'http://user:*!+,=@[2001:db8::1]:3128/',
  // `$1`, `$&` are also replacement patterns of String.prototype.replace
  'http://user:$1$&$$@proxy.example.com:3128',
];
/** Not URL characters at all, or not a proxy URL: refused at input. */
const HOSTILE_REFUSED: [string, RegExp][] = [
  ['http://user:`id`@proxy.example.com:3128', /must not contain "`"/],
  ['http://user:a b@proxy.example.com:3128', /must not contain " "/],
  ['http://user:a"b@proxy.example.com:3128', /must not contain "\\""/],
  ['http://user:a\\b@proxy.example.com:3128', /must not contain "\\\\"/],
  ['http://user:${HOME}@proxy.example.com:3128', /must not contain "\{"/],
  ['http://user:a|b@proxy.example.com:3128', /must not contain "\|"/],
  ['http://user:a<b@proxy.example.com:3128', /must not contain "<"/],
  ['http://user:pässword@proxy.example.com:3128', /must not contain "ä"/],
  ['http://user:%zz@proxy.example.com:3128', /two-digit escape/],
  ['http://proxy.example.com:3128/?a=$(id)', /query or a fragment/],
  ['http://proxy.example.com:3128/#x', /query or a fragment/],
  ['socks5://proxy.example.com:1080', /http/],
  [`http://${'a'.repeat(1000)}.example.com`, /at most 1000 characters/],
];

function infraEnv(proxy: string, ntp = ''): InfraEnvRecord {
  return {
    id: '0a1b2c3d-0000-4000-8000-000000000001',
    name: 'escaping',
    clusterId: null,
    openshiftVersion: '4.16',
    cpuArchitecture: 'x86_64',
    imageType: 'full-iso',
    pullSecret: '{"auths":{}}',
    sshAuthorizedKey: '',
    proxy: { http_proxy: proxy, https_proxy: proxy, no_proxy: 'example.com, .internal,10.0.0.0/8' },
    additionalNtpSources: ntp,
    staticNetworkConfig: null,
    ignitionConfigOverride: '',
    kernelArguments: null,
    additionalTrustBundle: '',
    imageTokenKey: 'k',
    agentToken: null,
    networkDiscoveryDelaySeconds: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
}

const CTX: DiscoveryContext = {
  // a configured base URL may carry a %-escape; systemd must not read it as a specifier
  serviceBaseUrl: 'http://api.example.test:8090/assisted%2Dinstall',
  agentImage: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
  agentToken: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLWJ5dGVzLWhlcmU',
};

type Cfg = {
  storage: { files: { path: string; contents: { source: string } }[] };
  systemd: { units: { name: string; contents: string }[] };
};

function fileText(cfg: Cfg, p: string): string {
  const f = cfg.storage.files.find((x) => x.path === p);
  if (!f) throw new Error(`no ${p} in the config`);
  const d = decodeDataUrl(f.contents.source);
  if (!d.ok) throw new Error(`${p}: ${d.reason}`);
  return d.data.toString('utf8');
}

function unitText(cfg: Cfg, name: string): string {
  const u = cfg.systemd.units.find((x) => x.name === name);
  if (!u) throw new Error(`no unit ${name}`);
  return u.contents;
}

function checkShellScript(text: string): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-sh-'));
  try {
    const file = path.join(dir, 'script.sh');
    writeFileSync(file, text);
    for (const shell of ['sh', ...(HAVE_DASH ? ['dash'] : [])]) {
      const r = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
      expect(r.status, `${shell} -n: ${r.stderr}`).toBe(0);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sources proxy.sh in a clean `sh` and prints what each variable holds. */
function sourcedProxyValues(text: string): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-sh-'));
  try {
    const file = path.join(dir, 'proxy.sh');
    writeFileSync(file, text);
    const names = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];
    const script = `. ${shQuote(file)}; ${names.map((n) => `printf '%s\\n' "$${n}"`).join('; ')}`;
    const r = spawnSync('sh', ['-c', script], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', HOME: '/home/nobody' },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const values = r.stdout.split('\n');
    return Object.fromEntries(names.map((n, i) => [n, values[i]!]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function expectAgentUnitParsesTo(unit: string, proxy: string): void {
  const parsed = parseUnitWithSystemd({ 'agent.service': unit }, 'agent.service');
  expect(parsed, 'systemd loaded agent.service').toBeDefined();
  for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'])
    expect(parsed!.environment, parsed!.dump.slice(0, 2000)).toContain(`${name}=${proxy}`);
  expect(parsed!.environment).toContain('NO_PROXY=example.com, .internal,10.0.0.0/8');
  expect(parsed!.environment).toContain(`PULL_SECRET_TOKEN=${CTX.agentToken}`);
  const agent = parsed!.commandLines.find((l) => l.startsWith('/usr/local/bin/agent '));
  expect(agent, parsed!.commandLines.join('\n')).toContain('http://api.example.test:8090/assisted%2Dinstall');
}

describe('hostile proxy URLs at input', () => {
  it('refuses what is not a URL character, naming the field', () => {
    for (const [url, message] of HOSTILE_REFUSED) {
      for (const key of ['http_proxy', 'https_proxy']) {
        let err: unknown;
        try {
          parseInfraEnvParams({ proxy: { [key]: url } }, 'update');
        } catch (e) {
          err = e;
        }
        expect(err, url).toBeInstanceOf(BadRequestError);
        expect((err as Error).message, url).toMatch(new RegExp(`^proxy\\.${key} `));
        expect((err as Error).message, url).toMatch(message);
      }
    }
  });

  it('accepts URL characters a shell or systemd would interpret', () => {
    for (const url of HOSTILE_ACCEPTED) {
      expect(parseInfraEnvParams({ proxy: { http_proxy: url, https_proxy: url } }, 'update').proxy, url).toEqual({
        http_proxy: url,
        https_proxy: url,
      });
    }
  });
});

describe('hostile values rendered into scripts and units', () => {
  it('writes proxy.sh that sh parses and that gives back the exact URLs, nothing run or expanded', () => {
    for (const url of HOSTILE_ACCEPTED) {
      const cfg = baseDiscoveryIgnition(infraEnv(url), CTX) as unknown as Cfg;
      const script = fileText(cfg, '/etc/profile.d/proxy.sh');
      checkShellScript(script);
      expect(sourcedProxyValues(script), url).toEqual({
        HTTP_PROXY: url,
        http_proxy: url,
        HTTPS_PROXY: url,
        https_proxy: url,
        NO_PROXY: 'example.com, .internal,10.0.0.0/8',
        no_proxy: 'example.com, .internal,10.0.0.0/8',
      });
    }
  });

  it('writes an NTP script sh parses', () => {
    const cfg = baseDiscoveryIgnition(infraEnv('', 'clock.example.com,10.0.0.1,[2001:db8::1]'), CTX) as unknown as Cfg;
    checkShellScript(fileText(cfg, '/usr/local/bin/add-ntp-sources.sh'));
  });

  describe.skipIf(
    unavailable({ 'systemd-analyze': HAVE_SYSTEMD_ANALYZE, "systemd's unit parser": HAVE_SYSTEMD_PARSER }),
  )('agent.service judged by systemd', () => {
    it('loads without a complaint and its Environment holds the exact URLs', () => {
      for (const url of HOSTILE_ACCEPTED) {
        const unit = unitText(baseDiscoveryIgnition(infraEnv(url), CTX) as unknown as Cfg, 'agent.service');
        expect(verifyUnit({ 'agent.service': unit }, 'agent.service'), url).toEqual([]);
        expectAgentUnitParsesTo(unit, url);
      }
    });

    it('catches the unescaped rendering (negative control)', () => {
      const url = 'http://user:p%40ss@proxy.example.com:3128';
      const old = `[Service]\nEnvironment=HTTP_PROXY=${url}\nExecStart=/bin/true\n`;
      const parsed = parseUnitWithSystemd({ 'old.service': old }, 'old.service');
      expect(parsed?.environment).not.toContain(`HTTP_PROXY=${url}`);
      expect(verifyUnit({ 'old.service': old }, 'old.service').join('\n')).toMatch(/Failed to resolve specifiers/);
      const escaped = `[Service]\n${systemdEnvironment('HTTP_PROXY', url)}\nExecStart=/bin/true\n`;
      expect(parseUnitWithSystemd({ 'new.service': escaped }, 'new.service')?.environment).toContain(
        `HTTP_PROXY=${url}`,
      );
    });
  });

  describe.skipIf(
    unavailable({
      "Debian's ignition (package ignition), setfiles, root": CAN_APPLY_IGNITION,
      "systemd's unit parser": HAVE_SYSTEMD_PARSER,
    }),
  )('the whole config applied by the real Ignition', () => {
    it('writes proxy.sh and agent.service that keep the hostile URLs inert', async () => {
      for (const url of [HOSTILE_ACCEPTED[2]!, HOSTILE_ACCEPTED[4]!, HOSTILE_ACCEPTED[7]!]) {
        const config = renderIgnition(baseDiscoveryIgnition(infraEnv(url, 'clock.example.com'), CTX));
        const applied = await applyIgnition(config);
        try {
          expect(applied.ok, applied.log.slice(-3000)).toBe(true);
          const script = readFileSync(path.join(applied.root, 'etc/profile.d/proxy.sh'), 'utf8');
          checkShellScript(script);
          expect(sourcedProxyValues(script).HTTP_PROXY).toBe(url);
          const unit = readFileSync(path.join(applied.root, 'etc/systemd/system/agent.service'), 'utf8');
          expectAgentUnitParsesTo(unit, url);
          checkShellScript(readFileSync(path.join(applied.root, 'usr/local/bin/add-ntp-sources.sh'), 'utf8'));
          expect(
            readFileSync(path.join(applied.root, 'etc/systemd/system-preset/20-ignition.preset'), 'utf8'),
          ).toContain('enable agent.service');
        } finally {
          await applied.cleanup();
        }
      }
    });
  });
});
