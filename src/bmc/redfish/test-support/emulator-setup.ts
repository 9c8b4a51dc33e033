// Test support: what the Redfish tools tests set up around the emulator
// (test/support/redfish-emulator), once: a test CA and the emulated BMCs' certificate per test
// file (in a temporary directory made in beforeAll and removed in afterAll), emulated BMCs with
// virtual guests served over HTTPS with that certificate, and RedfishClients that trust that CA,
// with the file's name, credentials, clocks, sleep and log unless a test says otherwise.
// Call it inside the file's describe (its hooks belong there, and are skipped with it).
// Does NOT: fake anything (real HTTPS on loopback), pick a profile or faults (each test does), or
// close a test's BMCs (the test does, in its `finally`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import {
  makeTestCertificates,
  startVirtualBmc,
  type TestCertificates,
} from '../../../../test/support/redfish-emulator/index.js';
import { RedfishClient, type RedfishClientOptions } from '../client.js';

type VirtualBmcOptions = Parameters<typeof startVirtualBmc>[0];

/** What a client of the file has unless a test says otherwise (the address and the trust are the setup's). */
export type ClientDefaults = Omit<RedfishClientOptions, 'address' | 'trust'>;

export interface EmulatorSetup {
  /** The file's test CA and the emulated BMCs' certificate (from the file's beforeAll on). */
  readonly certs: TestCertificates;
  /** An emulated BMC and its virtual guest, over HTTPS with the file's certificate; the clients' password unless given. */
  startBmc(options: Omit<VirtualBmcOptions, 'tls'>): ReturnType<typeof startVirtualBmc>;
  /** A client of `address` trusting the file's CA: the file's defaults, then `extra`. */
  open(address: string, extra?: Partial<RedfishClientOptions>): Promise<RedfishClient>;
}

/** The setup of one test file; `tmpPrefix` names its temporary directory. */
export function emulatorSetup(tmpPrefix: string, defaults: ClientDefaults): EmulatorSetup {
  let dir: string | undefined;
  let certs: TestCertificates | undefined;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), `${tmpPrefix}-`));
    certs = makeTestCertificates(dir);
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const made = (): TestCertificates => {
    if (!certs) throw new Error('the emulator setup is used before its beforeAll ran');
    return certs;
  };
  return {
    get certs() {
      return made();
    },
    startBmc: (options) => startVirtualBmc({ password: defaults.password, ...options, tls: made() }),
    open: (address, extra = {}) =>
      RedfishClient.open({ ...defaults, address, trust: { verify: 'ca-file', caFile: made().caFile }, ...extra }),
  };
}
