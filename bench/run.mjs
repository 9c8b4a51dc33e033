#!/usr/bin/env node
// Entry point of `npm run bench`: compiles bench/**/*.ts with the project's own TypeScript
// (bench/tsconfig.json, output in dist/bench) and runs it. Needs only `typescript` from the
// dev dependencies; the service itself must have been built (`npm run build`), or is built
// here when dist/src/cli/main.js is missing.
//
//   node bench/run.mjs [--smoke] [--only 1,2] ...      run the benchmarks (see bench/README.md)
//   node bench/run.mjs profile <file.cpuprofile|dir>   summarize CPU profiles (self time)
//   node bench/run.mjs report <results/DATE.json>      redraw its SVG, print the Markdown table
//   node bench/run.mjs diag heartbeat-sql [N ...]      the heartbeat's SQL alone on PGlite
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

function compile(project) {
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, project)], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) {
    process.stderr.write(`bench: tsc -p ${project} failed\n`);
    process.exit(r.status ?? 1);
  }
}

const args = process.argv.slice(2);
const serviceRootArg = args.findIndex((a) => a === '--service-root');
const tool = args[0] === 'profile' || args[0] === 'report';
const serviceRoot = serviceRootArg >= 0 ? path.resolve(args[serviceRootArg + 1] ?? '.') : root;
if (serviceRootArg < 0 && !tool && !existsSync(path.join(root, 'dist', 'src', 'cli', 'main.js'))) {
  compile('tsconfig.build.json');
}
compile('bench/tsconfig.json');

if (args[0] === 'profile') {
  const { summarizeProfiles } = await import(pathToFileURL(path.join(root, 'dist', 'bench', 'lib', 'profile.js')).href);
  process.exitCode = await summarizeProfiles(args.slice(1));
} else if (args[0] === 'diag' && args[1] === 'heartbeat-sql') {
  const { heartbeatSql } = await import(
    pathToFileURL(path.join(root, 'dist', 'bench', 'diagnostics', 'heartbeat-sql.js')).href
  );
  const rest = args.slice(2).filter((a, i, all) => a !== '--service-root' && all[i - 1] !== '--service-root');
  process.exitCode = await heartbeatSql(rest, serviceRoot);
} else if (args[0] === 'report') {
  const { report } = await import(pathToFileURL(path.join(root, 'dist', 'bench', 'main.js')).href);
  process.exitCode = await report(args.slice(1));
} else {
  const { main } = await import(pathToFileURL(path.join(root, 'dist', 'bench', 'main.js')).href);
  process.exitCode = await main(args);
}
