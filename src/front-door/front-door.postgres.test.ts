// The front door in the all-in-one service over loopback HTTP, on real PostgreSQL: the matcher's
// every source from the real tables (an assignment made through the API, a BMC's reported MACs,
// an InfraEnv's mac_interface_map, a registration by System UUID in the other byte order, an
// installed host under boot-order-control), the answers iPXE, GRUB and pixiecore get, the boot
// events, /health and /metrics (the answers by kind and outcome), the admin API's statuses (401
// without the admin token, 400, 404) and the DHCP snippet for this service's address.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllInOne, API, DEMO_VERSION, PULL_SECRET, startAllInOne } from '../../test/support/all-in-one.js';
import { runCliCaptured } from '../cli/test-support/captured-io.js';

const PXE = '/api/bootsmith/v1/pxe';
const MAC_ASSIGNED = '52:54:00:0d:00:01';
const MAC_BMC = '52:54:00:0d:00:02';
const MAC_MAP = '52:54:00:0d:00:03';
const MAC_INSTALLED = '52:54:00:0d:00:04';
const MAC_UNKNOWN = '52:54:00:0d:00:09';
/** As dmidecode prints it (the agent's host id); iPXE sends the other byte order. */
const SYSTEM_UUID = '44332211-6655-8877-99aa-bbccddeeff00';
const IPXE_UUID = '11223344-5566-7788-99aa-bbccddeeff00';

