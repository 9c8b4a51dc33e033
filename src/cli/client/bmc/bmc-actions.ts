// `bootsmith bmc eject NAME`, `bmc power NAME on|off|reset`, `bmc refresh NAME`: queue the job and
// wait for it (bounded by --timeout; the job goes on on the service after it), printing its steps
// as they end; exit 1 with the job's reason, which names the BMC and the step, when it fails.
// Does NOT: boot (bmc-boot.ts) or change the record.
import { argument } from '../../options.js';
import { CliError, defineVerb, type CliIo } from '../../verb.js';
import { ApiClient, CLIENT_OPTIONS } from '../api-client.js';
import { type JobView, jobLine, queueJob, TIMEOUT_OPTION, timeoutMs, waitForJob } from './bmc-client.js';

/** A Redfish action job is a dozen calls with bounded retries: ten minutes is ample. */
const DEFAULT_ACTION_WAIT_MS = 10 * 60_000;

async function runAction(
  options: { url: string | undefined; token: string | undefined; timeout: string | undefined },
  io: CliIo,
  name: string,
  action: string,
): Promise<number> {
  const client = ApiClient.from(options, io);
  const queued = await queueJob(client, name, { action });
  const done: JobView = await waitForJob(client, name, queued, {
    timeoutMs: timeoutMs(options.timeout, DEFAULT_ACTION_WAIT_MS),
  });
  if (done.state === 'failed') throw new CliError(`BMC ${name}`, `${action} failed: ${done.error ?? ''}`);
  io.stdout.write(`${jobLine(name, done)}\n`);
  return 0;
}

const OPTIONS = { timeout: TIMEOUT_OPTION, ...CLIENT_OPTIONS };

export const bmcEject = defineVerb({
  name: 'bootsmith bmc eject',
  summary: 'Eject every virtual media slot of a BMC',
  options: OPTIONS,
  positionals: { name: argument('NAME') },
  run: ({ options, positionals }, io) => runAction(options, io, positionals.name, 'eject'),
});

export const bmcRefresh = defineVerb({
  name: 'bootsmith bmc refresh',
  summary: "Read a BMC's inventory again (serial, model, power, MACs, slots)",
  options: OPTIONS,
  positionals: { name: argument('NAME') },
  run: ({ options, positionals }, io) => runAction(options, io, positionals.name, 'refresh'),
});

export const bmcPower = defineVerb({
  name: 'bootsmith bmc power',
  summary: 'Power a host on, off (ForceOff) or reset it (a forced restart, or On when it is off)',
  options: OPTIONS,
  positionals: { name: argument('NAME'), action: argument('on|off|reset') },
  async run({ options, positionals }, io) {
    const action = positionals.action;
    if (action !== 'on' && action !== 'off' && action !== 'reset')
      throw new CliError(action, 'the power action is on, off or reset');
    return runAction(options, io, positionals.name, `power-${action}`);
  },
});
