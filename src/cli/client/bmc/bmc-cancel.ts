// `bootsmith bmc cancel NAME [--job ID] [--timeout DURATION]`: cancels the BMC's jobs not yet
// ended (or the one --job names) through `POST …/jobs/{id}/actions/cancel`, then waits for each to
// end (a queued job ends at once; a running or following one at its next step boundary, after the
// eject its policy asks for) and prints one line per job: where it was cancelled and what became of
// the media. Cancelling a BMC with nothing to cancel, or a job that ended, says so and exits 0.
// Does NOT: decide what a cancel ejects (the service does, by the BMC's eject policy) or wait past
// --timeout (the job still ends on the service).
import { argument, valueOption } from '../../options.js';
import { defineVerb } from '../../verb.js';
import { ApiClient, CLIENT_OPTIONS } from '../api-client.js';
import { bmcPath, finished, jobLine, type JobView, TIMEOUT_OPTION, timeoutMs, waitForJob } from './bmc-client.js';

/** A step boundary is a Redfish call away (55 s at most), plus the eject: ten minutes is ample. */
const DEFAULT_CANCEL_WAIT_MS = 10 * 60_000;

export const bmcCancel = defineVerb({
  name: 'bootsmith bmc cancel',
  summary: "Cancel a BMC's jobs (a boot waiting for its host too); each ends at its next step boundary",
  options: {
    job: valueOption({ long: 'job', value: 'ID', help: 'only this job [default: every job of the BMC not yet ended]' }),
    timeout: TIMEOUT_OPTION,
    ...CLIENT_OPTIONS,
  },
  positionals: { name: argument('NAME') },
  async run({ options, positionals }, io) {
    const name = positionals.name;
    const client = ApiClient.from(options, io);
    const ids = options.job
      ? [options.job]
      : (await client.callExtension<JobView[]>('GET', bmcPath(name, '/jobs')))
          .filter((j) => !finished(j))
          .map((j) => j.id);
    if (ids.length === 0) {
      io.stdout.write(`${name}: no job to cancel\n`);
      return 0;
    }
    const limitMs = timeoutMs(options.timeout, DEFAULT_CANCEL_WAIT_MS);
    for (const id of ids) {
      const asked = await client.callExtension<JobView>(
        'POST',
        bmcPath(name, `/jobs/${encodeURIComponent(id)}/actions/cancel`),
      );
      if (finished(asked) && asked.state !== 'cancelled') {
        io.stdout.write(`${name}: ${asked.action} ${asked.id} had ended already: ${asked.state}\n`);
        continue;
      }
      const done = await waitForJob(client, name, asked, { timeoutMs: limitMs });
      io.stdout.write(`${jobLine(name, done)}\n`);
    }
    return 0;
  },
});
