// One discovery boot per non-x86 architecture (issue 34), shared by test/e2e/arch-<arch>.test.ts:
// the service serves the arch's bootable fixture (fixtures/build-arch-iso.sh) as the InfraEnv's
// image; qemu reads the spliced full ISO from the /byid URL through its curl block driver (as a
// BMC's virtual media); the arch's firmware and boot path (AAVMF → GRUB; SLOF → GRUB; s390-ccw →
// cdboot.img) start Debian's kernel of that arch; the real Ignition of that arch applies the
// served config; the agent stand-in registers and sends an inventory whose cpu.architecture is
// the arch; the service holds that host and inventory.
// Kernel arguments are compared as the kernel parsed them: GRUB re-quotes `k="a b"` as
// `"k=a b"`, s390x (no boot loader) passes the kargs area verbatim.
// Does NOT: boot x86_64 (test/e2e/iso.test.ts and the others), network-boot (phase B), or check
// layouts byte by byte (src/iso/arch-layouts.tools.test.ts).
import { beforeAll, expect, it, type TestContext } from 'vitest';
import {
  type ArchFixture,
  ARCH_MACHINES,
  archGuestArgs,
  archMissing,
  buildArchFixture,
  type GuestArch,
} from './arch-machines.js';
import { bootSuite } from './boot-suite.js';
import type { ReadyContext } from './context.js';
import { agentOutcome, expectIgnitionApplied } from './guest-checks.js';
import { createInfraEnv, type E2eInfraEnv, NIC_MAC } from './infraenv.js';
import { isoExtract } from './iso-tools.js';
import type { BootResult } from './qemu.js';
import { kargValues, parseSerialReport, type SerialReport } from './serial-report.js';
import { API, BootsmithService, OPENSHIFT_VERSION } from './service.js';

/** From qemu's start to the guest's poweroff: 13 s (aarch64, ppc64le) and 6 s (s390x) from a file on a quiet machine; reads over HTTP and load 8 cost more. */
export const ARCH_BOOT_TIMEOUT_MS = 300_000;
/** A cold fixture build downloads ~60 packages and builds two ISOs: about a minute here. */
const FIXTURE_TIMEOUT_MS = 900_000;

/** What each arch's firmware looks like from inside the guest (the FIRMWARE line). */
const FIRMWARE: Record<GuestArch, unknown> = {
  aarch64: { kind: 'uefi', secureBoot: 0, setupMode: 1 }, // AAVMF_VARS.fd: no keys enrolled
  ppc64le: { kind: 'ieee1275', detail: expect.stringMatching(/^SLOF/) },
  s390x: { kind: 's390', detail: 'ipl=ccw' },
};

interface Host {
  id: string;
  status: string;
  inventory?: string;
}

/** What every arch boot must show. */
export function expectArchDiscovery(
  arch: GuestArch,
  report: SerialReport,
  env: E2eInfraEnv,
  expectedCmdline: string | ((cmdline: string) => void),
): void {
  expect(report.begun, 'the fixture /init never reported (see the serial log)').toBe(true);
  expect(report.ended, 'the /init report is incomplete').toBe(true);
  expect(report.kernel, 'the kernel of the arch').toMatch(
    { aarch64: /-arm64$/, ppc64le: /-powerpc64le$/, s390x: /-s390x$/ }[arch],
  );
  expect(report.absent, 'no /config.ign: the kernel did not unpack the spliced archive').not.toContain('/config.ign');
  expect(report.files.get('/config.ign')?.content.equals(env.discoveryIgnition)).toBe(true);
  if (typeof expectedCmdline === 'string') expect(report.cmdline).toBe(expectedCmdline);
  else expectedCmdline(report.cmdline ?? '');
  expectIgnitionApplied(report, env.discoveryIgnition);
  const agent = agentOutcome(report);
  expect(agent.errors).toEqual([]);
  expect(agent.registered).toBe(201);
  expect(agent.inventory?.cpu).toMatchObject({ architecture: arch });
}

