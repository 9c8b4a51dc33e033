// Test support: one image served over HTTP and over HTTPS (a certificate of a CA made for the
// suite) for a whole describe block: made in its beforeAll, closed and deleted in its afterAll.
// The suites that drive emulated BMCs with real clients use it (src/bmc/redfish/http-boot.tools.test.ts,
// emulator-honesty.tools.test.ts).
// Does NOT: start BMCs or guests (index.ts startVirtualBmc), or serve more than one file. The
// server itself: ./iso-server.ts; the CA: ./test-ca.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type IsoServer, startIsoServer } from './iso-server.js';
import { makeTestCertificates, type TestCertificates } from './test-ca.js';

export interface IsoSuite {
  /** The suite's CA and server certificate (also what emulated BMCs present). */
  readonly certs: TestCertificates;
  readonly http: IsoServer;
  readonly https: IsoServer;
}

/** Call inside a describe block; read the fields in tests (they are set once beforeAll ran). */
export function isoSuite(file: string, name: string): IsoSuite {
  let dir: string | undefined;
  let state: IsoSuite | undefined;
  let http: IsoServer | undefined;
  let https: IsoServer | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'iso-suite-'));
    const certs = makeTestCertificates(dir);
    http = await startIsoServer({ file, name });
    https = await startIsoServer({ file, name, tls: certs });
    state = { certs, http, https };
  });
  afterAll(async () => {
    await http?.close();
    await https?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const ready = (): IsoSuite => {
    if (state === undefined) throw new Error('isoSuite: read in a test, after beforeAll');
    return state;
  };
  return {
    get certs() {
      return ready().certs;
    },
    get http() {
      return ready().http;
    },
    get https() {
      return ready().https;
    },
  };
}
