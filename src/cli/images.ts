// `bootsmith images pull` and `bootsmith images list`: the image store from the command line.
//
//   pull [--json]  fetch and verify every configured image (OS_IMAGES / OS_IMAGES_FILE) into
//                  DATA_DIR/images, with progress bars on a TTY and plain lines otherwise, then
//                  exit: 0 when every image is ready, 1 otherwise (--json: the final states)
//   list [--json]  what DATA_DIR/images holds for each configured image, without hashing,
//                  parsing or downloading anything, and the files no configured image owns
//
// Configuration comes from the environment, as for `bootsmith serve`.
import { Readable } from 'node:stream';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../config.js';
import { describeError } from '../errors.js';
import { type Inventory, inspectCache } from '../images/cache/cache-inventory.js';
import { ProgressReport, type ReportOutput, plainLine } from './progress-report.js';
import { formatBytes } from '../images/progress.js';
import type { ImageStore } from '../images/catalog/image-store.js';
import { ManagedImageStore } from '../images/managed-image-store.js';
import { ImageSettingsError, imageStoreSettingsFromEnvironment } from '../images/store-settings.js';
import { flag } from './args.js';
import { type CliIo as VerbIo, runGroup, type Verb, type VerbGroup } from './verb.js';

export const IMAGES_USAGE = `  bootsmith images pull [--json]
  bootsmith images list [--json]`;

const JSON_OPTION = { long: 'json', help: 'print the result as JSON' };

export const imagesPull: Verb = {
  spec: {
    name: 'bootsmith images pull',
    summary: 'Download and verify every configured base image into DATA_DIR/images (exit 0 when all are ready)',
    options: [JSON_OPTION],
    positionals: [],
  },
  run: (args, io) => images('pull', flag(args, 'json'), io),
};

export const imagesList: Verb = {
  spec: {
    name: 'bootsmith images list',
    summary: 'Show what DATA_DIR/images holds for each configured image (reads nothing from the network)',
    options: [JSON_OPTION],
    positionals: [],
  },
  run: (args, io) => images('list', flag(args, 'json'), io),
};

export const IMAGES_GROUP: VerbGroup = { name: 'bootsmith images', verbs: { pull: imagesPull, list: imagesList } };

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: ReportOutput;
  stderr: { write(text: string): unknown };
}

/** `bootsmith images <args…>` with the given I/O (tests call it in-process). */
export function imagesCommand(args: readonly string[], io: CliIo): Promise<number> {
  return runGroup(IMAGES_GROUP, args, {
    env: io.env,
    stdin: Readable.from([]),
    stdout: io.stdout as VerbIo['stdout'],
    stderr: io.stderr as VerbIo['stderr'],
  });
}

async function images(sub: 'pull' | 'list', json: boolean, io: CliIo): Promise<number> {
  let config;
  let settings;
  try {
    config = loadConfig(io.env, []);
    settings = imageStoreSettingsFromEnvironment(io.env);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof ImageSettingsError) {
      io.stderr.write(`bootsmith: configuration error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  for (const problem of config.osImages.problems) io.stderr.write(`bootsmith: skipped: ${problem}\n`);
  if (config.usingDemoImage) io.stderr.write('bootsmith: OS_IMAGES is not set: using the bundled demo fixture image\n');

  if (sub === 'list') {
    const inventory = await inspectCache(config.osImages.entries, config.dataDir);
    io.stdout.write(json ? `${JSON.stringify(inventory, null, 2)}\n` : renderInventory(inventory));
    return 0;
  }

  const logger = pino({ level: io.env.LOG_LEVEL || 'silent', base: { service: 'bootsmith' } }, pino.destination(2));
  const store = new ManagedImageStore(config.osImages.entries, config.osImages.problems, logger, {
    dataDir: config.dataDir,
    settings,
  });
  const view: ImageStore = store.catalog;
  const report = new ProgressReport(json ? { write: () => undefined } : io.stdout);
  const unsubscribe = view.subscribe(() => report.update(view.health().images));
  try {
    await store.loadAll();
  } catch (err) {
    io.stderr.write(`bootsmith: ${describeError(err)}\n`);
  } finally {
    unsubscribe();
    await store.close();
  }
  const states = view.health().images;
  if (json) {
    io.stdout.write(`${JSON.stringify(states, null, 2)}\n`);
  } else {
    report.update(states, true);
    if (io.stdout.isTTY)
      for (const h of states.filter((i) => i.state !== 'ready')) io.stdout.write(`${plainLine(h)}\n`);
    const ready = states.filter((i) => i.state === 'ready').length;
    io.stdout.write(`${ready} of ${states.length} images ready in ${config.dataDir}\n`);
  }
  return states.every((i) => i.state === 'ready') ? 0 : 1;
}

function renderInventory(inventory: Inventory): string {
  const lines = [`cache: ${inventory.dir}`];
  for (const item of inventory.items) {
    const facts: string[] = [];
    if (item.size !== undefined) facts.push(formatBytes(item.size));
    if (item.partBytes !== undefined)
      facts.push(
        `${formatBytes(item.partBytes)}${item.partTotal !== undefined ? ` of ${formatBytes(item.partTotal)}` : ''} downloaded`,
      );
    if (item.sha256) facts.push(`sha256:${item.sha256.slice(0, 12)}…`);
    if (item.minimalIso === 'ready') facts.push('minimal ISO ready');
    if (item.lastServedAt) facts.push(`last served ${item.lastServedAt}`);
    lines.push(
      `${item.openshiftVersion} ${item.cpuArchitecture}  ${item.state}${facts.length ? `  ${facts.join('  ')}` : ''}  ${item.source}`,
    );
  }
  for (const file of inventory.unreferenced) lines.push(`unreferenced  ${file.file}  ${formatBytes(file.bytes)}`);
  return `${lines.join('\n')}\n`;
}
