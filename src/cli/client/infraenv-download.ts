// `bootsmith infraenv download ID [--type full|minimal] -o FILE`: downloads the InfraEnv's
// discovery ISO into FILE.part (resuming a previous FILE.part with Range + If-Range on the ETag
// the service gave, kept in FILE.part.etag), checks the size against the service's, then renames
// it to FILE. Progress bar on a terminal, plain lines otherwise, none with -q.
// Does NOT: verify a checksum (the service publishes none per InfraEnv), or follow the image to
// another host than the service's own download URL names.
import { createWriteStream } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';

import { UsageError } from '../args.js';
import { argument, flagOption, valueOption } from '../options.js';
import { ProgressMeter } from '../output/progress-meter.js';
import { CliError, defineVerb } from '../verb.js';
import { ApiClient, CLIENT_OPTIONS } from './api-client.js';
import type { InfraEnvView } from './infraenv-read.js';

/** No byte for this long means the transfer is stuck; abort (a rerun resumes). */
export const DOWNLOAD_IDLE_TIMEOUT_MS = 60_000;

async function sizeOf(file: string): Promise<number> {
  return stat(file).then(
    (s) => s.size,
    () => 0,
  );
}

export const infraenvDownload = defineVerb({
  name: 'bootsmith infraenv download',
  summary: "Download an InfraEnv's discovery ISO (resumes an interrupted download)",
  options: {
    type: valueOption({ long: 'type', short: 't', value: 'full|minimal', help: 'image type [default: full]' }),
    output: valueOption({ long: 'output', short: 'o', value: 'FILE', help: 'where to write the ISO (required)' }),
    quiet: flagOption({ long: 'quiet', short: 'q', help: 'no progress output' }),
    ...CLIENT_OPTIONS,
  },
  positionals: { id: argument('ID') },
  async run({ options, positionals }, io) {
    const out = options.output;
    if (out === undefined)
      throw new UsageError(
        'bootsmith infraenv download: -o FILE is required',
        'usage: bootsmith infraenv download --help',
      );
    const type = options.type ?? 'full';
    if (type !== 'full' && type !== 'minimal')
      throw new UsageError(
        'bootsmith infraenv download: --type is full or minimal',
        'usage: bootsmith infraenv download --help',
      );
    const client = ApiClient.from(options, io);
    const id = positionals.id;
    const env = await client.call<InfraEnvView>('GET', `/infra-envs/${encodeURIComponent(id)}`);
    const origin = env.download_url ? new URL(env.download_url).origin : client.baseUrl;
    const query = new URLSearchParams({
      version: env.openshift_version ?? '',
      arch: env.cpu_architecture ?? 'x86_64',
      type: `${type}-iso`,
    });
    const url = `${origin}/images/${encodeURIComponent(id)}?${query.toString()}`;

    const part = `${out}.part`;
    const etagFile = `${part}.etag`;
    let have = await sizeOf(part);
    const etag = have > 0 ? await readFile(etagFile, 'utf8').catch(() => undefined) : undefined;
    if (etag === undefined) have = 0;
    const controller = new AbortController();
    let idle = setTimeout(() => controller.abort(), DOWNLOAD_IDLE_TIMEOUT_MS);
    try {
      const response = await fetch(url, {
        headers: client.headers(have > 0 && etag ? { Range: `bytes=${have}-`, 'If-Range': etag } : {}),
        signal: controller.signal,
      }).catch((err: Error) => {
        throw new CliError(url, `${(err as { cause?: Error }).cause?.message ?? err.message}`);
      });
      if (response.status !== 200 && response.status !== 206) {
        throw new CliError(url, `${response.status} ${(await response.text()).slice(0, 300)}`);
      }
      const resumed = response.status === 206;
      const length = Number(response.headers.get('content-length') ?? NaN);
      const total = resumed ? Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1] ?? NaN) : length;
      if (!Number.isSafeInteger(total)) throw new CliError(url, 'the service gave no size for the image');
      const start = resumed ? have : 0;
      const newEtag = response.headers.get('etag');
      if (newEtag) await writeFile(etagFile, newEtag);
      const sink = createWriteStream(part, { flags: resumed ? 'a' : 'w' });
      const meter = new ProgressMeter(out, total, { quiet: options.quiet, stderr: io.stderr });
      meter.add(start);
      let received = start;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        clearTimeout(idle);
        idle = setTimeout(() => controller.abort(), DOWNLOAD_IDLE_TIMEOUT_MS);
        if (!sink.write(chunk)) await once(sink, 'drain');
        received += chunk.length;
        meter.add(chunk.length);
      }
      sink.end();
      await once(sink, 'close');
      if (received !== total) throw new CliError(out, `received ${received} of ${total} bytes; run again to resume`);
      if ((await sizeOf(part)) !== total)
        throw new CliError(part, `has ${await sizeOf(part)} bytes, expected ${total}`);
      await rename(part, out);
      await rm(etagFile, { force: true });
      meter.finish();
      return 0;
    } catch (err) {
      if (controller.signal.aborted)
        throw new CliError(url, `no data for ${DOWNLOAD_IDLE_TIMEOUT_MS / 1000} s; run again to resume`);
      throw err;
    } finally {
      clearTimeout(idle);
    }
  },
});
