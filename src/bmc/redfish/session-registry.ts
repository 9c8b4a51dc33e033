// One SessionAuth per BMC for this service: every client of the same BMC (address, user, password,
// TLS trust) shares it, so the jobs of a BMC running at the same time (a boot being followed and
// an eject, a refresh) use one Redfish session, and service stop ends every session in one place.
//
// The key holds a SHA-256 of the password, never the password; entries go when their last client
// released them and no session is open.
// Does NOT: decide how a BMC authenticates (session-auth.ts does). Next: client.ts acquires from it.
import { createHash } from 'node:crypto';
import { SessionAuth, type SessionAuthOptions } from './session-auth.js';

export class BmcSessions {
  private readonly entries = new Map<string, SessionAuth>();
  private stopped = false;

  /** The BMC's shared authentication, and how to let it go (the last one out ends the session). */
  acquire(options: SessionAuthOptions): { auth: SessionAuth; release: () => Promise<void> } {
    if (this.stopped) throw new Error('the BMC sessions were stopped');
    const key = keyOf(options);
    let auth = this.entries.get(key);
    if (!auth) {
      auth = new SessionAuth(options);
      this.entries.set(key, auth);
    }
    auth.acquire();
    const held = auth;
    let released = false;
    return {
      auth: held,
      release: async () => {
        if (released) return;
        released = true;
        await held.release();
        if (held.holderCount === 0 && this.entries.get(key) === held) this.entries.delete(key);
      },
    };
  }

  /** Sessions open now, per BMC name (tests, the bench, a status page). */
  openSessions(): number {
    let open = 0;
    for (const auth of this.entries.values()) if (auth.sessionOpen) open++;
    return open;
  }

  /** Ends every session (service stop): DELETEs in parallel, each within SESSION_DELETE_TIMEOUTS. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.entries.values()].map((auth) => auth.stop()));
    this.entries.clear();
  }
}

function keyOf(o: SessionAuthOptions): string {
  const secret = createHash('sha256').update(`${o.username}\u0000${o.password}`).digest('base64url');
  const trust = o.tls.rejectUnauthorized
    ? createHash('sha256')
        .update(String(o.tls.ca ?? ''))
        .digest('base64url')
    : 'insecure';
  return [o.bmc, new URL(o.origin).origin, secret, trust].join('\u0000');
}
