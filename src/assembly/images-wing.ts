// The images wing: the image store of every role (src/images/managed-image-store.ts), which
// loads the configured base images in the background (reported per image by /health) and is the
// catalog the core lists and the image face serves from. With the embedded PostgreSQL its writes
// (downloads, extractions, minimal ISO builds) wait until the database started: the database
// takes DATA_DIR's disk first (initdb; as root a copy of its binaries), so on a nearly full disk an
// image fails alone, with its reason, instead of racing the database's start and stopping the
// process. Images already cached are checked and served meanwhile.
//
// Needs: OS_IMAGES, DATA_DIR and the image store's settings; the platform's metrics and its
// database-started gate. Offers: the imageStore and imagesLoaded ports, the `images` and
// `problems` of /health (503 until one image is ready); its stop stops downloads (their .part
// files are kept for resume) and waits for the loading to end.
// Does NOT: serve bytes (./image-face-wing.ts) or know a role. Next: ./core-wing.ts.
import type { HealthPart } from '../http/face/routes/health.js';
import { type ImageStore, ManagedImageStore } from '../images/managed-image-store.js';
import type { Platform, Wing, WingModule } from './wing.js';
import type { WingPorts } from './ports.js';

export const imagesWing: WingModule = {
  name: 'images',
  needs: {},
  offers: { ports: ['imageStore', 'imagesLoaded'] },
  prepare: () => Promise.resolve(assemble),
};

async function assemble({ config, logger, metrics, databaseStarted }: Platform, ports: WingPorts): Promise<Wing> {
  if (config.usingDemoImage)
    logger.warn('OS_IMAGES is not set: serving the bundled demo fixture image (not bootable on real hardware)');
  const imageStore = new ManagedImageStore(config.osImages.entries, config.osImages.problems, logger, {
    dataDir: config.dataDir,
    settings: config.imageStore,
    metricsRegistry: metrics.registry,
    writesAfter: databaseStarted,
  });
  const imagesLoaded = imageStore.loadAll();
  ports.offer({ imageStore, imagesLoaded });
  return {
    health: [imagesHealth(imageStore.catalog)],
    async stop() {
      await imageStore.close();
      await imagesLoaded;
    },
  };
}

/** The images' part of /health: each image's state and reason, the problems; not ready until one image is. */
export function imagesHealth(catalog: ImageStore): HealthPart {
  return () => {
    const health = catalog.health();
    return {
      fields: { images: health.images, problems: health.problems },
      unready: health.ready ? undefined : 'no base image is ready',
    };
  };
}