/** The host the guest registered, from the service: its inventory's cpu.architecture is `arch`. */
export async function expectRegisteredHost(service: BootsmithService, envId: string, arch: GuestArch): Promise<void> {
  const hosts = (await (await service.call('GET', `${API}/infra-envs/${envId}/hosts`)).json()) as Host[];
  expect(hosts).toHaveLength(1);
  const inventory = JSON.parse(hosts[0]?.inventory ?? '{}') as { cpu?: { architecture?: string } };
  expect(inventory.cpu?.architecture).toBe(arch);
  const infraEnv = (await (await service.call('GET', `${API}/infra-envs/${envId}`)).json()) as {
    cpu_architecture: string;
  };
  expect(infraEnv.cpu_architecture).toBe(arch);
}

export interface ArchSuite {
  ctx: () => ReadyContext;
  service: () => BootsmithService;
  fixture: () => ArchFixture;
  defaultKargs: () => string;
  boot: (t: TestContext, name: string, options: Parameters<typeof archGuestArgs>[3]) => Promise<BootResult>;
}

/**
 * The suite of `arch`: skipped (failing under CI=true) without its qemu and firmware; `more`
 * adds the arch's own cases (s390x's PXE-style boot).
 */
export function archBootSuite(arch: GuestArch, more?: (suite: ArchSuite) => void): void {
  bootSuite(`${arch}: the spliced discovery ISO booted under qemu (TCG)`, archMissing(arch), (suite) => {
    const machine = ARCH_MACHINES[arch];
    let fixture: ArchFixture;
    let defaultKargs: string;

    suite.startService(() => {
      fixture = buildArchFixture(arch);
      console.log(`e2e ${arch}: fixture ${fixture.outcome} (${fixture.buildSeconds.toFixed(1)} s)`);
      return {
        name: `arch-${arch}`,
        baseIso: fixture.iso,
        cpuArchitecture: arch,
        // qemu's curl driver reads the ISO on loopback; the guest's agent calls 10.0.2.2 (slirp's host).
        serviceBaseUrl: (port) => `http://10.0.2.2:${port}`,
      };
    }, FIXTURE_TIMEOUT_MS);
    beforeAll(async () => {
      const kargsJson = JSON.parse((await isoExtract(fixture.iso, '/coreos/kargs.json'))?.toString('utf8') ?? '{}') as {
        default: string;
      };
      defaultKargs = kargsJson.default;
      expect(defaultKargs).toContain(`coreos.liveiso=bootsmith-e2e-${arch}`);
    });

    const boot: ArchSuite['boot'] = async (t, name, options) =>
      suite.boot(t, {
        name,
        qemu: machine.qemu,
        args: await archGuestArgs(arch, suite.ctx.runDir, name, options),
        timeoutMs: ARCH_BOOT_TIMEOUT_MS,
      });

    it(`boots the full ISO from its /byid URL under ${arch}'s firmware; Ignition of ${arch} applies the served config; the guest registers as ${arch}`, async (t) => {
      const env = await createInfraEnv(suite.service, {
        name: `e2e-${arch}`,
        cpuArchitecture: arch,
        kernelArguments: [`console=${machine.console}`, `bootsmith.e2e=${arch}`, 'bootsmith.note="spliced kargs"'],
      });
      expect(env.downloadUrl).toBe(`${suite.service.url}/byid/${env.id}/${OPENSHIFT_VERSION}/${arch}/full.iso`);
      const result = await boot(t, `arch-${arch}-iso`, { cdrom: { url: env.downloadUrl }, mac: NIC_MAC, diskGB: 8 });
      const report = parseSerialReport(result.serial);
      const kargs = `${defaultKargs} ${env.kernelArguments.join(' ')}`;
      expectArchDiscovery(
        arch,
        report,
        env,
        arch === 's390x'
          ? kargs // no boot loader: the kargs area of cdboot.img, verbatim
          : (cmdline) => {
              // GRUB read the area spliced into its grub.cfg, and re-quoted the spaced argument
              expect(cmdline.startsWith(`BOOT_IMAGE=/images/pxeboot/vmlinuz ${defaultKargs} `)).toBe(true);
              expect(kargValues(cmdline, 'bootsmith.note')).toEqual(['spliced kargs']);
              expect(kargValues(cmdline, 'console')).toEqual([machine.console]);
            },
      );
      expect(report.firmware).toEqual(FIRMWARE[arch]);
      await expectRegisteredHost(suite.service, env.id, arch);
      expect(result.exitCode).toBe(0);
    });

    more?.({
      ctx: () => suite.ctx,
      service: () => suite.service,
      fixture: () => fixture,
      defaultKargs: () => defaultKargs,
      boot,
    });
  });
}
