// Prometheus instruments of the listener limits (src/http/transport/listener-limits.ts,
// src/http/transport/connection-guard.ts): connections open, closed by a limit, refused, and the cap.
//
// Registered on the process's metrics registry; records nothing itself.
import { Counter, Gauge, type Registry } from 'prom-client';

export type CloseReason =
  | 'header_timeout'
  | 'body_timeout'
  | 'idle_timeout'
  | 'send_timeout'
  | 'idle_per_address'
  | 'connection_cap'
  | 'handshake_timeout'
  | 'tls_handshake_failed';

export class ListenerMetrics {
  readonly closed: Counter<'reason'>;
  readonly refused: Counter<string>;
  readonly open: Gauge<'state'>;
  readonly limit: Gauge<string>;

  private readonly sources: (() => { idle: number; busy: number })[] = [];

  constructor(registry: Registry, counts: () => { idle: number; busy: number }) {
    const sources = this.sources;
    sources.push(counts);
    this.closed = new Counter({
      name: 'bootsmith_http_connections_closed_total',
      help: 'Connections the service closed because of a limit, by reason (timeouts, idle cap per client address, global cap)',
      labelNames: ['reason'] as const,
      registers: [registry],
    });
    this.refused = new Counter({
      name: 'bootsmith_http_connections_refused_total',
      help: 'New connections closed at once because the global connection cap was reached with no idle connection to close',
      registers: [registry],
    });
    this.open = new Gauge({
      name: 'bootsmith_http_connections',
      help: 'Open client connections, by state (busy: a request in flight)',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        let idle = 0;
        let busy = 0;
        for (const source of sources) {
          const now = source();
          idle += now.idle;
          busy += now.busy;
        }
        this.set({ state: 'idle' }, idle);
        this.set({ state: 'busy' }, busy);
      },
    });
    this.limit = new Gauge({
      name: 'bootsmith_http_connection_limit',
      help: 'Global cap on open client connections (from the open-file limit less a reserve, or HTTP_MAX_CONNECTIONS)',
      registers: [registry],
    });
  }

  /** Counts another listener's connections in the same gauge (HTTPS and plain-HTTP listeners of one process). */
  alsoCount(counts: () => { idle: number; busy: number }): void {
    this.sources.push(counts);
  }
}
