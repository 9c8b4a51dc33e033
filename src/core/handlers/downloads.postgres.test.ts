// /v2/infra-envs/{id}/downloads/files, files-presigned and minimal-initrd (downloads.ts) over real
// HTTP on a real core: the discovery Ignition with everything an InfraEnv carries, the static
// network tarball and initrd, iPXE scripts (boot-order-control per MAC), and unknown file names.
// Runs on the embedded PostgreSQL server, and on TEST_DATABASE_URL when it is set.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { http, inventory, PULL_SECRET, sshKey } from '../test-support/harness.js';
import { backends } from '../../platform/db/test-support/backends.js';
import { conforms, useApi } from '../test-support/api-fixture.js';

for (const backend of backends()) {
  describe(`download handlers on ${backend.name}`, () => {
    const f = useApi(backend);

    it('serves a valid discovery Ignition with agent, pull secret, proxy, CA, NTP, static network and override', async () => {
      const ca = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUeXample\n-----END CERTIFICATE-----\n';
      const ie = await f.newInfraEnv({
        ssh_authorized_key: sshKey(),
        proxy: {
          http_proxy: 'http://proxy.example.com:3128',
          https_proxy: 'http://proxy.example.com:3128',
          no_proxy: 'example.com,10.0.0.0/8',
        },
        additional_trust_bundle: ca,
        additional_ntp_sources: 'clock.example.com,10.0.0.1',
        static_network_config: [
          {
            network_yaml:
              'interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: false\n    address:\n    - ip: 192.168.1.10\n      prefix-length: 24\ndns-resolver:\n  config:\n    server: [192.168.1.1]\nroutes:\n  config:\n  - destination: 0.0.0.0/0\n    next-hop-address: 192.168.1.1\n    next-hop-interface: eth0\n',
            mac_interface_map: [{ mac_address: '52:54:00:00:00:01', logical_nic_name: 'eth0' }],
          },
        ],
        ignition_config_override: JSON.stringify({
          ignition: { version: '3.1.0' },
          storage: { files: [{ path: '/etc/custom', contents: { source: 'data:,hello' } }] },
        }),
      });
      const r = await http('GET', `${f.h.api}/infra-envs/${ie.id}/downloads/files?file_name=discovery.ign`);
      expect(r.status).toBe(200);
      const ign = r.json;
      expect(ign.ignition.version).toBe('3.1.0');
      expect(ign.ignition.proxy.httpProxy).toBe('http://proxy.example.com:3128');
      expect(ign.passwd.users[0].name).toBe('core');
      const paths = ign.storage.files.map((f: { path: string }) => f.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          '/root/.docker/config.json',
          '/etc/profile.d/proxy.sh',
          '/etc/custom',
          '/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem',
          '/usr/local/bin/add-ntp-sources.sh',
          '/etc/NetworkManager/system-connections/eth0-525400000001.nmconnection',
        ]),
      );
      const unit = ign.systemd.units.find((u: { name: string }) => u.name === 'agent.service');
      expect(unit.contents).toContain(`--url http://api.example.test:8090 --infra-env-id ${ie.id}`);
      expect(unit.contents).toContain('Environment=HTTPS_PROXY=http://proxy.example.com:3128');
      const ps = ign.storage.files.find((f: { path: string }) => f.path === '/root/.docker/config.json');
      expect(Buffer.from(ps.contents.source.split(',')[1], 'base64').toString()).toBe(PULL_SECRET);
      const nm = ign.storage.files.find((f: { path: string }) => f.path.endsWith('eth0-525400000001.nmconnection'));
      const keyfile = Buffer.from(nm.contents.source.split(',')[1], 'base64').toString();
      expect(keyfile).toContain('mac-address=52:54:00:00:00:01');
      expect(keyfile).toContain('address1=192.168.1.10/24,192.168.1.1');

      const initrd = await http('GET', `${f.h.api}/infra-envs/${ie.id}/downloads/minimal-initrd`);
      expect(initrd.status).toBe(200);
      const raw = Buffer.from(
        await (await fetch(`${f.h.api}/infra-envs/${ie.id}/downloads/minimal-initrd`)).arrayBuffer(),
      );
      expect(gunzipSync(raw).toString('latin1')).toContain(
        'etc/coreos-firstboot-network/eth0-525400000001.nmconnection',
      );

      const tar = await fetch(`${f.h.api}/infra-envs/${ie.id}/downloads/files?file_name=static-network-config`);
      expect(tar.status).toBe(200);
      expect(
        Buffer.from(await tar.arrayBuffer())
          .subarray(257, 262)
          .toString(),
      ).toBe('ustar');

      const plain = await f.newInfraEnv();
      expect((await http('GET', `${f.h.api}/infra-envs/${plain.id}/downloads/minimal-initrd`)).status).toBe(204);

      const cust = await f.h.core.ignitionSource.discoveryCustomization({
        infraEnvId: ie.id,
        imageType: 'full-iso',
        credential: { kind: 'none' },
      });
      expect(JSON.parse(cust.ignition.toString()).ignition.version).toBe('3.1.0');
      expect(cust.extraInitrd).toBeDefined();
    });

    it('serves iPXE scripts; boot-order-control answers 404 per MAC once installed; re-registration is 409', async () => {
      const ie = await f.newInfraEnv({ kernel_arguments: [{ operation: 'append', value: 'console=ttyS0' }] });
      const boot = await http('GET', `${f.h.api}/infra-envs/${ie.id}/downloads/files?file_name=ipxe-script`);
      expect(boot.status).toBe(200);
      expect(boot.text).toMatch(/^#!ipxe\n/);
      expect(boot.text).toContain(
        `\ninitrd --name initrd http://img.example.test:8080/images/${ie.id}/pxe-initrd?arch=x86_64&version=4.16 || goto failed\n`,
      );
      expect(boot.text).toMatch(
        /\nkernel http:\/\/img\.example\.test:8080\/boot-artifacts\/kernel\?arch=x86_64&version=4\.16&infra_env_id=[0-9a-f-]{36} initrd=initrd coreos\.live\.rootfs_url=http:\/\/img\.example\.test:8080\/boot-artifacts\/rootfs\?arch=x86_64&version=4\.16&infra_env_id=[0-9a-f-]{36} .*ignition\.firstboot ignition\.platform\.id=metal .* console=ttyS0 \|\| goto failed\n/,
      );
      expect(boot.text).toContain('\nsleep 5\ngoto retry\n');

      const redirect = await http(
        'GET',
        `${f.h.api}/infra-envs/${ie.id}/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control`,
      );
      expect(redirect.text).toContain(
        `chain http://api.example.test:8090/api/assisted-install/v2/infra-envs/${ie.id}/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control&mac=\${net0/mac} || goto failed`,
      );

      const hostId = crypto.randomUUID();
      await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, { host_id: hostId });
      await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}/instructions`, {
        step_type: 'inventory',
        exit_code: 0,
        output: JSON.stringify(inventory({ mac: '52:54:00:aa:bb:99' })),
      });
      const perMac = `${f.h.api}/infra-envs/${ie.id}/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control&mac=52:54:00:AA:BB:99`;
      expect((await http('GET', perMac)).text).toContain('initrd --name initrd');

      // unbound hosts cannot report install progress (upstream: 400); a host installed under an
      // earlier release, which accepted it, is what boot-order-control and re-registration meet
      expect(
        (
          await http('PUT', `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}/progress`, {
            current_stage: 'Writing image to disk',
          })
        ).status,
      ).toBe(400);
      const pg = (await import('pg')).default;
      const sql = new pg.Client({ connectionString: f.storage.databaseUrl });
      await sql.connect();
      try {
        await sql.query(
          `UPDATE hosts SET status = 'installed', status_info = 'Done' WHERE infra_env_id = $1 AND id = $2`,
          [ie.id, hostId],
        );
      } finally {
        await sql.end();
      }
      const installed = await http('GET', `${f.h.api}/infra-envs/${ie.id}/hosts/${hostId}`);
      expect(installed.json.status).toBe('installed');
      conforms('host', installed.json);
      const gone = await http('GET', perMac);
      expect(gone.status).toBe(404);
      conforms('error', gone.json);

      const again = await http('POST', `${f.h.api}/infra-envs/${ie.id}/hosts`, { host_id: hostId });
      expect(again.status).toBe(409);
      conforms('error', again.json);
      expect(again.json.reason).toMatch(/already been installed/);

      const pre = await http(
        'GET',
        `${f.h.api}/infra-envs/${ie.id}/downloads/files-presigned?file_name=ipxe-script&ipxe_script_type=boot-order-control`,
      );
      expect(pre.status).toBe(200);
      conforms('presigned-url', pre.json);
    });

    it('answers 400 for a file name it does not serve', async () => {
      const ie = await f.newInfraEnv();
      expect((await http('GET', `${f.h.api}/infra-envs/${ie.id}/downloads/files?file_name=passwd`)).status).toBe(400);
    });
  });
}
