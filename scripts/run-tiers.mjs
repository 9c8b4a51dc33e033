#!/usr/bin/env node
// `npm test`: runs every test tier, one after the other, whatever the ones before did, then prints
// which passed and which failed and exits 1 when any failed (issue 37: chained with `&&`, a failing
// unit tier hid whether fuzz and the boot tests pass).
//
// Tiers, in order: the test packages (scripts/install-test-deps.sh: installs as root, lists what is
// missing otherwise), the typecheck, the unit tests, the short fuzz campaign, the boot tests.
// `--with scale` adds the scale test after them (`.ci/run` does). Ctrl-C (or a tier killed by a
// signal) stops the run at once: the summary names what ran.
//
// Does: spawn each tier with the terminal as its stdio, time it, summarize. Does NOT: run tiers in
// parallel (they share two cores and the embedded PostgreSQL), retry, or decide what a tier runs
// (package.json's scripts do).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The tiers `npm test` runs, in order: a name for the summary and the command. */
export const TIERS = [
  { name: 'test packages', command: ['bash', 'scripts/install-test-deps.sh'] },
  { name: 'typecheck', command: ['npm', 'run', '--silent', 'typecheck'] },
  { name: 'unit', command: ['npm', 'run', '--silent', 'test:unit'] },
  { name: 'fuzz', command: ['npm', 'run', '--silent', 'test:fuzz'] },
  { name: 'e2e', command: ['npm', 'run', '--silent', 'test:e2e'] },
];

/** Tiers only run when asked for with `--with NAME`. */
export const EXTRA_TIERS = [{ name: 'scale', command: ['npm', 'run', '--silent', 'test:scale'] }];

/**
 * Runs `tiers` in order; resolves with one result per tier that ran. A tier killed by a signal
 * (SIGINT from Ctrl-C reaches the whole process group) ends the run after it.
 */
export async function runTiers(tiers, { cwd = REPO_ROOT, stdio = 'inherit', log = console.log } = {}) {
  const results = [];
  for (const tier of tiers) {
    log(`\n==> ${tier.name}: ${tier.command.join(' ')}`);
    const started = Date.now();
    const { code, signal } = await new Promise((resolve) => {
      const child = spawn(tier.command[0], tier.command.slice(1), { cwd, stdio });
      child.once('error', (err) => {
        log(`${tier.name}: ${err.message}`);
        resolve({ code: 127, signal: null });
      });
      child.once('exit', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
    });
    results.push({ name: tier.name, code, signal, seconds: Math.round((Date.now() - started) / 1000) });
    if (signal !== null) break;
  }
  return results;
}

/** The summary lines and the exit status of a run. */
export function summarize(results, asked) {
  const ran = new Set(results.map((r) => r.name));
  const lines = ['', 'tier            result            time'];
  for (const r of results) {
    const result = r.signal !== null ? `killed (${r.signal})` : r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`;
    lines.push(`${r.name.padEnd(16)}${result.padEnd(18)}${r.seconds} s`);
  }
  for (const t of asked) if (!ran.has(t.name)) lines.push(`${t.name.padEnd(16)}not run`);
  const failed = results.filter((r) => r.code !== 0 || r.signal !== null).map((r) => r.name);
  const skipped = asked.filter((t) => !ran.has(t.name)).map((t) => t.name);
  if (failed.length === 0 && skipped.length === 0) lines.push(`all ${results.length} tiers passed`);
  else lines.push(`failed: ${failed.join(', ') || 'none'}${skipped.length ? `; not run: ${skipped.join(', ')}` : ''}`);
  return { lines, status: failed.length === 0 && skipped.length === 0 ? 0 : 1 };
}

/** The tiers a command line asks for: the default ones plus each `--with NAME`. */
export function tiersFor(args) {
  const tiers = [...TIERS];
  for (let i = 0; i < args.length; i++) {
    const extra = args[i] === '--with' ? EXTRA_TIERS.find((t) => t.name === args[i + 1]) : undefined;
    if (!extra) throw new Error(`usage: run-tiers.mjs [--with ${EXTRA_TIERS.map((t) => t.name).join('|')}]`);
    tiers.push(extra);
    i++;
  }
  return tiers;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let tiers;
  try {
    tiers = tiersFor(process.argv.slice(2));
  } catch (err) {
    console.error(err.message);
    process.exit(2);
  }
  // Ctrl-C reaches the tier too (same process group); this process waits for it to end, then sums up.
  process.on('SIGINT', () => undefined);
  const results = await runTiers(tiers);
  const { lines, status } = summarize(results, tiers);
  for (const line of lines) console.log(line);
  process.exit(status);
}
