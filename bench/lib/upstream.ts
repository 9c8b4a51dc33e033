// A fake assisted-service v2 API in the bench process, for the image side in remote mode
// (--role image with ASSISTED_SERVICE_URL): it answers what RemoteIgnitionSource asks for
// any InfraEnv id (discovery.ign, the InfraEnv with kernel_arguments, minimal-initrd = 204),
// as test/support/fake-assisted-service.ts does, and counts every request by endpoint.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type UpstreamEndpoint = 'discovery-ignition' | 'infra-env' | 'minimal-initrd' | 'other';

/** A discovery Ignition about the size of assisted-service's (~30 KiB with the agent service, CA and pull secret). */
function discoveryIgnition(id: string): string {
  const filler = randomBytes(16 * 1024).toString('base64');
  return JSON.stringify({
    ignition: { version: '3.1.0' },
    passwd: {
      users: [
        {
          name: 'core',
          sshAuthorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bench'],
        },
      ],
    },
    storage: {
      files: [
        { path: '/usr/local/bin/agent-fix-bz1964591', mode: 493, contents: { source: `data:;base64,${filler}` } },
        { path: '/etc/assisted/infra-env-id', mode: 420, contents: { source: `data:,${id}` } },
      ],
    },
    systemd: {
      units: [{ name: 'agent.service', enabled: true, contents: '[Service]\nExecStart=/usr/local/bin/agent\n' }],
    },
  });
}

export class FakeAssistedService {
  readonly hits: Record<UpstreamEndpoint, number> = {
    'discovery-ignition': 0,
    'infra-env': 0,
    'minimal-initrd': 0,
    other: 0,
  };
  url = '';
  private readonly ignitions = new Map<string, string>();
  private readonly server = http.createServer((req, res) => this.answer(req, res));

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  total(): number {
    return Object.values(this.hits).reduce((a, b) => a + b, 0);
  }

  reset(): void {
    for (const k of Object.keys(this.hits) as UpstreamEndpoint[]) this.hits[k] = 0;
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/api\/assisted-install\/v2\/infra-envs\/([0-9a-f-]{36})(\/downloads\/(files|minimal-initrd))?$/.exec(
      url.pathname,
    );
    if (!m) {
      this.hits.other++;
      res.writeHead(404).end();
      return;
    }
    const id = m[1]!;
    if (m[3] === 'files' && url.searchParams.get('file_name') === 'discovery.ign') {
      this.hits['discovery-ignition']++;
      let ignition = this.ignitions.get(id);
      if (!ignition) {
        ignition = discoveryIgnition(id);
        this.ignitions.set(id, ignition);
      }
      res
        .writeHead(200, {
          'Content-Type': 'application/octet-stream',
          'Last-Modified': 'Tue, 03 Nov 2026 10:00:00 GMT',
        })
        .end(ignition);
    } else if (m[3] === 'minimal-initrd') {
      this.hits['minimal-initrd']++;
      res.writeHead(204).end();
    } else if (m[2] === undefined) {
      this.hits['infra-env']++;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          id,
          kernel_arguments: JSON.stringify([{ operation: 'append', value: 'console=ttyS0' }]),
          updated_at: '2026-11-03T10:00:00Z',
        }),
      );
    } else {
      this.hits.other++;
      res.writeHead(404).end();
    }
  }
}
