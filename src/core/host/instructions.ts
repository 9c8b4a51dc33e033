// The steps answered to an agent's heartbeat (GET .../instructions), per host status.
//
// Unbound discovery states get the `inventory` step (args: [host id], as upstream) every
// 60 s, disconnected hosts every 120 s; installed/error hosts get no steps.
// Connectivity, NTP and other upstream steps are not issued: this core only needs the inventory.
import { randomUUID } from 'node:crypto';
import type { HostRecord } from '../model.js';

export interface Step {
  step_type: string;
  step_id: string;
  args: string[];
}

export interface Steps {
  next_instruction_seconds: number;
  post_step_action: 'continue' | 'exit';
  instructions: Step[];
}

const NEXT_SECONDS = 60;
const BACKED_OFF_SECONDS = 120;

function step(type: string, args: string[]): Step {
  return { step_type: type, step_id: `${type}-${randomUUID().slice(0, 8)}`, args };
}

export function nextSteps(h: Pick<HostRecord, 'id' | 'status'>): Steps {
  switch (h.status) {
    case 'discovering-unbound':
    case 'known-unbound':
    case 'insufficient-unbound':
      return {
        next_instruction_seconds: NEXT_SECONDS,
        post_step_action: 'continue',
        instructions: [step('inventory', [h.id])],
      };
    case 'disconnected-unbound':
      return {
        next_instruction_seconds: BACKED_OFF_SECONDS,
        post_step_action: 'continue',
        instructions: [step('inventory', [h.id])],
      };
    case 'installing-in-progress':
      return { next_instruction_seconds: NEXT_SECONDS, post_step_action: 'continue', instructions: [] };
    default:
      return { next_instruction_seconds: BACKED_OFF_SECONDS, post_step_action: 'continue', instructions: [] };
  }
}
