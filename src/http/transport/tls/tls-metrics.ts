// Prometheus instruments of native TLS: refused certificate reloads and the serving
// certificate's expiry.
//
// Does: register the instruments on the process's registry. Does NOT: reload or read certificates.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { CertificateStatus } from './certificate-reloader.js';

export class TlsMetrics {
  readonly reloadFailures: Counter<string>;

  constructor(registry: Registry, status: () => CertificateStatus | undefined) {
    this.reloadFailures = new Counter({
      name: 'bootsmith_tls_reload_failures_total',
      help: 'Certificate reloads refused (bad PEM, key not matching the certificate, unreadable file); the previous certificate stays',
      registers: [registry],
    });
    new Gauge({
      name: 'bootsmith_tls_certificate_not_after_seconds',
      help: 'notAfter of the certificate LISTEN_PORT serves, in Unix seconds',
      registers: [registry],
      collect() {
        const now = status();
        if (now) this.set(Math.floor(Date.parse(now.serving.notAfter) / 1000));
      },
    });
  }
}
