// The messages between the render worker (render-worker-entry.ts) and its host (render-worker.ts).
// Types only.
import type { IgnitionConfig } from './validate.js';

export interface RenderWorkerRequest {
  /** The discovery config before the override (small, built on the main thread). */
  base: IgnitionConfig;
  /** The InfraEnv's ignition_config_override as stored (JSON text). */
  overrideText: string;
}

export type RenderWorkerReply =
  | { ok: true; bytes: Uint8Array }
  | {
      ok: false;
      error: {
        /** The error kind of src/errors.ts (bad-request, payload-too-large, …). */
        kind: string;
        message: string;
        context: Record<string, string | number>;
        payloadSize?: number;
        capacity?: number;
      };
    };
