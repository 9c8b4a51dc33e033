// The Redfish client against hostile BMCs (test/support/redfish-emulator/hostile-documents.ts:
// 32 slots of 3.9 MB, 600,000 boot targets, documents nested 200,000 deep, bodies that never end,
// 120 KB error messages, an internal service's JSON, NUL and lone surrogates, escape sequences):
// each inventory read fails with an error naming the BMC, the step and the bound, or succeeds
// with strings PostgreSQL can store; a BMC's message is cut before it is scrubbed, and a password
// that straddles the cut is scrubbed all the same.
import { afterAll, describe, expect, it } from 'vitest';
import { HOSTILE_CASES } from '../../../test/support/redfish-emulator/hostile-documents.js';
import { type EmulatedBmc, startVirtualBmc, type VirtualGuest } from '../../../test/support/redfish-emulator/index.js';
import { RedfishClient } from './client.js';
import { RedfishError } from './errors.js';
import { MAX_BMC_MESSAGE_CHARS } from './limits.js';
import { RedfishTransport } from './transport.js';

const PASSWORD = 'hostile-Passw0rd-9';

describe('hostile BMC documents', () => {
  const started: { bmc: EmulatedBmc; guest: VirtualGuest }[] = [];
  afterAll(async () => {
    for (const { bmc, guest } of started) {
      await bmc.close();
      await guest.close();
    }
  });

  it.each(HOSTILE_CASES.map((c) => [c.name, c] as const))('%s', async (name, hostile) => {
    const emulated = await startVirtualBmc({ name, profile: 'generic', password: PASSWORD, faults: hostile.faults });
    started.push(emulated);
    const client = await RedfishClient.open({
      name,
      address: emulated.bmc.rootUrl,
      username: 'admin',
      password: PASSWORD,
      trust: { verify: 'system' },
      retryDelaysMs: [],
    });
    const outcome = await client.inventory('discover').then(
      (inventory) => ({ inventory }),
      (error: unknown) => ({ error }),
    );
    if (hostile.error) {
      expect('error' in outcome && outcome.error).toBeInstanceOf(RedfishError);
      const error = (outcome as { error: RedfishError }).error;
      expect(error.message.startsWith(`BMC ${JSON.stringify(name)}: discover: `)).toBe(true);
      expect(error.message).toMatch(hostile.error);
      expect(error.message.length).toBeLessThan(1_000);
      expect(error.message).not.toContain('hunter2');
    } else {
      expect('inventory' in outcome).toBe(true);
      const { inventory } = outcome as { inventory: Awaited<ReturnType<RedfishClient['inventory']>> };
      expect(inventory.system.model).toBe(hostile.storedModel);
      // nothing PostgreSQL refuses: no NUL, no surrogate half alone
      expect(JSON.stringify(inventory)).not.toMatch(/\\u0000|\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|\\ud[c-f][0-9a-f]{2}/i);
    }
  });

  it('cuts a message before scrubbing it; a password straddling the cut is scrubbed whole', () => {
    const t = new RedfishTransport({
      bmc: 'b',
      origin: 'https://127.0.0.1',
      username: 'admin',
      password: PASSWORD,
      tls: { ca: undefined, rejectUnauthorized: true },
    });
    const max = MAX_BMC_MESSAGE_CHARS;
    const straddling = `${'m'.repeat(max - 5)}${PASSWORD}${'z'.repeat(200_000)}`;
    const cut = t.scrubCut(straddling, max);
    expect(cut).toHaveLength(max);
    expect(cut).toBe(`${'m'.repeat(max - 5)}[reda`);
    expect(t.scrubCut(`x${PASSWORD}`, max)).toBe('x[redacted]');
    // a surrogate pair cut in half leaves nothing PostgreSQL refuses
    expect(t.scrubCut(`${'m'.repeat(max - 1)}😀`, max)).toBe(`${'m'.repeat(max - 1)}\uFFFD`);
  });
});
