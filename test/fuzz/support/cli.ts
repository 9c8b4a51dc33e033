// The bootsmith CLI the fault categories run as a child process: built once per fuzz run by
// global-setup.ts (from the working tree, with the project's tsc), so every category runs what
// is deployed (`node dist/src/cli/main.js …`), never a TypeScript loader.
export const CLI_ENV = 'BOOTSMITH_FUZZ_CLI';

/** Path of the built `src/cli/main.js`; fails when run outside the fuzz config. */
export function builtCli(): string {
  const cli = process.env[CLI_ENV];
  if (!cli)
    throw new Error(`${CLI_ENV} is unset: run through test/fuzz/vitest.config.ts (its global setup builds the CLI)`);
  return cli;
}
