// Typed errors of the embedded PostgreSQL server: what failed and where, with the server's
// own last log lines when it said why. Never carries the generated password.
import { BootsmithError } from '../../../errors.js';

export class EmbeddedPostgresError extends BootsmithError {
  constructor(message: string, context: Record<string, unknown> = {}, cause?: unknown) {
    super('internal', message, context, cause === undefined ? undefined : { cause });
  }
}

/** A file-system failure in DATA_DIR, told in words an operator can act on. */
export function explainFsError(err: unknown, what: string): EmbeddedPostgresError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'EROFS'
      ? 'the file system is read-only'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'ENOSPC'
          ? 'no space left on the device'
          : code === 'EDQUOT'
            ? 'disk quota exceeded'
            : ((err as Error | undefined)?.message ?? String(err));
  return new EmbeddedPostgresError(`cannot ${what}: ${reason}`, { code }, err);
}
