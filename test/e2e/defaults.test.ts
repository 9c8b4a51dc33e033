// The service with no configuration (issue 24): only DATA_DIR, a free LISTEN_PORT and the
// bootable fixture as OS_IMAGES (the demo image does not boot). It listens on every address
// with local auth and derives its URLs from this host's routable address; an InfraEnv created
// with the admin token hands out URLs a BMC and a booted host can use:
//
//   1. the download_url (the short /bytoken/ URL on the routable address) boots a guest with
//      user networking through qemu's HTTP block driver, as a BMC reads virtual media; the
//      agent's --url in its Ignition is the routable address too;
//   2. the guest itself reaches the routable address: iPXE on a virtio NIC with user networking
//      (slirp forwards to the host's address) chains the InfraEnv's iPXE script URL from
//      files-presigned and fetches the kernel and the pxe-initrd from it;
//   3. an unauthenticated client on the routable address gets no pull secret: the InfraEnv,
//      its discovery Ignition, its ISO by id, the list, all 401.
import { beforeAll, expect, it, type TestContext } from 'vitest';
import { isLoopbackHost } from '../../src/startup/routable-address.js';
import { bootSuite } from './support/boot-suite.js';
import { createInfraEnv, type E2eInfraEnv, NIC_MAC } from './support/infraenv.js';
import { ipxeMachine } from './support/ipxe-machine.js';
import { parseSerialReport, type SerialReport } from './support/serial-report.js';
import { API, OPENSHIFT_VERSION } from './support/service.js';

const ISO_BOOT_TIMEOUT_MS = 120_000;
const PXE_BOOT_TIMEOUT_MS = 180_000;

/** The guest received exactly this Ignition and these kernel arguments. */
function expectIgnition(report: SerialReport, env: E2eInfraEnv): void {
  expect(report.ended, 'the fixture /init never reported (see the serial log)').toBe(true);
  expect(report.files.get('/config.ign')?.content.toString('utf8')).toBe(env.discoveryIgnition.toString('utf8'));
  expect(report.cmdline?.endsWith(` ${env.kernelArguments.join(' ')}`)).toBe(true);
}

bootSuite('the defaults, booted by real clients (qemu, TCG)', {}, (suite) => {
  let env: E2eInfraEnv;
  let routable: string;

  suite.startService(() => ({ name: 'defaults', defaults: true }));
  beforeAll(async () => {
    routable = suite.service.baseUrl;
    env = await createInfraEnv(suite.service, {
      name: 'e2e-defaults',
      kernelArguments: ['console=ttyS0', 'bootsmith.e2e=defaults'],
    });
  });

  it("1. hands out the routable address: a guest with user networking boots from the download_url through qemu's HTTP block driver", async (t) => {
    const { hostname, port } = new URL(routable);
    expect(isLoopbackHost(hostname), `the service derived ${routable}`).toBe(false);
    expect(port).toBe(new URL(suite.service.url).port);
    expect(env.downloadUrl).toMatch(
      new RegExp(
        `^${routable.replace(/[.[\]]/g, '\\$&')}/bytoken/[A-Za-z0-9_-]{32}/${OPENSHIFT_VERSION}/x86_64/full\\.iso$`,
      ),
    );
    expect(env.discoveryIgnition.toString('utf8')).toContain(`--url ${routable} `);
    const health = (await (await fetch(`${suite.service.url}/health`)).json()) as { warnings: string[] };
    expect(health.warnings).toEqual([]);

    const drive = `if=none,id=cd0,media=cdrom,readonly=on,driver=raw,file.driver=http,file.url=${env.downloadUrl.replaceAll(',', ',,')}`;
    const result = await suite.boot(t, {
      name: 'defaults-virtual-media',
      args: [
        '-netdev',
        'user,id=n0',
        '-device',
        `virtio-net-pci,netdev=n0,mac=${NIC_MAC}`,
        '-drive',
        drive,
        '-device',
        'ide-cd,drive=cd0,bootindex=0',
      ],
      timeoutMs: ISO_BOOT_TIMEOUT_MS,
    });
    expectIgnition(parseSerialReport(result.serial), env);
    expect(result.exitCode).toBe(0);
  });

  it('2. the guest reaches the routable address itself: iPXE over user networking chains the script and fetches kernel and initrd from it', async (t: TestContext) => {
    const presigned = JSON.parse(
      await suite.service.expectCall(
        'GET',
        `${API}/infra-envs/${env.id}/downloads/files-presigned?file_name=ipxe-script&ipxe_script_type=discovery-image-always`,
        200,
      ),
    ) as { url: string };
    expect(presigned.url.startsWith(`${routable}/`)).toBe(true);
    const script = await suite.service.expectCall(
      'GET',
      `${API}/infra-envs/${env.id}/downloads/files?file_name=ipxe-script`,
      200,
    );
    expect(/^kernel (\S+) /m.exec(script)?.[1]?.startsWith(`${routable}/`)).toBe(true);
    expect(/^initrd --name initrd (\S+) /m.exec(script)?.[1]?.startsWith(`${routable}/`)).toBe(true);

    const machine = await ipxeMachine(suite.ctx.runDir, 'defaults-ipxe', presigned.url);
    const result = await suite.boot(t, { name: 'defaults-ipxe', args: machine, timeoutMs: PXE_BOOT_TIMEOUT_MS });
    const report = parseSerialReport(result.serial);
    expectIgnition(report, env); // kernel and pxe-initrd came from the routable address
    expect(report.cmdline).toContain(` coreos.live.rootfs_url=${routable}/boot-artifacts/rootfs?`);
  });

  it('3. an unauthenticated client on the routable address gets no pull secret', async () => {
    // the pull secret as the discovery Ignition carries it (a base64 data URL), and as sent
    const files = (
      JSON.parse(env.discoveryIgnition.toString('utf8')) as {
        storage: { files: { path: string; contents: { source: string } }[] };
      }
    ).storage.files;
    const source = files.find((f) => f.path === '/root/.docker/config.json')?.contents.source ?? '';
    const carried = source.slice(source.indexOf(',') + 1);
    expect(carried.length).toBeGreaterThan(20);
    const sent = Buffer.from(carried, 'base64').toString('utf8');
    expect(sent).toContain('"auths"');
    for (const p of [
      `${API}/infra-envs`,
      `${API}/infra-envs/${env.id}`,
      `${API}/infra-envs/${env.id}/downloads/files?file_name=discovery.ign`,
      `${API}/infra-envs/${env.id}/downloads/image-url`,
      `${API}/infra-envs/${env.id}/downloads/files-presigned?file_name=ipxe-script`,
      `/byid/${env.id}/${OPENSHIFT_VERSION}/x86_64/full.iso`,
      `/images/${env.id}?version=${OPENSHIFT_VERSION}&type=full-iso`,
      `/images/${env.id}/pxe-initrd?version=${OPENSHIFT_VERSION}&arch=x86_64`,
    ]) {
      const r = await fetch(routable + p);
      const body = Buffer.from(await r.arrayBuffer());
      expect(r.status, p).toBe(401);
      expect(body.includes(carried), p).toBe(false);
      expect(body.includes(sent), p).toBe(false);
    }
  });
});
