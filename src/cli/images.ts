// `bootsmith images pull` and `bootsmith images list`: the image store from the command line.
//
//   pull [--json]  fetch and verify every configured image (OS_IMAGES / OS_IMAGES_FILE) into
//                  DATA_DIR/images, with progress bars on a TTY and plain lines otherwise, then
//                  exit: 0 when every image is ready, 1 otherwise (--json: the final states)
//   list [--json]  what DATA_DIR/images holds for each configured image, without hashing,
//                  parsing or downloading anything, and the files no configured image owns
//
// Configuration comes from the environment, as for `bootsmith serve` (the same Config: image
// store settings, DATA_DIR, OS_IMAGES).
import { describeError } from '../errors.js';
import { type Inventory, inspectCache } from '../images/cache/cache-inventory.js';
import { ProgressReport, plainLine } from './progress-report.js';
import { formatBytes } from '../images/progress.js';
import type { ImageStore } from '../images/catalog/image-store.js';
import { ManagedImageStore } from '../images/managed-image-store.js';
import { commandConfig, commandLogger } from './command-config.js';
import { flagOption } from './options.js';
import { type CliIo, defineVerb, runGroup, type VerbGroup, withoutStdin } from './verb.js';

export const IMAGES_USAGE = `  bootsmith images pull [--json]
  bootsmith images list [--json]`;

const IMAGES_OPTIONS = { json: flagOption({ long: 'json', help: 'print the result as JSON' }) };

export const imagesPull = defineVerb({
  name: 'bootsmith images pull',
  summary: 'Download and verify every configured base image into DATA_DIR/images (exit 0 when all are ready)',
  options: IMAGES_OPTIONS,
  positionals: {},
  run: ({ options }, io) => images('pull', options.json, io),
});

export const imagesList = defineVerb({
  name: 'bootsmith images list',
  summary: 'Show what DATA_DIR/images holds for each configured image (reads nothing from the network)',
  options: IMAGES_OPTIONS,
  positionals: {},
  run: ({ options }, io) => images('list', options.json, io),
});

export const IMAGES_GROUP: VerbGroup = { name: 'bootsmith images', verbs: { pull: imagesPull, list: imagesList } };

/** `bootsmith images <args…>` with the given I/O (tests call it in-process). */
export function imagesCommand(args: readonly string[], io: Omit<CliIo, 'stdin'>): Promise<number> {
  return runGroup(IMAGES_GROUP, args, withoutStdin(io));
}

async function images(sub: 'pull' | 'list', json: boolean, io: CliIo): Promise<number> {
  const config = commandConfig(io);
  if (config === 2) return 2;
  for (const problem of config.osImages.problems) io.stderr.write(`bootsmith: skipped: ${problem}\n`);
  if (config.usingDemoImage) io.stderr.write('bootsmith: OS_IMAGES is not set: using the bundled demo fixture image\n');

  if (sub === 'list') {
    const inventory = await inspectCache(config.osImages.entries, config.dataDir);
    io.stdout.write(json ? `${JSON.stringify(inventory, null, 2)}\n` : renderInventory(inventory));
    return 0;
  }

  const store = new ManagedImageStore(config.osImages.entries, config.osImages.problems, commandLogger(config, io), {
    dataDir: config.dataDir,
    settings: config.imageStore,
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
