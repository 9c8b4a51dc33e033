#!/usr/bin/env node
// The bootsmith command line's entry point: runs the command tree of ./commands.ts with this
// process's environment and standard streams, and exits with its code. An unexpected error is
// one redacted line and exit 1.
import { describeError } from '../errors.js';
import { redactText } from '../redact.js';
import { runCli } from './commands.js';

runCli(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
}).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`bootsmith: ${redactText(describeError(err))}\n`);
    process.exit(1);
  },
);
