// Prometheus metrics of one bootsmith process, on a registry of its own (so tests can
// build several apps side by side). Exposed by the /metrics route.
//
// It only defines and holds the instruments; callers record into them.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();

  readonly requests = new Counter({
    name: 'bootsmith_http_requests_total',
    help: 'HTTP requests answered, by route and status code',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly bytesServed = new Counter({
    name: 'bootsmith_bytes_served_total',
    help: 'Body bytes written to clients, by artifact',
    labelNames: ['artifact'] as const,
    registers: [this.registry],
  });

  readonly streamsInFlight = new Gauge({
    name: 'bootsmith_streams_in_flight',
    help: 'Artifact bodies being streamed right now, by artifact',
    labelNames: ['artifact'] as const,
    registers: [this.registry],
  });

  readonly upstreamDuration = new Histogram({
    name: 'bootsmith_upstream_request_duration_seconds',
    help: 'Latency of calls to the remote assisted-service API, by endpoint and outcome',
    labelNames: ['endpoint', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly ignitionLookups = new Counter({
    name: 'bootsmith_ignition_lookups_total',
    help: 'Discovery customization lookups by the image side, by result (hit: served from cache; miss: fetched)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly artifactRequestsInFlight = new Gauge({
    name: 'bootsmith_artifact_requests_in_flight',
    help: 'Artifact requests admitted by MAX_CONCURRENT_REQUESTS and not yet finished',
    registers: [this.registry],
  });

  readonly artifactRequestsLimit = new Gauge({
    name: 'bootsmith_artifact_requests_limit',
    help: 'MAX_CONCURRENT_REQUESTS: artifact requests allowed in flight',
    registers: [this.registry],
  });

  readonly artifactRequestsRefused = new Counter({
    name: 'bootsmith_artifact_requests_refused_total',
    help: 'Artifact requests refused with 503, by reason: global_cap (MAX_CONCURRENT_REQUESTS in flight, none to preempt) or address_share (the client address had MAX_CONCURRENT_REQUESTS_PER_ADDRESS in flight)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly artifactRequestsPerAddressLimit = new Gauge({
    name: 'bootsmith_artifact_requests_per_address_limit',
    help: 'MAX_CONCURRENT_REQUESTS_PER_ADDRESS: artifact requests one client address (IPv6: one /64) may have in flight',
    registers: [this.registry],
  });

  readonly artifactRequestsCut = new Counter({
    name: 'bootsmith_artifact_requests_cut_total',
    help: 'Artifact streams closed to free their slot, by reason: min_progress (fewer than ARTIFACT_MIN_PROGRESS_BYTES in ARTIFACT_MIN_PROGRESS_TIME) or preempted (behind for 5 s while another request needed the slot)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** Set by the request cap (src/http/face/request-cap.ts): 1 while its slots are saturated. */
  artifactSlotsSaturation: (() => boolean) | undefined;

  readonly artifactRequestsSaturated = new Gauge({
    name: 'bootsmith_artifact_requests_saturated',
    help: '1 while every artifact slot is taken or a request was refused at MAX_CONCURRENT_REQUESTS in the last minute, else 0',
    registers: [this.registry],
    collect: () => {
      this.artifactRequestsSaturated.set(this.artifactSlotsSaturation?.() ? 1 : 0);
    },
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'bootsmith_' });
  }
}
