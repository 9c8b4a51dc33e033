// Start-up failures an operator's setting causes, turned into ConfigErrors that name the setting,
// its value and the fix (issue 37: `listen EADDRINUSE`, `database unavailable (ECONNREFUSED); retry
// shortly` and the like named no setting): a listener that cannot bind (LISTEN_PORT,
// HTTP_LISTEN_PORT, LISTEN_ADDRESS) and a DATABASE_URL that answers nothing, refuses the
// credentials or lacks the database.
//
// Does: classify the error (pure, but for this host's addresses in a message). Does NOT: listen,
// connect or retry (src/assembly/listeners.ts and platform.ts do; the CLI turns what this returns
// into the exit). Next: src/startup/data-dir.ts (DATA_DIR).
import { networkInterfaces } from 'node:os';
import { ConfigError } from '../config.js';
import { DatabaseUnavailableError } from '../platform/db/sql.js';

export interface ListenTarget {
  /** The variable that set the port: LISTEN_PORT, or HTTP_LISTEN_PORT for the plain listener. */
  portVariable: 'LISTEN_PORT' | 'HTTP_LISTEN_PORT';
  port: number;
  /** LISTEN_ADDRESS as configured. */
  address: string;
}

/** A ConfigError naming the setting when a listener could not bind because of it; otherwise `err`. */
export function listenRefusal(err: unknown, target: ListenTarget): unknown {
  const code = (err as { code?: unknown } | undefined)?.code;
  const { portVariable, port, address } = target;
  switch (code) {
    case 'EADDRINUSE':
      return new ConfigError(
        `${portVariable} ${port} is already in use on ${address} (another process listens there): stop that process or set ${portVariable} to a free port`,
      );
    case 'EADDRNOTAVAIL':
      return new ConfigError(
        `LISTEN_ADDRESS ${address} is not an address of this host (${hostAddresses()}): set LISTEN_ADDRESS to one of them, or to 0.0.0.0 for every address`,
      );
    case 'EACCES':
      return new ConfigError(
        `${portVariable} ${port} needs privileges this process does not have (ports below 1024): set ${portVariable} to 1024 or above, or grant CAP_NET_BIND_SERVICE`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(
        `LISTEN_ADDRESS ${address} is neither an IP address nor a name this host resolves: set LISTEN_ADDRESS to an address of this host (${hostAddresses()})`,
      );
    default:
      return err;
  }
}

/** This host's interface addresses, for a message. */
function hostAddresses(): string {
  const all = Object.values(networkInterfaces())
    .flat()
    .map((a) => a?.address)
    .filter((a): a is string => a !== undefined);
  return all.length ? `this host has ${all.join(', ')}` : 'this host has no address';
}

/** Where DATABASE_URL points, for messages: user, host, port and database, never the password. */
export function describeDatabaseUrl(databaseUrl: string): string {
  try {
    const u = new URL(databaseUrl);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
    return `${user}${u.hostname}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return '(not a URL)';
  }
}

/**
 * A ConfigError naming DATABASE_URL when the first connection to it failed because of where it
 * points or what it says (nothing answers, the credentials or the database are refused);
 * otherwise `err`.
 */
export function databaseUrlRefusal(err: unknown, databaseUrl: string): unknown {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  const where = `DATABASE_URL (${describeDatabaseUrl(databaseUrl)})`;
  const reason = typeof e?.message === 'string' ? e.message : String(err);
  // SQLSTATE 28xxx: invalid authorization (password, pg_hba.conf); 3D000: no such database
  if (code.startsWith('28'))
    return new ConfigError(
      `${where} refused the credentials (${reason}): check the user and password in DATABASE_URL and the server's pg_hba.conf`,
    );
  if (code === '3D000')
    return new ConfigError(
      `${where}: the database does not exist (${reason}): create it or name another one in DATABASE_URL`,
    );
  if (err instanceof DatabaseUnavailableError)
    return new ConfigError(
      `${where}: no PostgreSQL answers there (${String(err.context.code ?? err.context.reason)}): start the server, or fix the host and port in DATABASE_URL (unset it to use the embedded PostgreSQL in DATA_DIR)`,
    );
  return err;
}
