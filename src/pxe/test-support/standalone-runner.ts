// The PXE wing's network half as a process of its own, for tests and benches that run it inside a
// network namespace (`ip netns exec NS node standalone-runner.js CONFIG.json`): it reads the
// settings as environment variables from the config, answers with a StaticFrontDoor, logs JSON
// lines to stderr, prints one `{"ready": status}` line on stdout once listening (or
// `{"failed": message}` and exits 1), then answers stdin lines: `status` → `{"status": …}`,
// `metrics` → `{"metrics": "<Prometheus text>"}`. It stops on SIGTERM or when stdin closes.
// Built and started by runner-process.ts. Does NOT: serve HTTP.
import { readFileSync } from 'node:fs';
import readline from 'node:readline';
import { Registry } from 'prom-client';
import { createPxeWing, type PxeListen } from '../pxe-wing.js';
import { parsePxeSettings } from '../pxe-settings.js';
import { StaticFrontDoor, type StaticFrontDoorConfig } from './static-front-door.js';

export interface RunnerConfig {
  /** PXE_* variables, as the service would read them. */
  env: Record<string, string>;
  listen?: Partial<PxeListen>;
  frontDoor: StaticFrontDoorConfig;
}

function line(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(): Promise<void> {
  const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as RunnerConfig;
  const registry = new Registry();
  const log = {
    info: (fields: object, message: string) =>
      process.stderr.write(`${JSON.stringify({ level: 'info', ...fields, msg: message })}\n`),
    warn: (fields: object, message: string) =>
      process.stderr.write(`${JSON.stringify({ level: 'warn', ...fields, msg: message })}\n`),
  };
  const wing = createPxeWing({
    settings: parsePxeSettings(config.env),
    frontDoor: new StaticFrontDoor(config.frontDoor),
    registry,
    log,
    listen: config.listen,
  });
  try {
    await wing.start();
  } catch (err) {
    line({ failed: (err as Error).message });
    process.exit(1);
  }
  line({ ready: wing.status() });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await wing.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  const input = readline.createInterface({ input: process.stdin });
  input.on('line', (command) => {
    if (command === 'status') line({ status: wing.status() });
    else if (command === 'metrics') void registry.metrics().then((text) => line({ metrics: text }));
  });
  input.on('close', () => void stop());
}

void main();
