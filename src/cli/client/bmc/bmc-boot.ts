// `bootsmith bmc boot NAME... | --all --infra-env ID [--wait registered|booted|none]
// [--timeout DURATION] [--boot-mode UEFI|Legacy] [--boot-method virtual-media|http] [--eject auto|always|never]`: one boot-discovery
// job per BMC (each inserts its own short-token ISO URL), then follows them all.
//
// --wait registered (default): until every job ended: the host registered and the media ejected
// (or kept, as the eject policy says); booted: until the job's reads covered the boot files (its
// `booted` step); none: only queue. On a terminal a live table (BMC, state, step, host, detail)
// redrawn every 2 s; otherwise one line per step as it ends, and one when a step starts waiting,
// saying for what and until when (the service's words), then the table once. A cancelled job
// (`bmc cancel`) did not reach the target. Each BMC
// succeeds or fails alone; the exit code is 0 only when every one reached the target, and the
// failures are listed on stderr with their reasons (they name the BMC and the step).
// --timeout bounds this command only: each job is bounded by the service (every Redfish call has
// its own clocks, each followed step its timeout), and goes on after the command stops waiting.
// Does NOT: print credentials or ISO URLs (the service never returns them).
import { flagOption, restArguments, valueOption } from '../../options.js';
import { CliError, defineVerb } from '../../verb.js';
import { ApiCallError, ApiClient, CLIENT_OPTIONS } from '../api-client.js';
import { renderTable } from '../table.js';
import {
  type BmcView,
  currentStep,
  finished,
  getJob,
  JOB_POLL_INTERVAL_MS,
  type JobView,
  queueJob,
  TIMEOUT_OPTION,
  timeoutMs,
} from './bmc-client.js';

const CLEAR_SCREEN = '\x1b[H\x1b[2J';
/** Characters of a step's detail in a table cell (the whole of it is in `bmc show`). */
const DETAIL_CHARS = 70;
const WAITS = ['registered', 'booted', 'none'] as const;
type Wait = (typeof WAITS)[number];

interface Row {
  name: string;
  job?: JobView;
  /** Queueing failed (409, 400, 404…): the service's reason. */
  error?: string;
  /** Steps already printed (plain output). */
  printed: Set<string>;
}

/** Whether the row reached the target, failed, or is still going. */
export function rowOutcome(row: Pick<Row, 'job' | 'error'>, wait: Wait): 'reached' | 'failed' | 'waiting' {
  if (row.error !== undefined || !row.job) return 'failed';
  const job = row.job;
  if (job.state === 'failed' || job.state === 'cancelled') return 'failed';
  if (wait === 'none') return 'reached';
  if (wait === 'booted') {
    const booted = job.steps.find((s) => s.name === 'booted');
    if (booted && (booted.status === 'done' || booted.status === 'skipped')) return 'reached';
  }
  return job.state === 'succeeded' ? 'reached' : 'waiting';
}

function table(rows: Row[], wait: Wait): string {
  return renderTable(
    ['BMC', 'STATE', 'STEP', 'HOST', 'DETAIL'],
    rows.map((r) => {
      const step = r.job ? currentStep(r.job) : undefined;
      const outcome = rowOutcome(r, wait);
      const state =
        outcome === 'waiting'
          ? (r.job?.state ?? '')
          : outcome === 'reached'
            ? wait
            : r.job?.state === 'cancelled'
              ? 'cancelled'
              : 'failed';
      const detail =
        r.error ??
        (r.job?.state === 'failed' || r.job?.state === 'cancelled' ? (r.job.error ?? '') : (step?.detail ?? ''));
      return [
        r.name,
        state,
        step ? `${step.name}${step.status === 'running' ? '…' : ''}` : '',
        r.job?.host_id ?? '',
        detail.length > DETAIL_CHARS ? `${detail.slice(0, DETAIL_CHARS - 1)}…` : detail,
      ];
    }),
  );
}

