// The side-by-side pair of workloads 1-4: one bootsmith (all-in-one, embedded PostgreSQL,
// in-process Ignition) serving an InfraEnv's full.iso spliced from the base ISO (through the URL
// `--auth` names: /byid/, the download_url's short token, or an HS256 image token), and nginx
// serving the pre-embedded copy of exactly those bytes (downloaded once from bootsmith, the
// copy-then-embed reference), laid out sparse like the base, from the same disk.
import { renameSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Bootsmith, InfraEnv } from '../lib/bootsmith.js';
import { download } from '../lib/clients.js';
import type { Context } from '../lib/context.js';
import { digHoles, warmPageCache } from '../lib/iso.js';
import { Nginx } from '../lib/nginx.js';
import { run } from '../lib/proc.js';

export interface Pair {
  bootsmith: Bootsmith;
  nginx: Nginx;
  infraEnv: InfraEnv;
  /** bootsmith's URL of the InfraEnv's ISO (the path-style download_url). */
  bootsmithUrl: string;
  nginxUrl: string;
  /** The pre-embedded copy nginx serves. */
  copyPath: string;
  size: number;
  warmSeconds: { base: number; copy: number };
}

export async function startPair(ctx: Context): Promise<Pair> {
  const auth = ctx.options.auth;
  const bootsmith = await ctx.startBootsmith('bootsmith-main', {
    env: { AUTH_TYPE: auth === 'none' ? 'none' : 'local' },
  });
  const nginxDir = path.join(ctx.runDir, 'nginx');
  const nginx = await Nginx.start({
    binary: ctx.tools.nginx,
    dir: nginxDir,
    workers: ctx.options.nginxWorkers,
    sendfile: ctx.options.nginxSendfile,
  });
  const infraEnv = await bootsmith.createInfraEnv('bench-main');
  const bootsmithUrl = auth === 'local-jwt' ? await jwtIsoUrl(bootsmith, infraEnv) : infraEnv.downloadUrl;
  if (!bootsmithUrl.startsWith(bootsmith.url))
    throw new Error(`download_url ${bootsmithUrl} does not point at ${bootsmith.url}`);

  ctx.log('downloading the pre-embedded copy for nginx from bootsmith');
  const copyPath = path.join(nginx.wwwDir, 'full.iso');
  const partial = `${copyPath}.partial`;
  await run(ctx.tools.curl, ['-sS', '-f', '-o', partial, bootsmithUrl]);
  if (statSync(partial).size !== ctx.base.size)
    throw new Error(`the copy has ${statSync(partial).size} bytes, the base ${ctx.base.size}`);
  await digHoles(partial);
  renameSync(partial, copyPath);

  const warmSeconds = { base: await warmPageCache(ctx.base.path), copy: await warmPageCache(copyPath) };
  const pair: Pair = {
    bootsmith,
    nginx,
    infraEnv,
    bootsmithUrl,
    nginxUrl: `${nginx.url}/full.iso`,
    copyPath,
    size: ctx.base.size,
    warmSeconds,
  };
  // one whole download from each, so that JIT, sockets and page cache are warm for both
  for (const url of [pair.nginxUrl, pair.bootsmithUrl]) {
    const r = await download(ctx.tools.curl, [url]);
    if (r.statuses[0] !== '200' || r.bytes !== pair.size)
      throw new Error(`warm-up download of ${url}: ${r.statuses[0]}, ${r.bytes} bytes`);
  }
  return pair;
}

/** The InfraEnv's ISO on `/bytoken/<HS256 image token>/…` (the token of a presigned discovery.ign URL). */
async function jwtIsoUrl(bootsmith: Bootsmith, infraEnv: InfraEnv): Promise<string> {
  const presigned = await bootsmith.api<{ url: string }>(
    'GET',
    `/infra-envs/${infraEnv.id}/downloads/files-presigned?file_name=discovery.ign`,
  );
  const token = new URL(presigned.url).searchParams.get('image_token');
  if (!token || token.split('.').length !== 3) throw new Error('files-presigned gave no JWT image token');
  const url = new URL(infraEnv.downloadUrl);
  url.pathname = url.pathname.replace(/^\/bytoken\/[^/]+\//, `/bytoken/${token}/`);
  if (!url.pathname.includes(token)) throw new Error(`download_url ${infraEnv.downloadUrl} is not a /bytoken/ URL`);
  return url.toString();
}

export async function stopPair(pair: Pair | undefined): Promise<void> {
  if (!pair) return;
  await Promise.all([pair.bootsmith.stop(), pair.nginx.stop()]);
}
