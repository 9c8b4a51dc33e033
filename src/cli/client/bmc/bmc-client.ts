// What the `bootsmith bmc …` verbs share: reading a password or CA file (bounded, never printed),
// the `--timeout DURATION` option, the job an action queued, and waiting for it step by step.
// Does NOT: render tables (./bmc-boot.ts) or know any one verb.
import { readFile, stat } from 'node:fs/promises';
import type { BmcView, JobView } from '../../../bmc/bmc-view.js';
import { parseDuration } from '../../../duration.js';
import { withContext } from '../../../errors.js';
import { valueOption } from '../../options.js';
import { CliError } from '../../verb.js';
import { ApiCallError, type ApiClient } from '../api-client.js';

export type { BmcView, JobView };

/** A password file holds one line; 4 KiB is far beyond any BMC's limit (a few dozen characters). */
export const MAX_PASSWORD_FILE_BYTES = 4096;
/** A CA bundle for one BMC (the API takes at most 256 KiB). */
export const MAX_CA_FILE_BYTES = 256 * 1024;
/** How often a waiting verb asks for its jobs: each step takes seconds at the least. */
export const JOB_POLL_INTERVAL_MS = 2_000;
/** The longest a verb waits, whatever --timeout says: a forgotten terminal must not poll for ever. */
export const MAX_WAIT_MS = 24 * 3_600_000;

export const TIMEOUT_OPTION = valueOption({
  long: 'timeout',
  value: 'DURATION',
  help: 'how long to wait for the jobs (e.g. 90s, 15m, 1h); they go on on the service after it [default: 60m]',
});
export const DEFAULT_WAIT_MS = 60 * 60_000;

export function timeoutMs(value: string | undefined, fallbackMs = DEFAULT_WAIT_MS): number {
  if (value === undefined) return fallbackMs;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : parseDuration(value);
  if (ms === undefined || ms <= 0 || ms > MAX_WAIT_MS)
    throw new CliError(
      '--timeout',
      `must be a duration such as 90s, 15m or 1h (at most 24h), not ${JSON.stringify(value)}`,
    );
  return ms;
}

async function boundedFile(flag: string, file: string, maxBytes: number): Promise<string> {
  const as = (message: string, cause: unknown) => new CliError(file, message, { cause });
  const info = await withContext(`reading --${flag}`, () => stat(file), as);
  if (!info.isFile()) throw new CliError(file, `reading --${flag}: not a file`);
  if (info.size > maxBytes) throw new CliError(file, `reading --${flag}: more than ${maxBytes} bytes`);
  return withContext(`reading --${flag}`, () => readFile(file, 'utf8'), as);
}

/** The password a password file holds: its one line (one trailing newline removed); why not, otherwise. */
export function passwordOfFile(text: string): { password: string } | { problem: string } {
  const password = text.replace(/\r?\n$/, '');
  if (password === '') return { problem: 'the file is empty' };
  if (/[\r\n]/.test(password)) return { problem: 'the password must be one line' };
  return { password };
}

/** The password in a file: its first line (one trailing newline removed); never printed. */
export async function readPasswordFile(file: string): Promise<string> {
  const read = passwordOfFile(await boundedFile('password-file', file, MAX_PASSWORD_FILE_BYTES));
  if ('problem' in read) throw new CliError(file, `reading --password-file: ${read.problem}`);
  return read.password;
}

export async function readCaFile(file: string): Promise<string> {
  return boundedFile('ca-file', file, MAX_CA_FILE_BYTES);
}

export function bmcPath(name: string, tail = ''): string {
  return `/bmcs/${encodeURIComponent(name)}${tail}`;
}

/** How long a job waits for the inventory read a new BMC starts with (a dozen calls, retries bounded). */
const REFRESH_WAIT_MS = 5 * 60_000;

/**
 * Queues a job. A BMC just added is reading its inventory (the refresh the service queues at
 * once): the new job waits for that refresh to end, bounded, rather than failing with the 409 of
 * one job per BMC. Any other job in the way is the 409 as the service says it.
 */
export async function queueJob(client: ApiClient, name: string, body: Record<string, unknown>): Promise<JobView> {
  const deadline = Date.now() + REFRESH_WAIT_MS;
  for (;;) {
    try {
      return await client.callExtension<JobView>('POST', bmcPath(name, '/jobs'), body);
    } catch (err) {
      if (!(err instanceof ApiCallError) || err.status !== 409 || Date.now() > deadline) throw err;
      const bmc = await client.callExtension<BmcView>('GET', bmcPath(name));
      const active = bmc.last_job && !finished(bmc.last_job) ? bmc.last_job : undefined;
      if (active && active.action !== 'refresh') throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

export function getJob(client: ApiClient, name: string, jobId: string): Promise<JobView> {
  return client.callExtension<JobView>('GET', bmcPath(name, `/jobs/${encodeURIComponent(jobId)}`));
}

/** The step a job is at: the running one, else the first pending, else the last settled. */
export function currentStep(job: JobView): JobView['steps'][number] | undefined {
  return (
    job.steps.find((s) => s.status === 'running' || s.status === 'failed') ??
    job.steps.find((s) => s.status === 'pending') ??
    [...job.steps].reverse().find((s) => s.status === 'done' || s.status === 'skipped')
  );
}

export function finished(job: JobView): boolean {
  return job.state === 'succeeded' || job.state === 'failed' || job.state === 'cancelled';
}

/** Waits for one job to finish (bounded); each change of its current step is passed to `onStep`. */
export async function waitForJob(
  client: ApiClient,
  name: string,
  job: JobView,
  options: { timeoutMs: number; onStep?: (job: JobView) => void },
): Promise<JobView> {
  const deadline = Date.now() + options.timeoutMs;
  let last = '';
  for (let current = job; ;) {
    const step = currentStep(current);
    const key = `${current.state}|${step?.name}|${step?.status}`;
    if (key !== last) options.onStep?.(current);
    last = key;
    if (finished(current)) return current;
    if (Date.now() > deadline)
      throw new CliError(
        `BMC ${name}`,
        `job ${current.id} did not finish within ${Math.round(options.timeoutMs / 1000)} s (it goes on on the service; \`bootsmith bmc show ${name}\`)`,
      );
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(JOB_POLL_INTERVAL_MS, Math.max(0, deadline - Date.now()))),
    );
    current = await getJob(client, name, job.id);
  }
}

/** One line for a job's outcome: the state, and its last words (the error when it failed). */
export function jobLine(name: string, job: JobView): string {
  if (job.state === 'failed') return `${name}: ${job.action} failed: ${job.error ?? ''}`;
  if (job.state === 'cancelled') return `${name}: ${job.action} ${job.error ?? 'cancelled'}`;
  const step = currentStep(job);
  return `${name}: ${job.action} ${job.state}${step?.detail ? `: ${step.name}: ${step.detail}` : ''}`;
}
