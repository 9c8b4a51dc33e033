// The prologue the boot tests share, once: a suite that runs only where the global setup found
// qemu (elsewhere one skipped test says why) and where what else it names is present (missing,
// it is skipped, and fails under CI=true: unavailable()); the suite's bootsmith service, started
// before its tests from the global setup's context and stopped after them; every guest a test
// left running killed after it; and `boot()`, one guest whose failure also shows the service's
// log tail.
//
// Does NOT: create InfraEnvs (infraenv.ts), build machines (machine.ts, ipxe-machine.ts), check
// what a guest reports (guest-checks.ts, serial-report.ts), or start anything but the service.
import { afterAll, afterEach, beforeAll, describe, it, type TestContext } from 'vitest';
import { unavailable } from '../../support/requirements.js';
import { e2eContext, readyContext, type ReadyContext } from './context.js';
import { type BootOptions, bootInTest, type BootResult, killAllGuests } from './qemu.js';
import { BootsmithService, type ServiceOptions } from './service.js';

/** The service's options; the executable, run directory and base ISO default to the global setup's. */
export type SuiteServiceOptions = Omit<ServiceOptions, 'cli' | 'runDir' | 'baseIso'> & { baseIso?: string };

export interface BootSuite {
  /** The global setup's findings (in hooks and tests). */
  readonly ctx: ReadyContext;
  /** The service startService() started (in hooks after it and in tests). */
  readonly service: BootsmithService;
  /**
   * Starts the suite's service before its tests (a beforeAll hook, in order with the suite's own);
   * `options` may first make what the options name (a CA, a network); `timeoutMs` bounds the hook
   * when that takes longer than vitest's hookTimeout.
   */
  startService(options: () => SuiteServiceOptions | Promise<SuiteServiceOptions>, timeoutMs?: number): void;
  /** Boots one guest under the setup's qemu (or `qemu`) in the run directory; see bootInTest(). */
  boot(t: TestContext, options: Omit<BootOptions, 'runDir' | 'qemu'> & { qemu?: string }): Promise<BootResult>;
}

/**
 * Declares the boot suite `title`: `requires` names what it needs beyond qemu (name → present),
 * `body` its hooks and tests.
 */
export function bootSuite(title: string, requires: Record<string, boolean>, body: (suite: BootSuite) => void): void {
  const setup = e2eContext();
  if (!setup.ready) {
    describe(title, () => {
      it.skip(`SKIPPED: ${setup.skipReason}`, () => undefined);
    });
  }
  describe.runIf(setup.ready && !unavailable(requires))(title, () => {
    let service: BootsmithService | undefined;
    const suite: BootSuite = {
      get ctx() {
        return readyContext();
      },
      get service() {
        if (service === undefined) throw new Error(`${title}: the service is not started (startService)`);
        return service;
      },
      startService(options, timeoutMs) {
        beforeAll(async () => {
          const ctx = readyContext();
          service = await BootsmithService.start({
            cli: ctx.cli,
            runDir: ctx.runDir,
            baseIso: ctx.baseIso,
            ...(await options()),
          });
        }, timeoutMs);
      },
      boot(t, options) {
        const ctx = readyContext();
        return bootInTest(t, { ...options, runDir: ctx.runDir, qemu: options.qemu ?? ctx.qemu }, () =>
          service === undefined ? Promise.resolve('') : service.logTail(),
        );
      },
    };
    afterEach(() => {
      const left = killAllGuests();
      if (left > 0) console.warn(`e2e: killed ${left} guest(s) still running after the test`);
    });
    body(suite);
    // Registered after the suite's own hooks, so it runs before their afterAll (vitest runs those
    // in reverse): the guests and the service stop before what the suite started for them.
    afterAll(async () => {
      killAllGuests();
      await service?.stop();
    });
  });
}