describe('the PXE front door, served', () => {
  let svc: AllInOne;
  let a: string;
  let b: string;
  const text = async (path: string, status = 200): Promise<string> => {
    const res = await fetch(svc.service.url + path);
    const body = await res.text();
    expect(res.status, body).toBe(status);
    return body;
  };
  const infraEnv = async (name: string): Promise<string> => {
    const res = await svc.call('POST', `${API}/infra-envs`, {
      name,
      pull_secret: PULL_SECRET,
      openshift_version: DEMO_VERSION,
      cpu_architecture: 'x86_64',
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  /** The core's own script for this InfraEnv and MAC, as the downloads route answers it. */
  const coreScript = async (id: string, mac: string): Promise<string> => {
    const res = await svc.call(
      'GET',
      `${API}/infra-envs/${id}/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control&mac=${mac}`,
    );
    expect(res.status).toBe(200);
    return res.text();
  };
  const eventsNamed = (name: string) =>
    svc.sql<{ message: string; infra_env_id: string | null; host_id: string | null }>(
      'SELECT message, infra_env_id, host_id FROM events WHERE name = $1 ORDER BY seq',
      [name],
    );

  beforeAll(async () => {
    svc = await startAllInOne({ AUTH_TYPE: 'local', PXE_FRONT_DOOR: 'on', PXE_UNKNOWN_HOST_RETRY: '90s' });
    a = await infraEnv('rack-a');
    b = await infraEnv('rack-b');
  }, 120_000);
  afterAll(() => svc?.close());

  it('hands every host the same boot.ipxe, chaining to this service with the host settings', async () => {
    const script = await text('/boot.ipxe');
    expect(script).toContain(
      `chain --autofree ${svc.service.url}/pxe/host.ipxe?mac=\${netX/mac:hexhyp}&uuid=\${uuid}&serial=\${serial:uristring}&buildarch=\${buildarch}&platform=\${platform} || goto failed`,
    );
  });

  it('keeps assignments behind the admin credential and checks them: 401, 400, 404, 201 then 200', async () => {
    const put = (key: string, body: unknown, headers?: Record<string, string>) =>
      fetch(`${svc.service.url}${PXE}/assignments/${key}`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', ...(headers ?? svc.admin) },
        body: JSON.stringify(body),
      });
    expect((await put(MAC_ASSIGNED, { infra_env_id: a }, {})).status).toBe(401);
    expect((await put('not-a-mac', { infra_env_id: a })).status).toBe(400);
    expect((await put(MAC_ASSIGNED, { infra_env_id: 'x' })).status).toBe(400);
    expect((await put(MAC_ASSIGNED, { infra_env_id: a, extra: 1 })).status).toBe(400);
    const missing = await put(MAC_ASSIGNED, { infra_env_id: randomUUID() });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { reason: string }).reason).toMatch(/^InfraEnv .* does not exist$/);
    expect((await put(MAC_ASSIGNED.replaceAll(':', '-').toUpperCase(), { infra_env_id: b })).status).toBe(201);
    const replaced = await put(MAC_ASSIGNED, { infra_env_id: a, secure_boot: true });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ mac: MAC_ASSIGNED, infra_env_id: a, secure_boot: true });
    const listed = (await (await svc.call('GET', `${PXE}/assignments?infra_env_id=${a}`)).json()) as unknown[];
    expect(listed).toEqual([expect.objectContaining({ mac: MAC_ASSIGNED })]);
    expect((await svc.call('GET', `${PXE}/assignments/${MAC_UNKNOWN}`)).status).toBe(404);
    expect((await svc.call('PATCH', `${PXE}/assignments/${MAC_ASSIGNED}`)).status).toBe(405);
  });

  it("matches by assignment before the host's BMC, and answers its InfraEnv's own iPXE script", async () => {
    // a BMC bound to InfraEnv b reported the same MAC: the assignment (to a) wins
    await svc.sql(
      `INSERT INTO bmcs (id, name, address, tls_verify, infra_env_id, boot_mode, eject, inventory, inventory_at, created_at, updated_at)
       VALUES ($1, 'rack-b-07', 'https://192.0.2.7', 'verify', $2, 'uefi', 'always', $3, now(), now(), now())`,
      [randomUUID(), b, JSON.stringify({ macs: [MAC_ASSIGNED, MAC_BMC], system: { uuid: null } })],
    );
    const script = await text(
      `/pxe/host.ipxe?mac=${MAC_ASSIGNED.replaceAll(':', '-')}&uuid=&serial=SN%201&buildarch=x86_64&platform=efi`,
    );
    expect(script).toBe(await coreScript(a, MAC_ASSIGNED));
    expect(script).toContain(`/images/${a}/pxe-initrd?`);
    expect(await text(`/pxe/host.ipxe?mac=${MAC_BMC}`)).toBe(await coreScript(b, MAC_BMC));
    const matched = await eventsNamed('pxe_host_matched');
    expect(matched).toEqual([
      {
        infra_env_id: a,
        host_id: null,
        message: `PXE host ${MAC_ASSIGNED} (serial SN 1) boots InfraEnv rack-a (${a}) (ipxe): assigned by MAC ${MAC_ASSIGNED}`,
      },
      {
        infra_env_id: b,
        host_id: null,
        message: `PXE host ${MAC_BMC} boots InfraEnv rack-b (${b}) (ipxe): its BMC rack-b-07 reported its MAC ${MAC_BMC}`,
      },
    ]);
  });

  it("matches by an InfraEnv's mac_interface_map, and by a registration's System UUID in either byte order", async () => {
    // (on a: b's BMC reported MACs, so its map may name only those: the BMC wing's check)
    const patched = await svc.call('PATCH', `${API}/infra-envs/${a}`, {
      static_network_config: [
        {
          network_yaml: 'interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n',
          mac_interface_map: [{ mac_address: MAC_MAP.toUpperCase(), logical_nic_name: 'eth0' }],
        },
      ],
    });
    expect(patched.status, await patched.text()).toBe(201);
    expect(await text(`/pxe/host.ipxe?mac=${MAC_MAP}`)).toBe(await coreScript(a, MAC_MAP));

    await svc.sql(
      `INSERT INTO hosts (infra_env_id, id, status, status_info, inventory, checked_in_at, registered_at, status_updated_at, created_at, updated_at)
       VALUES ($1, $2, 'known-unbound', '', $3, now(), now(), now(), now(), now())`,
      [a, SYSTEM_UUID, JSON.stringify({ interfaces: [{ mac_address: '52:54:00:0d:00:05' }] })],
    );
    const byUuid = await text(`/pxe/host.ipxe?mac=52-54-00-0d-00-08&uuid=${IPXE_UUID.toUpperCase()}`);
    expect(byUuid).toBe(await coreScript(a, '52:54:00:0d:00:08'));
    const [event] = (await eventsNamed('pxe_host_matched')).filter((e) => e.host_id !== null);
    expect(event).toEqual({
      infra_env_id: a,
      host_id: SYSTEM_UUID,
      message: `PXE host 52:54:00:0d:00:08 boots InfraEnv rack-a (${a}) (ipxe): host ${SYSTEM_UUID} registered with its System UUID`,
    });
  });

  it('sends an installed host (boot-order-control) to its next boot device, by the MAC it registered with', async () => {
    await svc.sql(
      `INSERT INTO hosts (infra_env_id, id, status, status_info, inventory, checked_in_at, registered_at, status_updated_at, created_at, updated_at)
       VALUES ($1, $2, 'installed', '', $3, now(), now(), now(), now(), now())`,
      [b, randomUUID(), JSON.stringify({ interfaces: [{ mac_address: MAC_INSTALLED }] })],
    );
    const script = await text(`/pxe/host.ipxe?mac=${MAC_INSTALLED}`);
    expect(script).toMatch(/^#!ipxe\necho bootsmith: IPXE booting skipped: .* already installed\n.*\nexit 0\n$/);
    expect(await text(`/pxe/grub.cfg?mac=${MAC_INSTALLED}`)).toMatch(/\nexit\n$/);
    // one event: the same host and answer within the window, whoever asked
    expect((await eventsNamed('pxe_host_skipped')).map((e) => e.infra_env_id)).toEqual([b]);
  });

  it('tells an unknown host why and to ask again in 90 s (one warning event however often it asks)', async () => {
    for (let i = 0; i < 3; i++) {
      const wait = await text(`/pxe/host.ipxe?mac=${MAC_UNKNOWN}&serial=X`);
      expect(wait).toContain(
        'echo bootsmith: unknown host: no assignment, BMC, mac_interface_map or registration names it',
      );
      expect(wait).toContain('\nsleep 90\n');
    }
    expect(await eventsNamed('pxe_host_unmatched')).toEqual([
      {
        infra_env_id: null,
        host_id: null,
        message: expect.stringContaining(`PXE host ${MAC_UNKNOWN} (serial X) (ipxe) was not matched`),
      },
    ]);
    expect((await fetch(`${svc.service.url}/pxe/v1/boot/${MAC_UNKNOWN}`)).status).toBe(404);
  });

  it("answers GRUB and pixiecore's API from the same match", async () => {
    const grub = await text(`/pxe/grub.cfg?mac=${MAC_ASSIGNED}`);
    const port = new URL(svc.service.url).port;
    expect(grub).toContain(`  if linux '(http,127.0.0.1:${port})/boot-artifacts/kernel?arch=x86_64&version=`);
    expect(grub).toContain(`    if initrd '(http,127.0.0.1:${port})/images/${a}/pxe-initrd?`);
    expect(grub).toMatch(
      / 'coreos\.live\.rootfs_url=http:\/\/127\.0\.0\.1:\d+\/boot-artifacts\/rootfs\?\S+' .*ignition\.firstboot/,
    );
    const res = await fetch(`${svc.service.url}/pxe/v1/boot/${MAC_ASSIGNED}`);
    expect(res.status).toBe(200);
    const boot = (await res.json()) as { kernel: string; initrd: string[]; cmdline: string };
    expect(boot.kernel).toMatch(/\/boot-artifacts\/kernel\?arch=x86_64&version=.*&infra_env_id=/);
    expect(boot.initrd).toEqual([expect.stringContaining(`/images/${a}/pxe-initrd?`)]);
    expect(boot.cmdline).toMatch(/^coreos\.live\.rootfs_url=http:\/\/.* ignition\.platform\.id=metal /);
    // what pixiecore is told to fetch, the image side serves
    expect((await fetch(boot.kernel, { method: 'HEAD' })).status).toBe(200);
  });

  it('refuses bad host input as plain text 400, and shows its state in /health and /metrics', async () => {
    for (const target of [
      '/pxe/host.ipxe',
      '/pxe/host.ipxe?mac=zz',
      `/pxe/host.ipxe?mac=${MAC_ASSIGNED}&${'a=b&'.repeat(600)}`,
      '/pxe/v1/boot/nope',
    ]) {
      const res = await fetch(svc.service.url + target);
      expect(res.status, target).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    }
    const health = (await (await fetch(`${svc.service.url}/health`)).json()) as {
      pxe_front_door: Record<string, unknown>;
    };
    expect(health.pxe_front_door).toMatchObject({
      state: 'on',
      boot_url: `${svc.service.url}/boot.ipxe`,
      default_infra_env: null,
      ipxe_script_type: 'boot-order-control',
      unmatched: 4, // three iPXE requests and pixiecore's of the unknown host
    });
    // every answer so far by kind and outcome: each source of the real tables, and the refusals above
    const metrics = await (await svc.call('GET', '/metrics')).text();
    const answers = (kind: string, outcome: string) =>
      Number(
        new RegExp(
          `^bootsmith_pxe_front_door_answers_total\\{kind="${kind}",outcome="${outcome}"\\} (\\d+)$`,
          'm',
        ).exec(metrics)?.[1] ?? 0,
      );
    for (const source of ['assignment', 'bmc', 'mac_interface_map', 'registration', 'skipped'])
      expect(answers('ipxe', source), source).toBeGreaterThanOrEqual(1);
    expect([answers('ipxe', 'unmatched'), answers('pixiecore', 'unmatched')]).toEqual([3, 1]);
    expect([answers('ipxe', 'invalid'), answers('pixiecore', 'invalid')]).toEqual([3, 1]);
    expect([answers('grub', 'assignment'), answers('pixiecore', 'assignment')]).toEqual([1, 1]);
    expect(metrics).toMatch(/^bootsmith_pxe_front_door_match_duration_seconds_count\{source="registration"\} [1-9]/m);
  });

  it('prints the DHCP snippet for this service: the boot URL and TFTP server', async () => {
    const res = await svc.call('GET', `${PXE}/dhcp-snippet?server=dnsmasq&tftp_server=192.0.2.10`);
    const body = (await res.json()) as { boot_url: string; tftp_server: string; snippet: string };
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ boot_url: `${svc.service.url}/boot.ipxe`, tftp_server: '192.0.2.10' });
    expect(body.snippet).toContain(`dhcp-boot=tag:ipxe,${svc.service.url}/boot.ipxe\n`);
    expect(body.snippet).toContain('ipxe.efi,,192.0.2.10\n');
    expect((await svc.call('GET', `${PXE}/dhcp-snippet?server=bind`)).status).toBe(400);
  });

  it('is driven by `bootsmith pxe assign|assignments|unassign|dhcp-snippet` with the admin token', async () => {
    const token = (svc.admin.Authorization ?? '').replace(/^Bearer /, '');
    const cli = (...argv: string[]) => runCliCaptured(['pxe', ...argv, '--url', svc.service.url, '--token', token]);
    const assigned = await cli('assign', '52-54-00-0d-00-0a', '--infra-env', b, '--secure-boot');
    expect(assigned.stdout.toString()).toBe(`52:54:00:0d:00:0a → InfraEnv ${b} (Secure Boot)\n`);
    const listed = await cli('assignments', '--infra-env', b);
    expect(listed.stdout.toString()).toMatch(
      new RegExp(`^HOST +INFRAENV +SECURE BOOT +UPDATED\\n52:54:00:0d:00:0a +${b} +yes +`),
    );
    expect(await text('/pxe/host.ipxe?mac=52:54:00:0d:00:0a')).toBe(await coreScript(b, '52:54:00:0d:00:0a'));
    // The site DHCP lines for the hosts assigned with Secure Boot (next server = bootsmith).
    const sbOnly = (await cli('dhcp-snippet', '--server', 'dnsmasq', '--secure-boot-only')).stdout.toString();
    expect(sbOnly).toContain('dhcp-mac=set:bootsmith-secure-boot,52:54:00:0d:00:0a\n');
    expect(sbOnly).toContain(`shimx64.efi,,${new URL(svc.service.url).hostname}\n`);
    expect(sbOnly).not.toContain('ipxe.efi');
    expect((await svc.call('GET', `${PXE}/dhcp-snippet?server=dnsmasq&secure_boot_only=yes`)).status).toBe(400);
    expect((await cli('unassign', '52:54:00:0d:00:0a')).code).toBe(0);
    const again = await cli('unassign', '52:54:00:0d:00:0a');
    expect(again.code).toBe(1);
    expect(again.stderr.toString()).toContain('404 no assignment for MAC 52:54:00:0d:00:0a');
    const bad = await cli('assign', 'rack-7', '--infra-env', b);
    expect(bad.code).toBe(1);
    expect(bad.stderr.toString()).toContain('400 the assignment key (a MAC or a System UUID) must be a MAC address');
    const snippet = await cli('dhcp-snippet', '--server', 'isc', '--tftp-server', '192.0.2.10');
    expect(snippet.stdout.toString()).toContain(`filename "${svc.service.url}/boot.ipxe";`);
  });
});
