// A fake assisted-service v2 API on loopback for tests of the remote Ignition source and
// the image side: serves discovery.ign, the InfraEnv (kernel_arguments) and minimal-initrd
// for one InfraEnv id, records every request, and lets a test change its answers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX } from '../../src/url-grammar.js';

export interface Seen {
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

/** A fake assisted-service on loopback whose answers each test can change. */
export class FakeAssistedService {
  constructor(
    readonly infraEnvId: string,
    public ignition: string,
  ) {}

  seen: Seen[] = [];
  status = 200;
  kernelArguments: string | null = JSON.stringify([{ operation: 'append', value: 'console=ttyS0 rd.debug' }]);
  minimalInitrd: Buffer | null = null;
  delayMs = 0;
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    this.seen.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    setTimeout(() => this.answer(url, res), this.delayMs);
  });
  url = '';

  private answer(url: URL, res: http.ServerResponse): void {
    if (this.status !== 200) {
      res
        .writeHead(this.status, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ code: String(this.status), reason: 'nope' }));
      return;
    }
    const base = `${API_PREFIX}/infra-envs/${this.infraEnvId}`;
    if (url.pathname === `${base}/downloads/files` && url.searchParams.get('file_name') === 'discovery.ign') {
      res.writeHead(200, { 'Last-Modified': 'Tue, 03 Nov 2026 10:00:00 GMT' }).end(this.ignition);
    } else if (url.pathname === base) {
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ id: this.infraEnvId, kernel_arguments: this.kernelArguments }));
    } else if (url.pathname === `${base}/downloads/minimal-initrd`) {
      if (this.minimalInitrd) res.writeHead(200).end(this.minimalInitrd);
      else res.writeHead(204).end();
    } else {
      res.writeHead(404).end();
    }
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
