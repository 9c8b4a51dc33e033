// End-to-end tests of the assisted API over real HTTP: InfraEnv CRUD, a scripted
// discovery agent driving the host state machine, events, iPXE, bad input. Every
// response body is checked against the swagger definitions when they are present.
// Runs on the embedded PostgreSQL server, and on TEST_DATABASE_URL when it is set.
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_SWAGGER } from '../test-support/probes.js';
import { unavailable } from '../test-support/requirements.js';
import { loadContract } from './test-support/contract-schema.js';
import { backends, http, inventory, PULL_SECRET, sshKey, startHarness, type Harness } from './test-support/harness.js';

// Without ../shared the conforms() checks cannot run: skipped with a warning here, a failure under CI.
const contract = unavailable({ '../shared/contracts (the upstream swagger)': HAVE_SWAGGER }) ? undefined : loadContract();
function conforms(definition: string, body: unknown): void {
  if (!contract) return;
  expect(contract.validate(definition, body), `${definition}: ${JSON.stringify(body).slice(0, 300)}`).toEqual([]);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await sleep(50);
  }
}

for (const backend of backends()) {
  describe(`assisted API on ${backend.name}`, () => {
    let h: Harness;
    let cleanup: () => Promise<void>;
    let storage: { dataDir: string; databaseUrl?: string };

    beforeAll(async () => {
      const s = await backend.create();
      cleanup = s.cleanup;
      storage = s;
      h = await startHarness(s, { hostMaxDisconnectionMs: 1500, monitorIntervalMs: 100 });
    });
    afterAll(async () => {
      await h?.close();
      await cleanup?.();
    });

    async function newInfraEnv(extra: Record<string, unknown> = {}) {
      const r = await http('POST', `${h.api}/infra-envs`, { name: 'lab', pull_secret: PULL_SECRET, openshift_version: '4.16', ...extra });
      expect(r.status, r.text).toBe(201);
      conforms('infra-env', r.json);
      return r.json as { id: string } & Record<string, unknown>;
    }

    it('creates, gets, lists, patches and deletes an InfraEnv without returning the pull secret', async () => {
      const key = sshKey();
      const ie = await newInfraEnv({ ssh_authorized_key: key, cpu_architecture: 'amd64', image_type: 'minimal-iso' });
      expect(ie.pull_secret_set).toBe(true);
      expect(JSON.stringify(ie)).not.toContain('pull_secret"');
      expect(JSON.stringify(ie)).not.toContain(Buffer.from('user:pass').toString('base64'));
      expect(ie.cpu_architecture).toBe('x86_64');
      expect(ie.download_url).toBe(`http://img.example.test:8080/byid/${ie.id}/4.16/x86_64/minimal.iso`);

      const got = await http('GET', `${h.api}/infra-envs/${ie.id}`);
      expect(got.status).toBe(200);
      conforms('infra-env', got.json);
      expect(got.json.ssh_authorized_key).toBe(key);

      const list = await http('GET', `${h.api}/infra-envs`);
      expect(list.status).toBe(200);
      conforms('infra-env-list', list.json);
      expect(list.json.some((e: { id: string }) => e.id === ie.id)).toBe(true);

      const patched = await http('PATCH', `${h.api}/infra-envs/${ie.id}`, {
        image_type: 'full-iso', kernel_arguments: [{ operation: 'append', value: 'rd.net.timeout.carrier=60' }],
        additional_ntp_sources: 'ntp.example.com', proxy: { http_proxy: 'http://proxy:3128', no_proxy: '.example.com' },
      });
      expect(patched.status, patched.text).toBe(201);
      conforms('infra-env', patched.json);
      expect(patched.json.type).toBe('full-iso');
      expect(JSON.parse(patched.json.kernel_arguments)).toEqual([{ operation: 'append', value: 'rd.net.timeout.carrier=60' }]);

      const url = await http('GET', `${h.api}/infra-envs/${ie.id}/downloads/image-url`);
      expect(url.status).toBe(200);
      conforms('presigned-url', url.json);
      expect(url.json.url).toContain(`/byid/${ie.id}/4.16/x86_64/full.iso`);

      const del = await http('DELETE', `${h.api}/infra-envs/${ie.id}`);
      expect(del.status).toBe(204);
      const gone = await http('GET', `${h.api}/infra-envs/${ie.id}`);
      expect(gone.status).toBe(404);
      conforms('error', gone.json);
    });

    it('serves a valid discovery Ignition with agent, pull secret, proxy, CA, NTP, static network and override', async () => {
      const ca = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUeXample\n-----END CERTIFICATE-----\n';
      const ie = await newInfraEnv({
        ssh_authorized_key: sshKey(),
        proxy: { http_proxy: 'http://proxy.example.com:3128', https_proxy: 'http://proxy.example.com:3128', no_proxy: 'example.com,10.0.0.0/8' },
        additional_trust_bundle: ca,
        additional_ntp_sources: 'clock.example.com,10.0.0.1',
        static_network_config: [{
          network_yaml: 'interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: false\n    address:\n    - ip: 192.168.1.10\n      prefix-length: 24\ndns-resolver:\n  config:\n    server: [192.168.1.1]\nroutes:\n  config:\n  - destination: 0.0.0.0/0\n    next-hop-address: 192.168.1.1\n    next-hop-interface: eth0\n',
          mac_interface_map: [{ mac_address: '52:54:00:00:00:01', logical_nic_name: 'eth0' }],
        }],
        ignition_config_override: JSON.stringify({ ignition: { version: '3.1.0' }, storage: { files: [{ path: '/etc/custom', contents: { source: 'data:,hello' } }] } }),
      });
      const r = await http('GET', `${h.api}/infra-envs/${ie.id}/downloads/files?file_name=discovery.ign`);
      expect(r.status).toBe(200);
      const ign = r.json;
      expect(ign.ignition.version).toBe('3.1.0');
      expect(ign.ignition.proxy.httpProxy).toBe('http://proxy.example.com:3128');
      expect(ign.passwd.users[0].name).toBe('core');
      const paths = ign.storage.files.map((f: { path: string }) => f.path);
      expect(paths).toEqual(expect.arrayContaining([
        '/root/.docker/config.json', '/etc/profile.d/proxy.sh', '/etc/custom',
        '/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem',
        '/usr/local/bin/add-ntp-sources.sh', '/etc/NetworkManager/system-connections/eth0.nmconnection',
      ]));
      const unit = ign.systemd.units.find((u: { name: string }) => u.name === 'agent.service');
      expect(unit.contents).toContain(`--url http://api.example.test:8090 --infra-env-id ${ie.id}`);
      expect(unit.contents).toContain('Environment=HTTPS_PROXY=http://proxy.example.com:3128');
      const ps = ign.storage.files.find((f: { path: string }) => f.path === '/root/.docker/config.json');
      expect(Buffer.from(ps.contents.source.split(',')[1], 'base64').toString()).toBe(PULL_SECRET);
      const nm = ign.storage.files.find((f: { path: string }) => f.path.endsWith('eth0.nmconnection'));
      const keyfile = Buffer.from(nm.contents.source.split(',')[1], 'base64').toString();
      expect(keyfile).toContain('mac-address=52:54:00:00:00:01');
      expect(keyfile).toContain('address1=192.168.1.10/24,192.168.1.1');

      const initrd = await http('GET', `${h.api}/infra-envs/${ie.id}/downloads/minimal-initrd`);
      expect(initrd.status).toBe(200);
      const raw = Buffer.from(await (await fetch(`${h.api}/infra-envs/${ie.id}/downloads/minimal-initrd`)).arrayBuffer());
      expect(gunzipSync(raw).toString('latin1')).toContain('etc/coreos-firstboot-network/eth0.nmconnection');

      const tar = await fetch(`${h.api}/infra-envs/${ie.id}/downloads/files?file_name=static-network-config`);
      expect(tar.status).toBe(200);
      expect(Buffer.from(await tar.arrayBuffer()).subarray(257, 262).toString()).toBe('ustar');

      const plain = await newInfraEnv();
      expect((await http('GET', `${h.api}/infra-envs/${plain.id}/downloads/minimal-initrd`)).status).toBe(204);

      const cust = await h.core.ignitionSource.discoveryCustomization({ infraEnvId: ie.id, imageType: 'full-iso', credential: { kind: 'none' } });
      expect(JSON.parse(cust.ignition.toString()).ignition.version).toBe('3.1.0');
      expect(cust.extraInitrd).toBeDefined();
    });

    it('drives a scripted agent: register, poll, inventory, known, disconnected, back', async () => {
      const ie = await newInfraEnv();
      const hostId = crypto.randomUUID();
      const reg = await http('POST', `${h.api}/infra-envs/${ie.id}/hosts`, { host_id: hostId, discovery_agent_version: 'quay.io/edge-infrastructure/assisted-installer-agent:latest' });
      expect(reg.status, reg.text).toBe(201);
      conforms('host_registration_response', reg.json);
      expect(reg.json.status).toBe('discovering');
      expect(reg.json.status_info).toBe('Waiting for host to send hardware details');
      expect(JSON.parse(reg.json.next_step_runner_command.args[0])).toMatchObject({ infra_env_id: ie.id, host_id: hostId });

      const steps = await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`);
      expect(steps.status).toBe(200);
      conforms('steps', steps.json);
      expect(steps.json.next_instruction_seconds).toBe(60);
      const inv = steps.json.instructions.find((s: { step_type: string }) => s.step_type === 'inventory');
      expect(inv.args).toEqual([hostId]);

      const reply = await http('POST', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}/instructions`, {
        step_type: 'inventory', step_id: inv.step_id, exit_code: 0, output: JSON.stringify(inventory({ mac: '52:54:00:aa:bb:01' })),
      });
      expect(reply.status, reply.text).toBe(204);

      const known = await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}`);
      conforms('host', known.json);
      expect(known.json.status).toBe('known');
      const vi = JSON.parse(known.json.validations_info);
      expect(Object.keys(vi).sort()).toEqual(['hardware', 'network']);
      const all = [...vi.hardware, ...vi.network];
      for (const id of ['has-inventory', 'has-min-cpu-cores', 'has-min-memory', 'has-min-valid-disks', 'hostname-valid', 'hostname-unique', 'connected']) {
        expect(all.find((v: { id: string }) => v.id === id), id).toMatchObject({ status: 'success' });
      }

      // Agent stops polling → disconnected.
      const disc = await waitFor(() => http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}`), (r) => r.json.status === 'disconnected');
      expect(disc.json.status).toBe('disconnected');
      expect(disc.json.status_info).toBe('Host has stopped communicating with the installation service');
      const vd = JSON.parse(disc.json.validations_info);
      expect(vd.network.find((v: { id: string }) => v.id === 'connected')).toMatchObject({ status: 'failure', message: 'Host is disconnected' });
      const beat = await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}/instructions`);
      expect(beat.status).toBe(200);
      conforms('steps', beat.json);

      // That heartbeat brought it back.
      const back = await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}`);
      expect(back.json.status).toBe('known');

      const list = await http('GET', `${h.api}/infra-envs/${ie.id}/hosts`);
      conforms('host-list', list.json);
      expect(list.json).toHaveLength(1);

      const ev = await http('GET', `${h.api}/events?infra_env_id=${ie.id}&host_id=${hostId}`);
      expect(ev.status).toBe(200);
      conforms('event-list', ev.json);
      const messages = ev.json.map((e: { message: string }) => e.message);
      expect(messages).toContain('Host worker-0.example.com: updated status from known to disconnected (Host has stopped communicating with the installation service)');
      expect(messages.some((m: string) => m.endsWith('Successfully registered'))).toBe(true);
      expect(Number(ev.headers.get('event-count'))).toBe(ev.json.length);
      expect(Number(ev.headers.get('severity-count-warning'))).toBeGreaterThanOrEqual(1);
      const limited = await http('GET', `${h.api}/events?infra_env_id=${ie.id}&limit=1&order=descending&severities=warning`);
      expect(limited.json).toHaveLength(1);
      expect(limited.json[0].severity).toBe('warning');
    });

    it('marks a weak host insufficient with upstream messages, and hostname clashes', async () => {
      const ie = await newInfraEnv();
      const a = crypto.randomUUID();
      const b = crypto.randomUUID();
      for (const id of [a, b]) expect((await http('POST', `${h.api}/infra-envs/${ie.id}/hosts`, { host_id: id })).status).toBe(201);
      await http('POST', `${h.api}/infra-envs/${ie.id}/hosts/${a}/instructions`, {
        step_type: 'inventory', exit_code: 0, output: JSON.stringify(inventory({ hostname: 'localhost', cores: 1, ramGiB: 4, diskGB: 10 })),
      });
      const weak = await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${a}`);
      expect(weak.json.status).toBe('insufficient');
      expect(weak.json.status_info).toMatch(/^Host does not meet the minimum hardware requirements: /);
      const hw = JSON.parse(weak.json.validations_info).hardware as { id: string; status: string; message: string }[];
      expect(hw.find((v) => v.id === 'has-min-cpu-cores')).toMatchObject({
        status: 'failure', message: 'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1',
      });
      expect(hw.find((v) => v.id === 'has-min-memory')?.message).toBe(
        'The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB');
      expect(hw.find((v) => v.id === 'has-min-valid-disks')?.status).toBe('failure');
      expect(hw.find((v) => v.id === 'hostname-valid')?.message).toBe('The host name localhost is forbidden');

      await http('POST', `${h.api}/infra-envs/${ie.id}/hosts/${b}/instructions`, {
        step_type: 'inventory', exit_code: 0, output: JSON.stringify(inventory({ hostname: 'dup.example.com' })),
      });
      const patched = await http('PATCH', `${h.api}/infra-envs/${ie.id}/hosts/${a}`, { host_name: 'dup.example.com' });
      expect(patched.status).toBe(201);
      conforms('host', patched.json);
      const hwa = JSON.parse(patched.json.validations_info).hardware as { id: string; status: string }[];
      expect(hwa.find((v) => v.id === 'hostname-unique')?.status).toBe('failure');
      const other = await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${b}`);
      expect(other.json.status).toBe('insufficient');
      expect((await http('PATCH', `${h.api}/infra-envs/${ie.id}/hosts/${a}`, { host_name: 'Bad_Name' })).status).toBe(400);

      expect((await http('DELETE', `${h.api}/infra-envs/${ie.id}/hosts/${a}`)).status).toBe(204);
      expect((await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${a}`)).status).toBe(404);
      const ignition = await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${b}/ignition`);
      expect(ignition.status).toBe(404);
      conforms('error', ignition.json);
    });

    it('serves iPXE scripts; boot-order-control answers 404 per MAC once installed; re-registration is 409', async () => {
      const ie = await newInfraEnv({ kernel_arguments: [{ operation: 'append', value: 'console=ttyS0' }] });
      const boot = await http('GET', `${h.api}/infra-envs/${ie.id}/downloads/files?file_name=ipxe-script`);
      expect(boot.status).toBe(200);
      expect(boot.text).toMatch(/^#!ipxe\n/);
      expect(boot.text).toContain(`\ninitrd --name initrd http://img.example.test:8080/images/${ie.id}/pxe-initrd?arch=x86_64&version=4.16 || goto failed\n`);
      expect(boot.text).toMatch(/\nkernel http:\/\/img\.example\.test:8080\/boot-artifacts\/kernel\?arch=x86_64&version=4\.16 initrd=initrd coreos\.live\.rootfs_url=http:\/\/img\.example\.test:8080\/boot-artifacts\/rootfs\?arch=x86_64&version=4\.16 .*ignition\.firstboot ignition\.platform\.id=metal .* console=ttyS0 \|\| goto failed\n/);
      expect(boot.text).toContain('\nsleep 5\ngoto retry\n');

      const redirect = await http('GET', `${h.api}/infra-envs/${ie.id}/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control`);
      expect(redirect.text).toContain(`chain http://api.example.test:8090/api/assisted-install/v2/infra-envs/${ie.id}/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control&mac=\${net0/mac} || goto failed`);

      const hostId = crypto.randomUUID();
      await http('POST', `${h.api}/infra-envs/${ie.id}/hosts`, { host_id: hostId });
      await http('POST', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}/instructions`, { step_type: 'inventory', exit_code: 0, output: JSON.stringify(inventory({ mac: '52:54:00:aa:bb:99' })) });
      const perMac = `${h.api}/infra-envs/${ie.id}/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control&mac=52:54:00:AA:BB:99`;
      expect((await http('GET', perMac)).text).toContain('initrd --name initrd');

      expect((await http('PUT', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}/progress`, { current_stage: 'Writing image to disk' })).status).toBe(200);
      expect((await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}`)).json.status).toBe('installing-in-progress');
      expect((await http('PUT', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}/progress`, { current_stage: 'Done' })).status).toBe(200);
      const installed = await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}`);
      expect(installed.json.status).toBe('installed');
      conforms('host', installed.json);
      const gone = await http('GET', perMac);
      expect(gone.status).toBe(404);
      conforms('error', gone.json);

      const again = await http('POST', `${h.api}/infra-envs/${ie.id}/hosts`, { host_id: hostId });
      expect(again.status).toBe(409);
      conforms('error', again.json);
      expect(again.json.reason).toMatch(/already been installed/);

      const pre = await http('GET', `${h.api}/infra-envs/${ie.id}/downloads/files-presigned?file_name=ipxe-script&ipxe_script_type=boot-order-control`);
      expect(pre.status).toBe(200);
      conforms('presigned-url', pre.json);
    });

    it('rejects bad input with upstream error shapes and writes nothing', async () => {
      const before = (await http('GET', `${h.api}/infra-envs`)).json.length;
      const cases: [Record<string, unknown> | string, number, RegExp][] = [
        [{ pull_secret: PULL_SECRET }, 400, /name is required/],
        [{ name: 'x' }, 400, /pull_secret is required/],
        [{ name: 'x', pull_secret: 'not json' }, 400, /pull secret/],
        [{ name: 'x', pull_secret: '{"foo":{}}' }, 400, /auths/],
        [{ name: 'x', pull_secret: '{"auths":{"quay.io":{"auth":"!!"}}}' }, 400, /pull secret/],
        [{ name: 'x', pull_secret: PULL_SECRET, ssh_authorized_key: 'ssh-rsa AAAAnot-a-key' }, 400, /ssh_authorized_key/],
        [{ name: 'x', pull_secret: PULL_SECRET, openshift_version: '3.11' }, 400, /no OS image/],
        [{ name: 'x', pull_secret: PULL_SECRET, cpu_architecture: 'mips' }, 400, /cpu_architecture/],
        [{ name: 'x', pull_secret: PULL_SECRET, cpu_architecture: 's390x' }, 400, /no OS image/],
        [{ name: 'x', pull_secret: PULL_SECRET, image_type: 'disconnected-iso' }, 400, /image_type/],
        [{ name: 'x', pull_secret: PULL_SECRET, ignition_config_override: '{not json' }, 400, /ignition_config_override/],
        [{ name: 'x', pull_secret: PULL_SECRET, ignition_config_override: '{"ignition":{"version":"2.2.0"}}' }, 400, /version/],
        [{ name: 'x', pull_secret: PULL_SECRET, ignition_config_override: '{"ignition":{"version":"3.1.0"},"storage":{"files":[{"path":"relative"}]}}' }, 400, /absolute/],
        [{ name: 'x', pull_secret: PULL_SECRET, kernel_arguments: [{ operation: 'delete', value: 'quiet' }] }, 400, /append/],
        [{ name: 'x', pull_secret: PULL_SECRET, proxy: { http_proxy: 'ftp://x' } }, 400, /proxy/],
        [{ name: 'x', pull_secret: PULL_SECRET, static_network_config: [{ network_yaml: 'interfaces: [', mac_interface_map: [{ mac_address: '52:54:00:00:00:01' }] }] }, 400, /YAML/],
        ['{"name": ', 400, /./],
      ];
      for (const [body, status, reason] of cases) {
        const r = await http('POST', `${h.api}/infra-envs`, body);
        expect(r.status, JSON.stringify(body)).toBe(status);
        conforms('error', r.json);
        expect(r.json.reason, JSON.stringify(body)).toMatch(reason);
      }
      // An override that cannot fit the 256 KiB embed area once compressed.
      const big = { ignition: { version: '3.1.0' }, storage: { files: [{ path: '/big', contents: { source: `data:;base64,${randomBytes(300_000).toString('base64')}` } }] } };
      const tooBig = await http('POST', `${h.api}/infra-envs`, { name: 'x', pull_secret: PULL_SECRET, ignition_config_override: JSON.stringify(big) });
      expect(tooBig.status).toBe(413);
      conforms('error', tooBig.json);
      const huge = await http('POST', `${h.api}/infra-envs`, { name: 'x', pull_secret: PULL_SECRET, ignition_config_override: 'x'.repeat(3 * 1024 * 1024) });
      expect(huge.status).toBe(413);
      conforms('error', huge.json);
      expect((await http('GET', `${h.api}/infra-envs`)).json.length).toBe(before);

      const missing = crypto.randomUUID();
      for (const [m, u] of [['GET', `infra-envs/${missing}`], ['DELETE', `infra-envs/${missing}`], ['GET', `infra-envs/${missing}/downloads/image-url`]]) {
        const r = await http(m!, `${h.api}/${u}`);
        expect(r.status, u).toBe(404);
        conforms('error', r.json);
      }
      expect((await http('POST', `${h.api}/infra-envs/${missing}/hosts`, { host_id: crypto.randomUUID() })).status).toBe(404);
      expect((await http('GET', `${h.api}/infra-envs/not-a-uuid`)).status).toBe(400);
      const ie = await newInfraEnv();
      expect((await http('POST', `${h.api}/infra-envs/${ie.id}/hosts`, {})).status).toBe(400);
      expect((await http('GET', `${h.api}/infra-envs/${ie.id}/hosts/${missing}/instructions`)).status).toBe(404);
      expect((await http('PATCH', `${h.api}/infra-envs/${ie.id}`, { ssh_authorized_key: 'nope' })).status).toBe(400);
      expect((await http('GET', `${h.api}/infra-envs/${ie.id}/downloads/files?file_name=passwd`)).status).toBe(400);
      const hostId = crypto.randomUUID();
      await http('POST', `${h.api}/infra-envs/${ie.id}/hosts`, { host_id: hostId });
      expect((await http('POST', `${h.api}/infra-envs/${ie.id}/hosts/${hostId}/instructions`, { step_type: 'inventory', exit_code: 0, output: '{bad' })).status).toBe(400);
      expect((await http('GET', `${h.api}/events?severities=loud`)).status).toBe(400);
    });

    it('rejects an IMAGE_SERVICE_BASE_URL that makes the ISO URL longer than 255 characters', async () => {
      const s = await backend.create();
      const long = await startHarness(s, { imageServiceBaseUrl: `http://${'a'.repeat(200)}.example.com`, runMonitor: false });
      try {
        const r = await http('POST', `${long.api}/infra-envs`, { name: 'x', pull_secret: PULL_SECRET });
        expect(r.status).toBe(400);
        expect(r.json.reason).toMatch(/255/);
      } finally {
        await long.close();
        await s.cleanup();
      }
    });

    it('keeps state across a restart', async () => {
      const ie = await newInfraEnv({ name: 'persistent' });
      await h.close();
      h = await startHarness(storage, { hostMaxDisconnectionMs: 1500, monitorIntervalMs: 100 });
      const r = await http('GET', `${h.api}/infra-envs/${ie.id}`);
      expect(r.status).toBe(200);
      expect(r.json.name).toBe('persistent');
    });
  });
}
