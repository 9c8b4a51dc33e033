// What another wing may call of the core (Core.domain, ./index.ts): InfraEnvs, their hosts, short
// image-URL tokens and events through the core's repository, outside any transaction of the
// core's, and the URL of an InfraEnv's ISO with a short token. The BMC wing declares what it needs
// of this (src/bmc/core-port.ts); src/assembly/core-wing.ts offers it and bmc-wing.ts takes it,
// and the compiler checks there that this satisfies it.
// Does NOT: open transactions, check authorization, or know the wings that call it.
import type { Repository } from './db/repository.js';
import type { InfraEnvRecord } from './model.js';
import { isoUrl } from './urls.js';

export type CoreDomain = Pick<
  Repository,
  'getInfraEnv' | 'infraEnvExists' | 'hostsRegisteredSince' | 'insertUrlTokens' | 'deleteUrlToken' | 'insertEvent'
> & {
  /** The InfraEnv's discovery ISO URL on `imageBase` with a short token (./urls.ts). */
  tokenIsoUrl(
    imageBase: string,
    infraEnv: Pick<InfraEnvRecord, 'id' | 'openshiftVersion' | 'imageType'> & { cpuArchitecture: string },
    token: string,
  ): string;
};

export function coreDomain(repo: Repository): CoreDomain {
  return {
    getInfraEnv: (id) => repo.getInfraEnv(id),
    infraEnvExists: (id) => repo.infraEnvExists(id),
    hostsRegisteredSince: (id, since, limit) => repo.hostsRegisteredSince(id, since, limit),
    insertUrlTokens: (rows) => repo.insertUrlTokens(rows),
    deleteUrlToken: (tokenHash) => repo.deleteUrlToken(tokenHash),
    insertEvent: (event) => repo.insertEvent(event),
    tokenIsoUrl: (imageBase, infraEnv, token) =>
      isoUrl(
        imageBase,
        infraEnv.id,
        { kind: 'bytoken', token },
        infraEnv.openshiftVersion,
        infraEnv.cpuArchitecture,
        infraEnv.imageType,
      ),
  };
}
