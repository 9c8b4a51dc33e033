// The one message the parse worker (src/images/fetch/parse-worker-entry.ts) sends back to its host
// (src/images/fetch/parse-worker.ts). Types only.
import type { BudgetName } from '../../iso/parse-budget.js';
import type { LiveManifest } from '../../iso/manifest.js';

export type ParseWorkerReply =
  | { ok: true; manifest: LiveManifest }
  | {
      ok: false;
      error: {
        /** The parser refused the bytes (a FormatError): the same bytes would fail again. */
        format: boolean;
        /** Set for a BudgetExceededError, with its detail. */
        budget?: { name: BudgetName; detail: string };
        message: string;
        context: Record<string, string | number>;
      };
    };
