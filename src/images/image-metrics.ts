// The image store's Prometheus instruments, registered on the process's Prometheus
// registry (Metrics.registry) by the image store itself:
//
//   bootsmith_image_download_bytes_total{image}      bytes received from image sources
//   bootsmith_image_load_failures_total{image,retry} failed loads, by retry class
//   bootsmith_images{state}                          configured images by state (on scrape)
//   bootsmith_image_integrity_mismatches_total{image}  cached files that failed their integrity check
//
// `image` is `<openshift_version>/<cpu_architecture>`, bounded by the configuration.
import { Counter, Gauge, type Registry } from 'prom-client';
import { IMAGE_STATES, type ImageState } from './catalog/image-status.js';
import type { RetryClass } from './load-failure/load-error.js';

export interface ImageMetrics {
  downloaded(image: string, bytes: number): void;
  failed(image: string, retry: RetryClass): void;
  integrityMismatch(image: string): void;
}

export function registerImageMetrics(registry: Registry, states: () => readonly ImageState[]): ImageMetrics {
  const downloadedBytes = new Counter({
    name: 'bootsmith_image_download_bytes_total',
    help: 'Bytes received from base image sources, by image',
    labelNames: ['image'] as const,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'bootsmith_image_load_failures_total',
    help: 'Failed base image loads, by image and retry class (fast, slow, never, on-demand)',
    labelNames: ['image', 'retry'] as const,
    registers: [registry],
  });
  const mismatches = new Counter({
    name: 'bootsmith_image_integrity_mismatches_total',
    help: 'Cached base image files whose content no longer matched their recorded sha256, by image',
    labelNames: ['image'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'bootsmith_images',
    help: 'Configured base images by state',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const counts = new Map<ImageState, number>(IMAGE_STATES.map((s) => [s, 0]));
      for (const state of states()) counts.set(state, (counts.get(state) ?? 0) + 1);
      for (const [state, count] of counts) this.set({ state }, count);
    },
  });
  return {
    downloaded: (image, bytes) => downloadedBytes.inc({ image }, bytes),
    failed: (image, retry) => failures.inc({ image, retry }),
    integrityMismatch: (image) => mismatches.inc({ image }),
  };
}
