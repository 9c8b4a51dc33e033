#!/usr/bin/env node
// Builds the kernel I/O addon (native/kernel-io.c → build/Release/kernel_io.node) at install:
// `npm ci` runs it as the package's install script. Never fails the install: without a C
// compiler, make or Python (node-gyp's needs), on another platform, or with no Node headers, it
// prints one line saying why and the service copies through user space instead
// (src/kernel-io/native-binding.ts reports the same at start-up).
//
// node-gyp comes with npm (npm hands its path to install scripts as npm_config_node_gyp; else the
// one beside the running npm is used). Node's headers are taken from the Node installation itself
// when it ships them (<prefix>/include/node, e.g. Debian's nodejs or the official tarballs), so
// nothing is downloaded; otherwise node-gyp fetches them as usual.
//   node scripts/build-native.mjs            build (quiet; one line of outcome)
//   node scripts/build-native.mjs --verbose  show the compiler's output
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const verbose = process.argv.includes('--verbose');
const say = (line) => process.stderr.write(`bootsmith native addon: ${line}\n`);
const ADDON = path.join(root, 'build', 'Release', 'kernel_io.node');

function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    // npm's own copy: <prefix>/lib/node_modules/npm/node_modules/node-gyp
    path.join(
      path.dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
  ];
  return candidates.find((c) => c && existsSync(c));
}

function main() {
  if (process.platform !== 'linux') {
    say(`skipped on ${process.platform} (Linux only); bodies are copied through user space`);
    return;
  }
  if (!existsSync(path.join(root, 'binding.gyp'))) return; // an installed package without sources
  const gyp = nodeGyp();
  if (!gyp) {
    say('node-gyp not found (it comes with npm); bodies are copied through user space');
    return;
  }
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  const args = [gyp, 'rebuild'];
  if (existsSync(path.join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', stdio: verbose ? 'inherit' : 'pipe' });
  if (r.status === 0 && existsSync(ADDON)) {
    say(`built ${path.relative(root, ADDON)} (sendfile for plain HTTP bodies)`);
    return;
  }
  rmSync(path.join(root, 'build'), { recursive: true, force: true });
  // node-gyp's first error line says what failed (`make` failed, no Python, no headers...)
  const errors = `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n').filter((l) => l.startsWith('gyp ERR!'));
  const reason =
    errors.find((l) => /ERR! (stack )?Error: /.test(l))?.replace(/^gyp ERR! (stack )?Error: /, '') ??
    errors[0]?.replace(/^gyp ERR! /, '') ??
    `node-gyp exited with ${r.status ?? r.signal}`;
  say(
    `not built (${reason.trim()}); bodies are copied through user space (node scripts/build-native.mjs --verbose shows why)`,
  );
}

try {
  main();
} catch (err) {
  say(`not built (${err instanceof Error ? err.message : String(err)}); bodies are copied through user space`);
}
