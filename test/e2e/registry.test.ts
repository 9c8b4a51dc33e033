// A disconnected site end to end (issue 28, "Done when"): a registry is the only source of the
// base ISO. The bootable fixture ISO is mirrored into a mirror registry (Debian's docker-registry,
// TLS with a private CA, htpasswd); OS_IMAGES names it by digest on the primary registry, which is
// down (nothing listens on its port); REGISTRIES_CONF_FILE sends digest pulls of the primary's
// namespace to the mirror, REGISTRY_CA_FILE trusts the mirror's CA, REGISTRY_AUTH_FILE holds the
// mirror's credentials, as an operator of such a site configures them. The service (the built CLI,
// a child process) pulls the ISO from the mirror, verifies it, serves it; qemu boots the discovery
// ISO with BIOS from a plain download; the real Ignition in the guest writes the discovery config,
// whose registries.conf, policy.json and CA anchor point the host at the same mirror.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { HAVE_REGISTRY_TOOLS } from '../../src/images/fetch/oci/test-support/registry-lab.js';
import { type MirrorSite, startMirrorSite } from '../../src/images/fetch/oci/test-support/mirror-site.js';
import { bootSuite } from './support/boot-suite.js';
import { expectIgnitionApplied } from './support/guest-checks.js';
import { createInfraEnv, ignitionFile } from './support/infraenv.js';
import { parseSerialReport } from './support/serial-report.js';
import { OPENSHIFT_VERSION } from './support/service.js';

const BOOT_TIMEOUT_MS = 120_000;
/** Pushing, pulling and verifying the ~36 MiB fixture on a loaded 2-core machine. */
const READY_TIMEOUT_MS = 120_000;
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

bootSuite('a disconnected site: the base ISO from a mirror registry (qemu, TCG)', HAVE_REGISTRY_TOOLS, (suite) => {
  let site: MirrorSite;
  let iso: Buffer;
  let digest: string;

  suite.startService(async () => {
    site = await startMirrorSite();
    iso = readFileSync(suite.ctx.baseIso);
    digest = site.publish('rhcos-live', iso, 'rhcos-live.x86_64.iso'); // what oc-mirror left on the mirror
    return {
      name: 'registry',
      env: {
        OS_IMAGES: JSON.stringify([
          {
            openshift_version: OPENSHIFT_VERSION,
            cpu_architecture: 'x86_64',
            version: '417.94.e2e',
            url: `oci://${site.sourceRef('rhcos-live', digest)}`,
          },
        ]),
        REGISTRIES_CONF_FILE: site.registriesConfFile,
        REGISTRY_CA_FILE: site.caFile,
        REGISTRY_AUTH_FILE: site.authFile,
      },
    };
  }, 180_000);
  afterAll(async () => {
    await site?.stop();
  });

  it('pulls the ISO by digest from the mirror (the primary down), serves it, boots it; the hosts are pointed at the mirror', async (t) => {
    // pulled from the mirror, verified, ready
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let image: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      const health = (await (await suite.service.fetch(`${suite.service.url}/health`)).json()) as {
        images: Array<Record<string, unknown>>;
      };
      image = health.images[0]!;
      if (image.state === 'ready' || image.state === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(image, await suite.service.logTail()).toMatchObject({
      state: 'ready',
      source: `oci://${site.sourceRef('rhcos-live', digest)}`,
      resolved: site.sourceRef('rhcos-live', digest),
      pulled_from: `${site.mirror.host}/mirrored/ocp/rhcos-live@${digest}`,
      sha256: sha256(iso),
      file: `sha256-${sha256(iso)}.iso`,
    });

    // the hosts' discovery Ignition sends their own pulls to the same mirror
    const env = await createInfraEnv(suite.service, {
      name: 'e2e-disconnected',
      kernelArguments: ['console=ttyS0', 'bootsmith.e2e=registry'],
    });
    const registriesConf = ignitionFile(env.discoveryIgnition, '/etc/containers/registries.conf') ?? '';
    expect(registriesConf).toContain(`prefix = "${site.deadHost}/ocp"`);
    expect(registriesConf).toContain(`location = "${site.mirror.host}/mirrored/ocp"`);
    expect(registriesConf).toContain('pull-from-mirror = "digest-only"');
    expect(ignitionFile(env.discoveryIgnition, '/etc/pki/ca-trust/source/anchors/domain.crt')).toBe(
      readFileSync(site.caFile, 'utf8'),
    );
    expect(ignitionFile(env.discoveryIgnition, '/etc/containers/policy.json')).toMatch(/insecureAcceptAnything/);

    // served: the discovery ISO, downloaded as a user would, is the pulled ISO with the config spliced in
    const isoPath = path.join(suite.ctx.runDir, 'registry-full.iso');
    const download = await fetch(env.downloadUrl);
    expect(download.status).toBe(200);
    const served = Buffer.from(await download.arrayBuffer());
    expect(served.length).toBe(iso.length);
    await writeFile(isoPath, served);

    // booted: BIOS → isolinux → the kernel unpacks the spliced archive; Ignition writes the config
    const result = await suite.boot(t, {
      name: 'registry-boot',
      args: ['-nic', 'none', '-boot', 'order=d', '-cdrom', isoPath],
      timeoutMs: BOOT_TIMEOUT_MS,
    });
    const report = parseSerialReport(result.serial);
    expect(report.begun, 'the fixture /init never reported (see the serial log)').toBe(true);
    expect(report.files.get('/config.ign')?.content.toString('utf8')).toBe(env.discoveryIgnition.toString('utf8'));
    expectIgnitionApplied(report, env.discoveryIgnition);
    for (const p of [
      '/etc/containers/registries.conf',
      '/etc/containers/policy.json',
      '/etc/pki/ca-trust/source/anchors/domain.crt',
    ])
      expect(report.tree.get(p), `${p} written in the guest`).toMatchObject({ type: 'f', mode: 0o644, uid: 0 });
    expect(result.exitCode).toBe(0);
  });
});
