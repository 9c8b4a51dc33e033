// Test support: a loopback forward proxy that records what passes through it. It answers
// absolute-form requests (`GET http://host:port/path`) by forwarding them to the origin, and
// CONNECT by splicing a TCP tunnel; it can demand `Proxy-Authorization: Basic` (407 otherwise).
// Host names are resolved through its own table only (e.g. `mirror.test` → 127.0.0.1), so a
// request that reaches such an origin proves it went through this proxy.
// Does NOT: cache, rewrite bodies, or reach anything beyond loopback. Used only by tests.
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** The request target as sent: absolute URL, or `host:port` for CONNECT. */
  target: string;
  headers: http.IncomingHttpHeaders;
  /** The answer the proxy itself gave (407) or 'forwarded'. */
  outcome: 'forwarded' | 407 | 502;
}

export class RecordingProxy {
  readonly requests: ProxiedRequest[] = [];
  /** When set, `Proxy-Authorization` must be exactly Basic base64(user:password). */
  credentials: { user: string; password: string } | undefined;
  private readonly server = http.createServer();
  private readonly sockets = new Set<Socket>();

  constructor(private readonly hosts: Record<string, string>) {
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    this.server.on('request', (req, res) => this.forward(req, res));
    this.server.on('connect', (req: http.IncomingMessage, socket: Socket, head: Buffer) =>
      this.tunnel(req, socket, head),
    );
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `http://[user:password@]127.0.0.1:port` */
  url(userinfo = ''): string {
    return `http://${userinfo ? `${userinfo}@` : ''}127.0.0.1:${this.port}`;
  }

  private authorized(req: http.IncomingMessage): boolean {
    if (!this.credentials) return true;
    const expected = `Basic ${Buffer.from(`${this.credentials.user}:${this.credentials.password}`).toString('base64')}`;
    return req.headers['proxy-authorization'] === expected;
  }

  private resolve(host: string): string | undefined {
    return this.hosts[host.toLowerCase()];
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const record: ProxiedRequest = {
      method: req.method ?? '',
      target: req.url ?? '',
      headers: req.headers,
      outcome: 502,
    };
    this.requests.push(record);
    if (!this.authorized(req)) {
      record.outcome = 407;
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-length': '0' }).end();
      return;
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const address = this.resolve(target.hostname);
    if (!address || target.protocol !== 'http:') {
      res.writeHead(502).end();
      return;
    }
    record.outcome = 'forwarded';
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request(
      { host: address, port: target.port || 80, path: target.pathname + target.search, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
        answer.on('aborted', () => res.destroy());
        answer.on('close', () => {
          if (!answer.complete) res.destroy();
        });
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  private tunnel(req: http.IncomingMessage, socket: Socket, head: Buffer): void {
    const record: ProxiedRequest = { method: 'CONNECT', target: req.url ?? '', headers: req.headers, outcome: 502 };
    this.requests.push(record);
    if (!this.authorized(req)) {
      record.outcome = 407;
      socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
      return;
    }
    const m = /^([^:]+):(\d+)$/.exec(req.url ?? '');
    const address = m ? this.resolve(m[1]!) : undefined;
    if (!m || !address) {
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    const upstream = net.connect(Number(m[2]), address, () => {
      record.outcome = 'forwarded';
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    socket.on('close', () => upstream.destroy());
  }
}
