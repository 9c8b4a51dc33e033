// Load generators, the same for bootsmith and nginx: curl for whole downloads (writes to
// /dev/null, so it costs little and never bottlenecks on disk), wrk with Lua scripts for
// request storms, and a one-request Node client for time to first byte.
//
// curl and wrk run under `bash -c '...; times'`, which reports the CPU time the clients
// themselves used: the client cost, which is the same for both servers.
import http from 'node:http';
import path from 'node:path';
import { parseBashTimes, start, type Started, stop } from './proc.js';

export interface DownloadResult {
  wallSeconds: number;
  bytes: number;
  clients: number;
  /** HTTP status per client ('000' when curl gave up, e.g. on --max-time). */
  statuses: string[];
  clientCpuSeconds: number | undefined;
  firstByteSeconds: number[];
  /** Each client's own transfer time (curl's time_total). */
  totalSeconds: number[];
  /** Bytes each client received. */
  sizes: number[];
}

/** Starts one curl per URL at once; resolves when all are done (or hit `maxSeconds`). */
export function startDownloads(
  curl: string,
  urls: readonly string[],
  options: { maxSeconds?: number; curlArgs?: readonly string[] } = {},
): {
  process: Started;
  result: Promise<DownloadResult>;
} {
  const maxTime = [
    ...(options.maxSeconds ? ['--max-time', String(options.maxSeconds)] : []),
    ...(options.curlArgs ?? []).map((a) => `'${a.replaceAll("'", `'\\''`)}'`),
  ];
  const script = [
    'for u in "$@"; do',
    `  "${curl}" -sS -o /dev/null ${maxTime.join(' ')} -w 'CURL %{http_code} %{size_download} %{time_starttransfer} %{time_total}\\n' "$u" 2>/dev/null &`,
    'done',
    'wait',
    'times',
  ].join('\n');
  const t0 = performance.now();
  const proc = start('curl clients', 'bash', ['-c', script, 'bash', ...urls], { capture: true, group: true });
  const result = proc.exited.then(() => {
    const wallSeconds = (performance.now() - t0) / 1000;
    const lines = proc
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('CURL '));
    let bytes = 0;
    const statuses: string[] = [];
    const firstByteSeconds: number[] = [];
    const totalSeconds: number[] = [];
    const sizes: number[] = [];
    for (const line of lines) {
      const [, code, size, ttfb, total] = line.split(' ');
      statuses.push(code ?? '000');
      bytes += Number(size ?? 0);
      sizes.push(Number(size ?? 0));
      firstByteSeconds.push(Number(ttfb ?? NaN));
      totalSeconds.push(Number(total ?? NaN));
    }
    return {
      wallSeconds,
      bytes,
      clients: urls.length,
      statuses,
      clientCpuSeconds: parseBashTimes(proc.stdout()),
      firstByteSeconds,
      totalSeconds,
      sizes,
    };
  });
  return { process: proc, result };
}

export async function download(
  curl: string,
  urls: readonly string[],
  options: { maxSeconds?: number; curlArgs?: readonly string[] } = {},
): Promise<DownloadResult> {
  return startDownloads(curl, urls, options).result;
}

export interface WrkResult {
  requests: number;
  durationSeconds: number;
  requestsPerSecond: number;
  bytes: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  clientCpuSeconds: number | undefined;
}

interface WrkJson {
  requests: number;
  duration_us: number;
  bytes: number;
  errors: WrkResult['errors'];
  latency_us: { p50: number; p90: number; p99: number; max: number; mean: number };
}

export interface WrkOptions {
  wrk: string;
  url: string;
  /** A script in bench/lua. */
  script: string;
  scriptArgs: readonly string[];
  threads: number;
  connections: number;
  seconds: number;
}

export async function runWrk(o: WrkOptions, luaDir: string): Promise<WrkResult> {
  const args = [
    '-t',
    String(o.threads),
    '-c',
    String(o.connections),
    '-d',
    `${o.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    path.join(luaDir, o.script),
    o.url,
    '--',
    ...o.scriptArgs,
  ];
  const proc = start('wrk', 'bash', ['-c', `"${o.wrk}" "$@"; times`, 'bash', ...args], { capture: true, group: true });
  const code = await proc.exited;
  const line = proc
    .stdout()
    .split('\n')
    .find((l) => l.startsWith('WRKJSON '));
  if (!line)
    throw new Error(`wrk gave no result (exit ${code}): ${proc.stdout().slice(-500)} ${proc.stderr().slice(-500)}`);
  const j = JSON.parse(line.slice('WRKJSON '.length)) as WrkJson;
  const durationSeconds = j.duration_us / 1e6;
  const ms = (us: number) => us / 1000;
  return {
    requests: j.requests,
    durationSeconds,
    requestsPerSecond: j.requests / durationSeconds,
    bytes: j.bytes,
    errors: j.errors,
    latencyMs: {
      p50: ms(j.latency_us.p50),
      p90: ms(j.latency_us.p90),
      p99: ms(j.latency_us.p99),
      max: ms(j.latency_us.max),
      mean: ms(j.latency_us.mean),
    },
    clientCpuSeconds: parseBashTimes(proc.stdout()),
  };
}

/**
 * Milliseconds from sending a GET on a new connection to the first body byte (connection
 * set-up included, a few tens of microseconds on loopback); the rest of the body is not read.
 */
export function timeToFirstByte(url: string): Promise<{ ms: number; status: number }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.get(url, { agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      res.on('error', () => undefined); // the response is torn down on purpose below
      if (status !== 200) {
        res.resume();
        reject(new Error(`GET ${url}: ${status}`));
        return;
      }
      res.once('data', () => {
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        req.destroy();
        resolve({ ms, status });
      });
    });
    req.on('error', (err) => reject(err)); // after resolve() this is a no-op
  });
}

export async function stopClients(p: Started): Promise<void> {
  await stop(p, 'SIGTERM', 3000);
}
