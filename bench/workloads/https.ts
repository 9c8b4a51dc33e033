// Workload 8, HTTPS: workloads 1 and 2 again with TLS on both sides. bootsmith serves HTTPS
// natively (HTTPS_CERT_FILE/HTTPS_KEY_FILE) and nginx has `ssl` on, with the same certificate and
// key (ECDSA P-256, signed by a CA made here), TLS 1.3 only and the same single cipher suite on
// both: nginx through `ssl_conf_command Ciphersuites`, bootsmith through node's
// --tls-cipher-list plus TLS_MIN_VERSION=TLSv1.3. `openssl s_client` checks what each really
// negotiates before anything is measured; nginx serves the pre-embedded copy of bootsmith's ISO,
// and each server's answer to a whole GET and to a Range is checked (status, size) first.
// Neither server can use sendfile here (no kTLS): both read and encrypt in user space.
import { mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { makeCa, makeLeaf } from '../../src/http/transport/tls/test-support/certificates.js';
import { download } from '../lib/clients.js';
import type { Context } from '../lib/context.js';
import { digHoles, warmPageCache } from '../lib/iso.js';
import { Nginx } from '../lib/nginx.js';
import { run } from '../lib/proc.js';
import type { Figure } from '../lib/report.js';
import { fullDownload, type Variant } from './downloads.js';
import { rangeStorm } from './range-storm.js';

/** The one TLS 1.3 suite both servers offer (AES-GCM: what hardware accelerates). */
export const PINNED_SUITE = 'TLS_AES_128_GCM_SHA256';

async function negotiated(url: string, caFile: string): Promise<{ protocol: string; cipher: string }> {
  const { port } = new URL(url);
  const out = await run('bash', [
    '-c',
    `openssl s_client -connect 127.0.0.1:${port} -servername localhost -CAfile "$0" -brief </dev/null 2>&1`,
    caFile,
  ]);
  const text = out.stdout;
  const protocol = /Protocol version: (\S+)/.exec(text)?.[1] ?? '?';
  const cipher = /Ciphersuite: (\S+)/.exec(text)?.[1] ?? '?';
  if (!/Verification: OK/.test(text))
    throw new Error(`${url}: the certificate did not verify against the bench CA:\n${text}`);
  return { protocol, cipher };
}

export async function https(ctx: Context): Promise<Figure[]> {
  const dir = path.join(ctx.runDir, 'tls');
  mkdirSync(dir, { recursive: true });
  const ca = makeCa(dir, 'bootsmith bench CA');
  const leaf = makeLeaf(dir, ca, 'server', ['127.0.0.1', 'localhost']);
  const curlArgs = ['--cacert', ca.certFile, '--tlsv1.3', '--tls13-ciphers', PINNED_SUITE];

  const bootsmith = await ctx.startBootsmith('bootsmith-https', {
    tls: { certFile: leaf.certFile, keyFile: leaf.keyFile },
    // wrk opens its 64 connections at once; until each handshake is done it counts as request-less,
    // and the default per-address cap (32) would close the oldest. nginx has no such cap.
    env: { TLS_MIN_VERSION: 'TLSv1.3', HTTP_MAX_IDLE_PER_ADDRESS: String(4 * ctx.options.stormConnections) },
    nodeArgs: [`--tls-cipher-list=${PINNED_SUITE}`],
  });
  const nginx = await Nginx.start({
    binary: ctx.tools.nginx,
    dir: path.join(ctx.runDir, 'nginx-https'),
    workers: ctx.options.nginxWorkers,
    tls: { certFile: leaf.certFile, keyFile: leaf.keyFile, cipherSuite: PINNED_SUITE },
  });
  try {
    const infraEnv = await bootsmith.createInfraEnv('bench-https');
    const bootsmithUrl = infraEnv.downloadUrl;
    if (!bootsmithUrl.startsWith(`${bootsmith.url}/`))
      throw new Error(`download_url ${bootsmithUrl} does not point at ${bootsmith.url}`);
    const copyPath = path.join(nginx.wwwDir, 'full.iso');
    const partial = `${copyPath}.partial`;
    await run(ctx.tools.curl, ['-sS', '-f', ...curlArgs, '-o', partial, bootsmithUrl]);
    if (statSync(partial).size !== ctx.base.size)
      throw new Error(`the copy has ${statSync(partial).size} bytes, the base ${ctx.base.size}`);
    await digHoles(partial);
    renameSync(partial, copyPath);
    await warmPageCache(ctx.base.path);
    await warmPageCache(copyPath);
    const pair = { bootsmith, nginx, bootsmithUrl, nginxUrl: `${nginx.url}/full.iso`, size: ctx.base.size };

    // What each really speaks and serves, before any figure is divided by it.
    const tls = {
      bootsmith: await negotiated(bootsmith.url, ca.certFile),
      nginx: await negotiated(nginx.url, ca.certFile),
    };
    ctx.log(`  negotiated: bootsmith ${JSON.stringify(tls.bootsmith)}, nginx ${JSON.stringify(tls.nginx)}`);
    for (const [name, t] of Object.entries(tls)) {
      if (t.protocol !== 'TLSv1.3' || t.cipher !== PINNED_SUITE)
        throw new Error(`${name} negotiated ${t.protocol} ${t.cipher}, not TLSv1.3 ${PINNED_SUITE}`);
    }
    for (const url of [pair.nginxUrl, pair.bootsmithUrl]) {
      const whole = await download(ctx.tools.curl, [url], { curlArgs });
      if (whole.statuses[0] !== '200' || whole.bytes !== pair.size)
        throw new Error(
          `warm-up download of ${url}: ${whole.statuses[0]}, ${whole.bytes} bytes (expected ${pair.size})`,
        );
      const range = await download(ctx.tools.curl, [url], { curlArgs: [...curlArgs, '-r', '1048576-2097151'] });
      if (range.statuses[0] !== '206' || range.bytes !== 1048576)
        throw new Error(`Range GET of ${url}: ${range.statuses[0]}, ${range.bytes} bytes (expected 206, 1048576)`);
    }

    const variant: Variant = { idPrefix: 'https-', workload: 8, titlePrefix: 'HTTPS ', curlArgs };
    const figures = [...(await fullDownload(ctx, pair, variant)), ...(await rangeStorm(ctx, pair, variant))];
    for (const f of figures) f.details = { ...f.details, tls: { ...tls, certificate: 'ECDSA P-256, CA-signed' } };
    return figures;
  } finally {
    await Promise.all([bootsmith.stop(), nginx.stop()]);
  }
}
