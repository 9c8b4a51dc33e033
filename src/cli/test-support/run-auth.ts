// Test support: `bootsmith auth …` as a module whose evaluation is the whole command (top-level
// await), so a child process can run the TypeScript sources through Vite's module runner
// without a build. Used only by src/core/admin-token.postgres.test.ts.
import { authCommand } from '../auth.js';

const args = (process.env.BOOTSMITH_TEST_ARGS ?? '').split(' ').filter(Boolean);
process.exitCode = await authCommand(args, { env: process.env, stdout: process.stdout, stderr: process.stderr });
