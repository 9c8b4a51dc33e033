// Issue 26, deliverable 1: every discovery-Ignition variant bootsmith can produce, judged by
// Debian's real Ignition 2.14 (test-support/real-ignition.ts). One row per variant:
//
//  - the core's variants are made through the real path: InfraEnvs created over loopback on a
//    real all-in-one service (core + image side, PostgreSQL, the demo live ISO), per auth mode and
//    with SERVICE_CA_CERT_FILE; each row takes the `discovery.ign` download AND the config the
//    served ISO (full or minimal) carries in its embed area (read with xorriso, an independent ISO
//    reader), which must be the same bytes, with the same keyfiles in the ISO's network archive as
//    in the Ignition; one row is served by a `--role image` replica fronting the core (remote mode);
//  - the live configs `bootsmith iso customize` / `pxe customize` write are made by running the
//    verbs (in-process) on the fixture ISO and its PXE initrd, and read back from their output.
//
// Each config then goes through `ignition-validate` (no error; every warning listed in its row with
// a one-line reason, an unlisted warning fails) and through the Ignition binary (`fetch-offline`
// then `files` into a scratch root): the written tree must hold every file, mode, owner, unit,
// dropin, preset line and user the config asks for (applied-tree.ts checkApplied, also for each
// child config merged at boot), plus what the row itself promises (contents that must, or must not,
// be there). Rows run concurrently, one Ignition process each.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../../cli/test-support/captured-io.js';
import { loadConfig } from '../../config.js';
import { DEMO_IMAGE_PATH } from '../../package-root.js';
import { readEmbedArea } from '../../initrd/embed-archive.js';
import { lastByPath, readInitrd } from '../../initrd/initrd.js';
import { createLogger } from '../../logger.js';
import { type RunningService, startService } from '../../service.js';
import { type AllInOne, API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../../test/support/all-in-one.js';
import { HAVE_OPENSSL, HAVE_XORRISO, REPO_ROOT } from '../../../test/support/probes.js';
import { unavailable } from '../../../test/support/requirements.js';
import { sshKey } from '../test-support/harness.js';
import { parseRegistriesConf } from '../../images/fetch/oci/registries-conf.js';
import { renderRegistriesConf } from '../../images/fetch/oci/registries-conf-render.js';
import { sha256Hex } from '../../images/fetch/oci/test-support/oci-images.js';
import { HAVE_REGISTRY_TOOLS } from '../../images/fetch/oci/test-support/registry-lab.js';
import { type MirrorSite, startMirrorSite } from '../../images/fetch/oci/test-support/mirror-site.js';
import { checkApplied, dataUrlBytes } from './test-support/applied-tree.js';
import {
  applyIgnition,
  CAN_APPLY_IGNITION,
  HAVE_IGNITION_VALIDATE,
  type IgnitionRun,
  ignitionValidate,
} from './test-support/real-ignition.js';

/** Where the written keyfiles go (discovery.ts) and where the live initramfs takes them from. */
const NM_DIR = '/etc/NetworkManager/system-connections';
const FIRSTBOOT_DIR = 'etc/coreos-firstboot-network';

// ------------------------------------------------------------------ inputs of the variants

function makeCaPem(dir: string, name: string): string {
  const file = path.join(dir, `${name}.pem`);
  execFileSync(
    'openssl',
    [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-keyout', path.join(dir, `${name}.key`), '-out', file, '-days', '2', '-subj', `/CN=${name}`,
    ], // prettier-ignore
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return readFileSync(file, 'utf8');
}

const SSH_KEY = sshKey();
const SSH_KEY_2 = sshKey();
const HOST_A = [
  { mac_address: '52:54:00:aa:00:01', logical_nic_name: 'eno1' },
  { mac_address: '52:54:00:aa:00:02', logical_nic_name: 'eno2' },
];
const HOST_B = [{ mac_address: '52:54:00:bb:00:01', logical_nic_name: 'eth0' }];
/** Host A: an 802.3ad bond of two NICs, a VLAN on it, IPv4 and IPv6 addresses, DNS and a route. */
const BOND_VLAN_IPV6 = `interfaces:
- {name: eno1, type: ethernet, state: up}
- {name: eno2, type: ethernet, state: up}
- name: bond0
  type: bond
  state: up
  link-aggregation:
    mode: 802.3ad
    options: {miimon: '100'}
    port: [eno1, eno2]
- name: bond0.120
  type: vlan
  state: up
  vlan: {base-iface: bond0, id: 120}
  ipv4: {enabled: true, address: [{ip: 10.120.0.11, prefix-length: 24}]}
  ipv6: {enabled: true, address: [{ip: 'fd12::11', prefix-length: 64}]}
dns-resolver:
  config: {server: [10.120.0.1]}
routes:
  config:
  - {destination: 0.0.0.0/0, next-hop-address: 10.120.0.1, next-hop-interface: bond0.120}
`;
/** Host B: a Linux bridge over one NIC, IPv6 only. */
const BRIDGE_IPV6 = `interfaces:
- {name: eth0, type: ethernet, state: up}
- name: br0
  type: linux-bridge
  state: up
  bridge:
    options: {stp: {enabled: false}}
    port: [{name: eth0}]
  ipv4: {enabled: false}
  ipv6: {enabled: true, address: [{ip: 'fd13::2', prefix-length: 64}]}
`;
const STATIC_NETWORK = [
  { network_yaml: BOND_VLAN_IPV6, mac_interface_map: HOST_A },
  { network_yaml: BRIDGE_IPV6, mac_interface_map: HOST_B },
];

const UNIT = (what: string) =>
  `[Unit]\nDescription=${what}\n\n[Service]\nType=oneshot\nExecStart=/bin/true\n\n[Install]\nWantedBy=multi-user.target\n`;
const dataUrl = (text: string) => `data:;base64,${Buffer.from(text).toString('base64')}`;
const MOTD_OVERRIDE = 'Discovery host of the lab (override)\n';
const DROPIN = '[Service]\nEnvironment=BOOTSMITH_EXTRA=1\n';

/** An override that replaces a generated file (/etc/motd), adds a user key, a directory and a link. */
const OVERRIDE_REPLACES = JSON.stringify({
  ignition: { version: '3.2.0' },
  passwd: { users: [{ name: 'core', sshAuthorizedKeys: [SSH_KEY_2] }] },
  storage: {
    files: [{ path: '/etc/motd', mode: 0o600, overwrite: true, contents: { source: dataUrl(MOTD_OVERRIDE) } }],
    directories: [{ path: '/var/lib/lab', mode: 0o750 }],
    links: [{ path: '/etc/lab-motd', target: '/etc/motd' }],
  },
});
/** An override that adds an enabled unit, a dropin to the agent's unit, masks one and disables another. */
const OVERRIDE_UNITS = JSON.stringify({
  ignition: { version: '3.1.0' },
  systemd: {
    units: [
      { name: 'lab-report.service', enabled: true, contents: UNIT('lab report') },
      { name: 'agent.service', dropins: [{ name: '10-lab.conf', contents: DROPIN }] },
      { name: 'zincati.service', mask: true },
      { name: 'lab-idle.service', enabled: false, contents: UNIT('lab idle') },
    ],
  },
});
/** An enabled unit without an [Install] section: accepted (as upstream), Ignition warns. */
const OVERRIDE_NO_INSTALL = JSON.stringify({
  ignition: { version: '3.3.0' },
  systemd: {
    units: [{ name: 'lab-once.service', enabled: true, contents: '[Service]\nType=oneshot\nExecStart=/bin/true\n' }],
  },
});

// ------------------------------------------------------------------ what a row promises

interface Applied {
  /** The config Ignition ran (the served bytes). */
  config: Buffer;
  cfg: { ignition: { version: string; proxy?: unknown } } & Record<string, unknown>;
  run: IgnitionRun;
  /** A file Ignition wrote, as text; throws when absent. */
  text(p: string): string;
  has(p: string): boolean;
  presets: string;
  infraEnvId: string;
  service: Service | undefined;
  /** What the row was made from (the InfraEnv body, or the customize inputs). */
  inputs: Record<string, string>;
}

type ServiceName = 'none' | 'local' | 'ca' | 'mirror';
interface Service {
  aio: AllInOne;
  ca?: string;
  /** The disconnected site the 'mirror' service's registry settings describe (absent without docker-registry). */
  site?: MirrorSite;
  /** Its agent image, mirrored: what hosts must pull through the mirror. */
  agentImage?: { ref: string; bytes: Buffer };
  registriesConfFile?: string;
  registryCa?: string;
}

interface Row {
  name: string;
  /** ignition-validate warnings this variant has, each with why it is fine; any other fails. */
  warnings: [RegExp, string][];
  /** The variant's own promises (the common ones of its kind run too). */
  check(a: Applied): void | Promise<void>;
}
interface ApiRow extends Row {
  service: ServiceName;
  body: Record<string, unknown>;
  imageType?: 'full-iso' | 'minimal-iso';
  /** Served by a `--role image` replica fronting the core. */
  viaReplica?: boolean;
}
interface CustomizeRow extends Row {
  verb: 'iso' | 'pxe';
  args: (input: Record<string, string>) => string[];
}

/** `export` lines of proxy.sh, sourced by sh: the value of each variable. */
function sourced(script: string, names: string[]): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bootsmith-sh-'));
  try {
    writeFileSync(path.join(dir, 'p.sh'), script);
    const out = execFileSync('sh', ['-c', `. "$0"; for n in ${names.join(' ')}; do eval "printf '%s\\n' \\"\\$$n\\""; done`, path.join(dir, 'p.sh')], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin' },
    }); // prettier-ignore
    const values = out.split('\n');
    return Object.fromEntries(names.map((n, i) => [n, values[i]!]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** agent.service's `Environment=NAME=value` lines (one plain word each in these rows). */
function unitEnvironment(unit: string): Map<string, string> {
  const env = new Map<string, string>();
  for (const m of unit.matchAll(/^Environment="?([A-Za-z_]+)=(.*?)"?$/gm)) env.set(m[1]!, m[2]!.replaceAll('%%', '%'));
  return env;
}

/** What every InfraEnv variant promises: the agent, its credential per auth mode, the pull secret. */
async function commonApiPromises(a: Applied, row: ApiRow): Promise<void> {
  const s = a.service!;
  expect(a.text('/root/.docker/config.json')).toBe(PULL_SECRET);
  expect(a.run.tree.get('/root/.docker/config.json')).toMatchObject({ mode: 0o600, uid: 0, gid: 0 });
  const agent = a.text('/etc/systemd/system/agent.service');
  const exec = /^ExecStart=(.*)$/m.exec(agent)?.[1] ?? '';
  expect(exec).toContain(`--url ${s.aio.service.serviceBaseUrl} `);
  expect(exec).toContain(`--infra-env-id ${a.infraEnvId} `);
  expect(a.presets.split('\n')).toContain('enable agent.service');
  expect(a.text('/etc/passwd')).toMatch(/^core:x:\d+:\d+::\/home\/core:/m);
  const token = unitEnvironment(agent).get('PULL_SECRET_TOKEN');
  if (row.service === 'local') {
    // the credential the agent gets is the one the API takes from an agent, and only for this InfraEnv
    expect(token, 'PULL_SECRET_TOKEN in agent.service').toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const register = (id: string) =>
      fetch(`${s.aio.service.url}${API}/infra-envs/${id}/hosts`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Secret-Key': token! },
        body: JSON.stringify({ host_id: randomUUID() }),
      });
    expect((await register(a.infraEnvId)).status).toBe(201);
    expect([401, 403]).toContain((await register(randomUUID())).status);
  } else {
    expect(token, 'no agent credential with AUTH_TYPE=none').toBeUndefined();
  }
  if (s.ca) {
    expect(exec).toContain('--cacert /etc/assisted-service/service-ca-cert.crt');
    expect(a.text('/etc/assisted-service/service-ca-cert.crt')).toBe(s.ca);
  } else {
    expect(exec).not.toContain('--cacert');
    expect(a.has('/etc/assisted-service/service-ca-cert.crt')).toBe(false);
  }
  const proxied = row.body.proxy !== undefined;
  expect(a.has('/etc/profile.d/proxy.sh')).toBe(proxied);
  expect(a.cfg.ignition.proxy !== undefined).toBe(proxied);
  if (!proxied) expect(agent).not.toMatch(/_PROXY=./);
  expect(a.has('/usr/local/bin/add-ntp-sources.sh')).toBe(row.body.additional_ntp_sources !== undefined);
  if (row.body.static_network_config === undefined) expect(a.has(NM_DIR)).toBe(false);
}

function expectProxy(a: Applied, http: string, https: string, noProxy: string): void {
  const values = { HTTP_PROXY: http, http_proxy: http, HTTPS_PROXY: https, https_proxy: https };
  const all = { ...values, NO_PROXY: noProxy, no_proxy: noProxy };
  expect(sourced(a.text('/etc/profile.d/proxy.sh'), Object.keys(all))).toEqual(all);
  expect(a.run.tree.get('/etc/profile.d/proxy.sh')).toMatchObject({ mode: 0o644, uid: 0 });
  const env = unitEnvironment(a.text('/etc/systemd/system/agent.service'));
  for (const [k, v] of Object.entries(all)) expect(env.get(k), k).toBe(v);
  expect(a.cfg.ignition.proxy).toEqual({
    httpProxy: http,
    httpsProxy: https,
    noProxy: noProxy.split(',').map((s) => s.trim()),
  });
}

function expectKeyfiles(a: Applied, facts: RegExp[]): void {
  const names = [...a.run.tree.keys()].filter((p) => p.startsWith(`${NM_DIR}/`)).map((p) => p.slice(NM_DIR.length + 1));
  // bond0, its two ports, the VLAN on it (host A); br0 and its port (host B): one keyfile each, MAC-bound
  expect(names.sort()).toEqual(
    [
      'bond0-525400aa0001',
      'bond0.120-525400aa0001',
      'eno1-525400aa0001',
      'eno2-525400aa0001',
      'br0-525400bb0001',
      'eth0-525400bb0001',
    ]
      .map((n) => `${n}.nmconnection`)
      .sort(),
  );
  for (const n of names) expect(a.run.tree.get(`${NM_DIR}/${n}`)).toMatchObject({ mode: 0o600, uid: 0, gid: 0 });
  const all = names.map((n) => a.text(`${NM_DIR}/${n}`)).join('\n');
  for (const fact of facts) expect(all).toMatch(fact);
}

const NETWORK_FACTS = [
  /^type=bond$/m,
  /^mode=802\.3ad$/m,
  /^type=vlan$/m,
  /^id=120$/m,
  /^type=bridge$/m,
  /^address1=fd12::11\/64/m,
  /^address1=fd13::2\/64/m,
];

// ------------------------------------------------------------------ the table

const API_ROWS: ApiRow[] = [
  {
    name: 'plain (AUTH_TYPE=none)',
    service: 'none',
    body: {},
    warnings: [],
    check(a) {
      expect(a.text('/etc/motd')).toMatch(/^This is a discovery image host/);
      expect(a.has('/home/core/.ssh')).toBe(false);
    },
  },
  {
    name: 'plain with an SSH key (AUTH_TYPE=local: the agent credential in agent.service)',
    service: 'local',
    body: { ssh_authorized_key: SSH_KEY },
    warnings: [],
    check(a) {
      expect(a.text('/home/core/.ssh/authorized_keys.d/ignition')).toBe(`${SSH_KEY}\n`);
    },
  },
  {
    name: 'HTTP proxy without credentials, no_proxy',
    service: 'none',
    body: {
      proxy: { http_proxy: 'http://proxy.example.com:3128', no_proxy: '.cluster.local, 10.0.0.0/8,example.com' },
    },
    warnings: [],
    check(a) {
      expect(sourced(a.text('/etc/profile.d/proxy.sh'), ['HTTPS_PROXY', 'HTTP_PROXY'])).toEqual({
        HTTPS_PROXY: '',
        HTTP_PROXY: 'http://proxy.example.com:3128',
      });
      expect(a.cfg.ignition.proxy).toEqual({
        httpProxy: 'http://proxy.example.com:3128',
        noProxy: ['.cluster.local', '10.0.0.0/8', 'example.com'],
      });
    },
  },
  {
    name: 'HTTP and HTTPS proxies with credentials (%-escapes, $ and quotes in the password), no_proxy',
    service: 'local',
    body: {
      proxy: {
        http_proxy: "http://lab:p%40ss$1'x@proxy.example.com:3128",
        https_proxy: 'https://lab:s%25cret@[2001:db8::3]:3129/',
        no_proxy: 'example.com,.internal',
      },
    },
    warnings: [],
    check(a) {
      expectProxy(
        a,
        "http://lab:p%40ss$1'x@proxy.example.com:3128",
        'https://lab:s%25cret@[2001:db8::3]:3129/',
        'example.com,.internal',
      );
    },
  },
  {
    name: 'additional trust bundle (two CAs)',
    service: 'none',
    body: { additional_trust_bundle: '@bundle' },
    warnings: [],
    check(a) {
      const p = '/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem';
      expect(a.text(p)).toBe(a.inputs.bundle);
      expect(a.run.tree.get(p)).toMatchObject({ mode: 0o644, uid: 0 });
    },
  },
  {
    name: 'NTP sources (name, IPv4, IPv6)',
    service: 'none',
    body: { additional_ntp_sources: 'clock.example.com, 10.0.0.1,2001:db8::123' },
    warnings: [],
    check(a) {
      const script = '/usr/local/bin/add-ntp-sources.sh';
      expect(a.run.tree.get(script)).toMatchObject({ mode: 0o755, uid: 0 });
      execFileSync('sh', ['-n', path.join(a.run.root, script)]);
      // the script's source list, as sh splits it
      const list = /^for src in (.*); do$/m.exec(a.text(script))?.[1] ?? '';
      expect(execFileSync('sh', ['-c', `for s in ${list}; do echo "$s"; done`], { encoding: 'utf8' })).toBe(
        'clock.example.com\n10.0.0.1\n2001:db8::123\n',
      );
      expect(a.presets.split('\n')).toContain('enable add-ntp-sources.service');
    },
  },
  {
    name: 'SERVICE_CA_CERT_FILE (the agent gets --cacert)',
    service: 'ca',
    body: {},
    warnings: [],
    check(a) {
      expect(a.run.tree.get('/etc/assisted-service/service-ca-cert.crt')).toMatchObject({ mode: 0o644, uid: 0 });
    },
  },
  {
    name: 'static network: bond + VLAN + IPv4/IPv6, bridge + IPv6 (keyfiles in the Ignition and the ISO)',
    service: 'none',
    body: { static_network_config: STATIC_NETWORK },
    warnings: [],
    check: (a) => expectKeyfiles(a, NETWORK_FACTS),
  },
  {
    name: 'minimal ISO with static network (keyfiles in its embed area too)',
    service: 'local',
    body: { static_network_config: STATIC_NETWORK },
    imageType: 'minimal-iso',
    warnings: [],
    check: (a) => expectKeyfiles(a, NETWORK_FACTS),
  },
  {
    name: 'override (3.2.0) replacing a generated file, adding a key, a directory and a link',
    service: 'none',
    body: { ssh_authorized_key: SSH_KEY, ignition_config_override: OVERRIDE_REPLACES },
    warnings: [],
    check(a) {
      expect(a.cfg.ignition.version).toBe('3.2.0');
      expect(a.text('/etc/motd')).toBe(MOTD_OVERRIDE);
      expect(a.run.tree.get('/etc/motd')).toMatchObject({ mode: 0o600 });
      expect(a.text('/home/core/.ssh/authorized_keys.d/ignition')).toBe(`${SSH_KEY}\n${SSH_KEY_2}\n`);
      expect(a.run.tree.get('/var/lib/lab')).toMatchObject({ type: 'd', mode: 0o750 });
      expect(a.run.tree.get('/etc/lab-motd')).toMatchObject({ type: 'l', target: '/etc/motd' });
    },
  },
  {
    name: 'override adding units: enabled, disabled, masked, and a dropin to agent.service',
    service: 'local',
    body: { ignition_config_override: OVERRIDE_UNITS },
    warnings: [],
    check(a) {
      expect(a.text('/etc/systemd/system/agent.service.d/10-lab.conf')).toBe(DROPIN);
      expect(a.run.tree.get('/etc/systemd/system/zincati.service')).toMatchObject({ type: 'l', target: '/dev/null' });
      const presets = a.presets.split('\n');
      for (const line of ['enable agent.service', 'enable lab-report.service', 'disable lab-idle.service'])
        expect(presets).toContain(line);
      // the generated unit is still whole beside the dropin
      expect(a.text('/etc/systemd/system/agent.service')).toMatch(/^ExecStart=\/usr\/local\/bin\/agent /m);
    },
  },
  {
    name: 'override (3.3.0) with an enabled unit lacking [Install]',
    service: 'none',
    body: { ignition_config_override: OVERRIDE_NO_INSTALL },
    warnings: [
      [
        /systemd\.units\.1\.contents.*"lab-once\.service" is enabled, but has no install section/,
        "the user's unit as written (accepted, as upstream does); Ignition writes it, enabling does nothing",
      ],
    ],
    check(a) {
      expect(a.cfg.ignition.version).toBe('3.3.0');
      expect(a.presets.split('\n')).toContain('enable lab-once.service');
    },
  },
  {
    name: 'registry mirrors (REGISTRIES_CONF_FILE, REGISTRY_CA_FILE): hosts pull the agent image from the mirror',
    service: 'mirror',
    body: {},
    warnings: [],
    async check(a) {
      const s = a.service!;
      const conf = '/etc/containers/registries.conf';
      const policy = '/etc/containers/policy.json';
      const anchor = '/etc/pki/ca-trust/source/anchors/domain.crt';
      for (const p of [conf, policy, anchor])
        expect(a.run.tree.get(p), p).toMatchObject({ mode: 0o644, uid: 0, gid: 0 });
      // what bootsmith resolves its own pulls against, rendered for the hosts
      const parsed = parseRegistriesConf(readFileSync(s.registriesConfFile!, 'utf8'), 'REGISTRIES_CONF_FILE');
      expect(a.text(conf)).toBe(renderRegistriesConf(parsed));
      expect(a.text(anchor)).toBe(s.registryCa);
      expect(JSON.parse(a.text(policy))).toMatchObject({ default: [{ type: 'insecureAcceptAnything' }] });
      // the agent image agent.service pulls is the primary's reference…
      expect(a.text('/etc/systemd/system/agent.service')).toContain(s.agentImage!.ref);
      if (!s.site) {
        expect(unavailable(HAVE_REGISTRY_TOOLS), 'docker-registry and skopeo for the pull check').toBe(true);
        return;
      }
      // …and skopeo (containers-image, as podman and CRI-O on the host) pulls it with the files
      // Ignition wrote, through the mirror, with the primary down
      const out = path.join(a.run.root, 'pulled');
      execFileSync(
        'skopeo',
        [
          '--registries-conf', path.join(a.run.root, conf),
          '--policy', path.join(a.run.root, policy),
          'copy', '--quiet',
          '--src-cert-dir', path.join(a.run.root, path.dirname(anchor)),
          '--src-authfile', s.site.authFile,
          `docker://${s.agentImage!.ref}`, `dir:${out}`,
        ], // prettier-ignore
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const digest = sha256Hex(s.agentImage!.bytes);
      expect(readFileSync(path.join(out, digest)).equals(s.agentImage!.bytes)).toBe(true);
    },
  },
  {
    name: 'remote mode: a --role image replica serving the core’s config (the same bytes)',
    service: 'local',
    body: { proxy: { https_proxy: 'http://proxy.example.com:3128' } },
    viaReplica: true,
    warnings: [
      [
        /ignition\.proxy\.httpsProxy.*insecure plaintext HTTP proxy specified for HTTPS resources/,
        'an http:// proxy for HTTPS traffic (a CONNECT tunnel) is what most sites run; the user chose it',
      ],
    ],
    check(a) {
      expect(sourced(a.text('/etc/profile.d/proxy.sh'), ['HTTPS_PROXY'])).toEqual({
        HTTPS_PROXY: 'http://proxy.example.com:3128',
      });
    },
  },
];

const CUSTOMIZE_ROWS: CustomizeRow[] = [
  {
    name: 'iso customize: every option the fixture supports',
    verb: 'iso',
    args: (i) => [
      '--dest-device', '/dev/vda',
      '--dest-ignition', i['dest.ign']!,
      '--dest-karg-append', 'console=ttyS0',
      '--pre-install', i['pre.sh']!,
      '--post-install', i['post.sh']!,
      '--installer-config', i['install.yaml']!,
      '--live-ignition', i['live.ign']!,
      '--ignition-ca', i['ca.pem']!,
      '--network-keyfile', i['eth0.nmconnection']!,
    ], // prettier-ignore
    warnings: [],
    check(a) {
      expect(a.cfg.ignition.version).toBe('3.3.0');
      for (const [p, mode] of [
        ['/usr/local/bin/pre-install-pre.sh', 0o700],
        ['/usr/local/bin/post-install-post.sh', 0o700],
        ['/etc/coreos/installer.d/0000-install.yaml', 0o600],
        ['/etc/coreos/dest.ign', 0o600],
        ['/etc/coreos/installer.d/0001-customize.yaml', 0o600],
      ] as const)
        expect(a.run.tree.get(p), p).toMatchObject({ type: 'f', mode, uid: 0 });
      expect(a.text('/usr/local/bin/post-install-post.sh')).toBe(a.inputs['post.sh']);
      expect(a.text('/etc/coreos/installer.d/0000-install.yaml')).toBe(a.inputs['install.yaml']);
      expect(a.text('/etc/coreos/installer.d/0001-customize.yaml')).toBe(
        'ignition-file: /etc/coreos/dest.ign\nappend-karg:\n  - console=ttyS0\ncopy-network: true\ndest-device: /dev/vda\n',
      );
      expect(JSON.parse(a.text('/etc/coreos/dest.ign'))).toHaveProperty('ignition.version');
      // the --live-ignition config, merged at boot by Ignition itself
      expect(a.text('/etc/live-marker')).toBe('live\n');
      const presets = a.presets.split('\n');
      for (const u of ['pre-install-pre.sh.service', 'post-install-post.sh.service', 'live-marker.service'])
        expect(presets).toContain(`enable ${u}`);
    },
  },
  {
    name: 'pxe customize: live Ignition, CA and keyfile appended to the PXE initrd',
    verb: 'pxe',
    args: (i) => [
      '--live-ignition', i['live.ign']!,
      '--ignition-ca', i['ca.pem']!,
      '--network-keyfile', i['eth0.nmconnection']!,
    ], // prettier-ignore
    warnings: [],
    check(a) {
      expect(a.text('/etc/live-marker')).toBe('live\n');
      expect(a.presets.split('\n')).toContain('enable live-marker.service');
    },
  },
];

// ------------------------------------------------------------------ running a row

/** The child configs a config merges at boot (`ignition.config.merge` data URLs), decoded. */
function mergedChildren(config: Buffer): Buffer[] {
  const cfg = JSON.parse(config.toString('utf8')) as {
    ignition: { config?: { merge?: { source: string; compression?: string }[] } };
  };
  return (cfg.ignition.config?.merge ?? []).map((r) => dataUrlBytes(r.source, r.compression));
}

/**
 * Validates and applies `config`, then checks the written root as the config, the row and
 * `promises` (what every variant of its kind promises) say.
 */
async function judge(
  row: Row,
  config: Buffer,
  extra: { infraEnvId: string; service: Service | undefined; inputs: Record<string, string> },
  promises: (a: Applied) => Promise<void> = async () => {},
): Promise<void> {
  const validated = await ignitionValidate(config);
  expect(validated.errors, validated.report).toEqual([]);
  expect(validated.ok, validated.report).toBe(true);
  const unexpected = validated.warnings.filter((w) => !row.warnings.some(([re]) => re.test(w)));
  expect(unexpected, 'ignition-validate warnings not listed in the row').toEqual([]);
  for (const [re, why] of row.warnings)
    expect(
      validated.warnings.some((w) => re.test(w)),
      `listed warning (${why}) not given`,
    ).toBe(true);

  const run = await applyIgnition(config);
  try {
    expect(Object.fromEntries([...run.stages].map(([s, r]) => [s, r.exit])), run.log.slice(-4000)).toEqual({
      'fetch-offline': 0,
      files: 0,
    });
    const presets = [...run.presets.values()].join('');
    expect(checkApplied(config, run.tree, presets)).toEqual([]);
    for (const child of mergedChildren(config)) expect(checkApplied(child, run.tree, presets)).toEqual([]);
    const applied: Applied = {
      config,
      cfg: JSON.parse(config.toString('utf8')) as Applied['cfg'],
      run,
      text: (p) => readFileSync(path.join(run.root, p), 'utf8'),
      has: (p) => run.tree.has(p),
      presets,
      ...extra,
    };
    await row.check(applied);
    await promises(applied);
  } finally {
    await run.cleanup();
  }
}

/** The embed area of an ISO file read with xorriso: the Ignition config and the keyfiles after it. */
async function embedded(iso: string): Promise<{ ignition: Buffer | undefined; keyfiles: Map<string, Buffer> }> {
  const out = `${iso}.ignition.img`;
  execFileSync('xorriso', ['-osirrox', 'on', '-indev', iso, '-extract', '/images/ignition.img', out], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const area = await readEmbedArea(await readFile(out));
  return {
    ignition: area.ignition,
    keyfiles: new Map(area.networkKeyfiles.map((k) => [k.name, k.content])),
  };
}

describe.skipIf(
  unavailable({
    "ignition-validate (Debian's ignition)": HAVE_IGNITION_VALIDATE,
    "Debian's ignition, setfiles (policycoreutils), run as root": CAN_APPLY_IGNITION,
    xorriso: HAVE_XORRISO,
    openssl: HAVE_OPENSSL,
  }),
)('every discovery-Ignition variant, through the real Ignition', () => {
  const services = {} as Record<ServiceName, Service>;
  let site: MirrorSite | undefined;
  let replica: RunningService;
  let dir: string;
  const inputs: Record<string, string> = {};
  const files: Record<string, string> = {};

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bootsmith-variants-'));
    const serviceCa = makeCaPem(dir, 'service-ca');
    inputs.bundle = makeCaPem(dir, 'lab-ca-1') + makeCaPem(dir, 'lab-ca-2');
    inputs['ca.pem'] = makeCaPem(dir, 'ignition-ca');
    await writeFile(path.join(dir, 'service-ca.pem'), serviceCa);
    // the disconnected site of the 'mirror' row; without docker-registry its files alone (the row
    // then checks the written files, and says why it cannot pull)
    site = unavailable(HAVE_REGISTRY_TOOLS) ? undefined : await startMirrorSite();
    const agentBytes = Buffer.from(`agent image layer ${randomUUID()}\n`);
    const agentRef = site
      ? site.sourceRef('agent', site.publish('agent', agentBytes, 'agent.tar'))
      : `127.0.0.1:9/ocp/agent@sha256:${sha256Hex('none')}`;
    const registriesConfFile = site?.registriesConfFile ?? path.join(dir, 'registries.conf');
    if (!site)
      await writeFile(
        registriesConfFile,
        '[[registry]]\nprefix = "127.0.0.1:9/ocp"\nlocation = "127.0.0.1:9/ocp"\n[[registry.mirror]]\nlocation = "127.0.0.1:10/m/ocp"\npull-from-mirror = "digest-only"\n',
      );
    const registryCaFile = site?.caFile ?? path.join(dir, 'registry-ca.pem');
    if (!site) await writeFile(registryCaFile, makeCaPem(dir, 'registry-ca'));
    const [none, local, ca, mirrored] = await Promise.all([
      startAllInOne({ AUTH_TYPE: 'none' }),
      startAllInOne({ AUTH_TYPE: 'local' }),
      startAllInOne({ AUTH_TYPE: 'none', SERVICE_CA_CERT_FILE: path.join(dir, 'service-ca.pem') }),
      startAllInOne({
        AUTH_TYPE: 'none',
        REGISTRIES_CONF_FILE: registriesConfFile,
        REGISTRY_CA_FILE: registryCaFile,
        AGENT_DOCKER_IMAGE: agentRef,
      }),
    ]);
    services.none = { aio: none };
    services.local = { aio: local };
    services.ca = { aio: ca, ca: serviceCa };
    services.mirror = {
      aio: mirrored,
      ...(site ? { site } : {}),
      agentImage: { ref: agentRef, bytes: agentBytes },
      registriesConfFile,
      registryCa: readFileSync(registryCaFile, 'utf8'),
    };
    const replicaDir = path.join(dir, 'replica');
    replica = await startService(
      loadConfig(
        {
          LISTEN_PORT: '0',
          LISTEN_ADDRESS: '127.0.0.1',
          DATA_DIR: replicaDir,
          ASSISTED_SERVICE_URL: local.service.url,
          OS_IMAGES: JSON.stringify([
            { openshift_version: DEMO_VERSION, cpu_architecture: 'x86_64', url: DEMO_IMAGE_PATH, version: '417.94.1' },
          ]),
        },
        ['--role', 'image'],
      ),
      createLogger('silent'),
      { defaultMetrics: false },
    );
    await replica.imagesLoaded;

    // the customize verbs' inputs
    inputs['dest.ign'] = '{"ignition":{"version":"3.3.0"},"storage":{"files":[{"path":"/etc/dest-marker"}]}}\n';
    inputs['live.ign'] = JSON.stringify({
      ignition: { version: '3.3.0' },
      storage: { files: [{ path: '/etc/live-marker', mode: 0o644, contents: { source: dataUrl('live\n') } }] },
      systemd: { units: [{ name: 'live-marker.service', enabled: true, contents: UNIT('live marker') }] },
    });
    inputs['pre.sh'] = '#!/bin/sh\necho pre-install ran\n';
    inputs['post.sh'] = '#!/bin/sh\necho post-install ran\n';
    inputs['install.yaml'] = 'offline: true\nappend-karg: [nosmt]\n';
    inputs['eth0.nmconnection'] = '[connection]\nid=eth0\ntype=ethernet\n[ipv4]\nmethod=auto\n';
    for (const [name, text] of Object.entries(inputs)) {
      files[name] = path.join(dir, name);
      await writeFile(files[name], text);
    }
    // the fixture's PXE initrd, for pxe customize
    files.initrd = path.join(dir, 'initrd.img');
    execFileSync('xorriso', ['-osirrox', 'on', '-indev', DEMO_IMAGE_PATH, '-extract', '/images/pxeboot/initrd.img', files.initrd], {
      stdio: ['ignore', 'ignore', 'pipe'],
    }); // prettier-ignore
  }, 120_000);

  afterAll(async () => {
    await replica?.close();
    await Promise.all(Object.values(services).map((s) => s.aio.close()));
    await site?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.concurrent.each(API_ROWS.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const s = services[row.service];
    const body: Record<string, unknown> = {
      name: 'variant',
      pull_secret: PULL_SECRET,
      openshift_version: DEMO_VERSION,
      ...(row.imageType ? { image_type: row.imageType } : {}),
      ...row.body,
    };
    for (const [k, v] of Object.entries(body))
      if (typeof v === 'string' && v.startsWith('@')) body[k] = inputs[v.slice(1)];
    const created = await s.aio.call('POST', `${API}/infra-envs`, body);
    const createdText = await created.text();
    expect(created.status, createdText).toBe(201);
    const { id, download_url: downloadUrl } = JSON.parse(createdText) as { id: string; download_url: string };
    const served = await s.aio.call('GET', `${API}/infra-envs/${id}/downloads/files?file_name=discovery.ign`);
    expect(served.status).toBe(200);
    const config = Buffer.from(await served.arrayBuffer());

    // the ISO a host boots carries the same config, and the keyfiles beside it
    const base = row.viaReplica ? replica.url : s.aio.service.url;
    const iso = await fetch(base + new URL(downloadUrl).pathname);
    expect(iso.status).toBe(200);
    const isoFile = path.join(dir, `${id}.iso`);
    await writeFile(isoFile, Buffer.from(await iso.arrayBuffer()));
    const area = await embedded(isoFile);
    expect(area.ignition?.equals(config), 'the ISO embeds the discovery.ign bytes').toBe(true);

    await judge(row, config, { infraEnvId: id, service: s, inputs }, async (a) => {
      await commonApiPromises(a, row);
      // the keyfiles the live initramfs brings the network up with are the ones Ignition writes
      const written = [...a.run.tree.keys()].filter((p) => p.startsWith(`${NM_DIR}/`));
      expect([...area.keyfiles.keys()].map((k) => `${NM_DIR}/${k}`).sort()).toEqual(written.sort());
      for (const [name, bytes] of area.keyfiles) expect(a.text(`${NM_DIR}/${name}`), name).toBe(bytes.toString());
    });
  });

  it.concurrent.each(CUSTOMIZE_ROWS.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const out = path.join(dir, `customized-${row.verb}`);
    const input = row.verb === 'iso' ? DEMO_IMAGE_PATH : files.initrd!;
    const r = await runCaptured([row.verb, 'customize', ...row.args(files), '-o', out, input]);
    expect(r.code, r.stderr).toBe(0);
    let config: Buffer | undefined;
    let keyfile: Buffer | undefined;
    if (row.verb === 'iso') {
      const area = await embedded(out);
      config = area.ignition;
      keyfile = area.keyfiles.get('eth0.nmconnection');
    } else {
      const entries = lastByPath(await readInitrd(await readFile(out)));
      config = entries.get('config.ign') && Buffer.from(entries.get('config.ign')!.data);
      const k = entries.get(`${FIRSTBOOT_DIR}/eth0.nmconnection`);
      keyfile = k && Buffer.from(k.data);
    }
    expect(config, 'config.ign in the output').toBeDefined();
    expect(keyfile?.toString(), 'the keyfile beside it').toBe(inputs['eth0.nmconnection']);
    await judge(row, config!, { infraEnvId: '', service: undefined, inputs });
  });

  it('is the table of docs/developer/real-consumers.md: one row per variant, each accepted warning with its reason', () => {
    const page = readFileSync(path.join(REPO_ROOT, 'docs/developer/real-consumers.md'), 'utf8');
    const section = /^## The discovery-Ignition variants\n[\s\S]*?\n\n(\|[\s\S]*?)\n\n/m.exec(page)?.[1] ?? '';
    const rows = section.split('\n').slice(2);
    expect(rows).toHaveLength(API_ROWS.length + CUSTOMIZE_ROWS.length);
    for (const row of [...API_ROWS, ...CUSTOMIZE_ROWS])
      for (const [, why] of row.warnings) expect(section).toContain(why);
    expect(rows.filter((r) => r.endsWith('| none |'))).toHaveLength(
      [...API_ROWS, ...CUSTOMIZE_ROWS].filter((r) => r.warnings.length === 0).length,
    );
  });

  it('covers every kind of variant issue 26 names', () => {
    const names = [...API_ROWS, ...CUSTOMIZE_ROWS].map((r) => r.name).join('\n');
    for (const kind of [
      /plain/,
      /proxy without credentials/,
      /with credentials/,
      /trust bundle/,
      /NTP/,
      /SERVICE_CA_CERT_FILE/,
      /REGISTRIES_CONF_FILE/,
      /bond.*VLAN.*bridge.*IPv6/,
      /override.*replacing a generated file/,
      /override adding units.*dropin/,
      /minimal ISO/,
      /AUTH_TYPE=none/,
      /AUTH_TYPE=local/,
      /remote mode/,
      /iso customize/,
      /pxe customize/,
    ])
      expect(names).toMatch(kind);
  });
});