export const bmcBoot = defineVerb({
  name: 'bootsmith bmc boot',
  summary: 'Boot hosts from their InfraEnv ISO through their BMCs and follow them to registration',
  options: {
    all: flagOption({ long: 'all', help: 'every BMC of --infra-env' }),
    infraEnv: valueOption({ long: 'infra-env', value: 'ID', help: "the InfraEnv to boot [default: each BMC's own]" }),
    wait: valueOption({
      long: 'wait',
      value: 'registered|booted|none',
      help: 'what to wait for [default: registered]',
    }),
    timeout: TIMEOUT_OPTION,
    bootMode: valueOption({
      long: 'boot-mode',
      value: 'UEFI|Legacy',
      help: "the one-time boot's mode [default: the BMC's]",
    }),
    bootMethod: valueOption({
      long: 'boot-method',
      value: 'virtual-media|http',
      help: "virtual CD or UEFI HTTP Boot [default: the BMC's]",
    }),
    eject: valueOption({
      long: 'eject',
      value: 'auto|always|never',
      help: "eject once registered [default: the BMC's]",
    }),
    ...CLIENT_OPTIONS,
  },
  positionals: { names: restArguments('NAME') },
  async run({ options, positionals }, io) {
    const wait = (options.wait ?? 'registered') as Wait;
    if (!WAITS.includes(wait)) throw new CliError('--wait', 'is registered, booted or none');
    if (options.all && positionals.names.length > 0)
      throw new CliError('--all', 'give either --all or BMC names, not both');
    if (options.all && !options.infraEnv) throw new CliError('--all', 'needs --infra-env');
    if (!options.all && positionals.names.length === 0)
      throw new CliError('bmc boot', 'name the BMCs, or give --all --infra-env ID');
    const limitMs = timeoutMs(options.timeout);
    const client = ApiClient.from(options, io);
    const names = options.all
      ? (
          await client.callExtension<BmcView[]>('GET', `/bmcs?infra_env_id=${encodeURIComponent(options.infraEnv!)}`)
        ).map((b) => b.name)
      : positionals.names;
    if (names.length === 0)
      throw new CliError(`InfraEnv ${options.infraEnv}`, 'has no BMC (bootsmith bmc add … --infra-env ID)');

    const body = {
      action: 'boot-discovery',
      ...(options.infraEnv ? { infra_env_id: options.infraEnv } : {}),
      ...(options.bootMode ? { boot_mode: options.bootMode } : {}),
      ...(options.bootMethod ? { boot_method: options.bootMethod } : {}),
      ...(options.eject ? { eject: options.eject } : {}),
    };
    const rows: Row[] = [];
    for (const name of names) {
      const row: Row = { name, printed: new Set() };
      try {
        row.job = await queueJob(client, name, body);
      } catch (err) {
        if (!(err instanceof ApiCallError)) throw err;
        row.error = `${err.status} ${err.serviceReason}`;
      }
      rows.push(row);
    }

    const tty = io.stdout.isTTY === true;
    const deadline = Date.now() + limitMs;
    const print = (): void => {
      if (tty) {
        const stamp = `bmc boot at ${new Date().toISOString().slice(11, 19)}: waiting for ${wait}\n`;
        io.stdout.write(`${CLEAR_SCREEN}${stamp}${table(rows, wait)}`);
        return;
      }
      for (const r of rows) {
        if (r.error !== undefined && !r.printed.has('queue')) {
          r.printed.add('queue');
          io.stdout.write(`${r.name}: not queued: ${r.error}\n`);
        }
        for (const s of r.job?.steps ?? []) {
          if (s.status === 'running' && s.detail !== '' && !r.printed.has(`${s.name} ${s.detail}`)) {
            // a step that waits says for what (a followed step: until when)
            r.printed.add(`${s.name} ${s.detail}`);
            io.stdout.write(`${r.name}: ${s.name} waiting: ${s.detail}\n`);
          }
          if (s.status === 'pending' || s.status === 'running' || r.printed.has(s.name)) continue;
          r.printed.add(s.name);
          io.stdout.write(`${r.name}: ${s.name} ${s.status}: ${s.detail}\n`);
        }
      }
    };
    print();
    while (wait !== 'none' && rows.some((r) => rowOutcome(r, wait) === 'waiting') && Date.now() < deadline) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(JOB_POLL_INTERVAL_MS, Math.max(0, deadline - Date.now()))),
      );
      for (const r of rows) {
        if (!r.job || finished(r.job) || rowOutcome(r, wait) !== 'waiting') continue;
        try {
          r.job = await getJob(client, r.name, r.job.id);
        } catch (err) {
          // the service is briefly unreachable: asked again next round
          if (!(err instanceof CliError)) throw err;
        }
      }
      print();
    }
    if (!tty) io.stdout.write(table(rows, wait));

    const failed = rows
      .map((r) => {
        const outcome = rowOutcome(r, wait);
        if (outcome === 'reached') return undefined;
        if (outcome === 'waiting') {
          const step = r.job ? currentStep(r.job) : undefined;
          return `${r.name}: still at ${step?.name ?? 'queued'} after ${Math.round(limitMs / 1000)} s (the job goes on on the service)`;
        }
        return `${r.name}: ${r.error ?? r.job?.error ?? 'failed'}`;
      })
      .filter((line): line is string => line !== undefined);
    if (failed.length === 0) return 0;
    io.stderr.write(
      `bootsmith: ${failed.length} of ${rows.length} BMC(s) did not reach ${wait === 'none' ? 'the queue' : wait}:\n${failed.map((l) => `  ${l}\n`).join('')}`,
    );
    return 1;
  },
});
