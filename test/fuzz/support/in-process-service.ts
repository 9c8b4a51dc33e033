// The all-in-one service in the test process, on a fresh database of the run's embedded
// PostgreSQL, with the bundled demo image: for categories that attack its HTTP faces and need
// no child process. `close()` stops it and drops the database.
import { loadConfig } from '../../../src/config.js';
import { embeddedBackend } from '../../../src/platform/db/test-support/backends.js';
import { createLogger } from '../../../src/logger.js';
import { type RunningService, startService } from '../../../src/service.js';

export interface InProcessService {
  service: RunningService;
  dataDir: string;
  /** The service's own database (for categories that seed or inspect it directly). */
  databaseUrl: string;
  close(): Promise<void>;
}

export async function startInProcessService(env: Record<string, string> = {}): Promise<InProcessService> {
  const storage = await embeddedBackend().create();
  const config = loadConfig({
    LISTEN_PORT: '0',
    LISTEN_ADDRESS: '127.0.0.1',
    DATA_DIR: storage.dataDir,
    DATABASE_URL: storage.databaseUrl!,
    AUTH_TYPE: 'none', // the default is local: campaigns that attack credentials say so
    ...env,
  });
  const service = await startService(config, createLogger('silent'), { defaultMetrics: false });
  await service.imagesLoaded;
  return {
    service,
    dataDir: storage.dataDir,
    databaseUrl: storage.databaseUrl!,
    async close() {
      await service.close();
      await storage.cleanup();
    },
  };
}
