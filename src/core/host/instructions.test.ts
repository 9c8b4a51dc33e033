// nextSteps as a table: each host status and the heartbeat answer it gets — how long until the
// next heartbeat, and whether it carries the inventory step (with the host id as upstream sends it).
import { describe, expect, it } from 'vitest';

import type { HostStatus } from '../model.js';
import { nextSteps } from './instructions.js';

const ID = '0f0e0d0c-0b0a-4009-8807-060504030201';

describe('nextSteps: table', () => {
  it.each<[HostStatus, number, boolean]>([
    ['discovering-unbound', 60, true],
    ['known-unbound', 60, true],
    ['insufficient-unbound', 60, true],
    ['disconnected-unbound', 120, true],
    ['installing-in-progress', 60, false],
    ['installed', 120, false],
    ['error', 120, false],
  ])('%s: next in %d s, inventory step %s', (status, seconds, inventory) => {
    const steps = nextSteps({ id: ID, status });
    expect(steps.next_instruction_seconds).toBe(seconds);
    expect(steps.post_step_action).toBe('continue');
    expect(steps.instructions.map((s) => [s.step_type, s.args])).toEqual(inventory ? [['inventory', [ID]]] : []);
  });

  it('names each step inventory-<8 hex digits>, a new one every time', () => {
    const a = nextSteps({ id: ID, status: 'known-unbound' }).instructions[0]!.step_id;
    const b = nextSteps({ id: ID, status: 'known-unbound' }).instructions[0]!.step_id;
    expect(a).toMatch(/^inventory-[0-9a-f]{8}$/);
    expect(b).not.toBe(a);
  });
});
