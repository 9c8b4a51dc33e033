// The refresh loop of `hosts list --watch` and `events --follow`: run a step, wait the interval,
// repeat, until Ctrl-C (SIGINT/SIGTERM end it cleanly with exit 0), `--count` rounds, or
// MAX_WATCH_MS. Each step's requests carry their own timeout (api-client.ts).
// Does NOT: render anything.
import { UsageError } from '../args.js';
import { type OptionValues, valueOption } from '../options.js';

/** A forgotten terminal must not poll a service for ever. */
export const MAX_WATCH_MS = 24 * 60 * 60 * 1000;
const DEFAULT_INTERVAL_S = 2;

export const POLL_OPTIONS = {
  interval: valueOption({
    long: 'interval',
    value: 'SECONDS',
    help: `seconds between refreshes [default: ${DEFAULT_INTERVAL_S}]`,
  }),
  count: valueOption({ long: 'count', value: 'N', help: 'stop after N refreshes [default: until Ctrl-C]' }),
};

function positiveNumber(raw: string | undefined, name: string, verb: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`${verb}: --${name} must be a positive number`, `usage: ${verb} --help`);
  return n;
}

export async function pollLoop(
  options: OptionValues<typeof POLL_OPTIONS>,
  verb: string,
  step: () => Promise<void>,
): Promise<void> {
  const intervalMs = (positiveNumber(options.interval, 'interval', verb) ?? DEFAULT_INTERVAL_S) * 1000;
  const count = positiveNumber(options.count, 'count', verb) ?? Number.POSITIVE_INFINITY;
  const deadline = Date.now() + MAX_WATCH_MS;
  let stop = false;
  let wake: (() => void) | undefined;
  const onSignal = (): void => {
    stop = true;
    wake?.();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (let round = 0; !stop && round < count && Date.now() < deadline; round++) {
      await step();
      if (round + 1 >= count) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
