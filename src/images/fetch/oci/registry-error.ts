// The typed error of every registry operation: which registry, which repository, which step
// (ping, token, manifest, blob, layer, release payload …) and, when the registry answered, its
// HTTP status and error code, e.g. "registry mirror.example:5000 refused credentials for
// repo/x (401)". It is an ImageLoadError, so the image store's retry schedule applies to it as
// to any other source (src/images/load-failure/load-error.ts).
//
// Messages never hold a credential: they are built from host names, repository names, digests
// and statuses only — never from headers, URLs with query strings or response bodies beyond the
// registry's short error code. Does not: decide retries of its own.
import { ImageLoadError, type RetryClass } from '../../load-failure/load-error.js';
import { retryClassOfStatus } from '../../load-failure/retry-policy.js';

export type RegistryStep =
  'ping' | 'token' | 'manifest' | 'blob' | 'layer' | 'release-payload' | 'configuration' | 'mirror';

export interface RegistryErrorContext {
  registry: string;
  repository?: string | undefined;
  step: RegistryStep;
  status?: number | undefined;
  /** The registry's error code from its JSON body (MANIFEST_UNKNOWN, UNAUTHORIZED, …). */
  code?: string | undefined;
}

export class RegistryError extends ImageLoadError {
  readonly registry: string;
  readonly repository: string | undefined;
  readonly step: RegistryStep;
  readonly status: number | undefined;

  constructor(
    message: string,
    where: RegistryErrorContext,
    retry: RetryClass,
    kind: 'upstream' | 'format' = 'upstream',
    options?: { cause?: unknown },
  ) {
    super(
      kind,
      message,
      retry,
      {
        registry: where.registry,
        ...(where.repository !== undefined ? { repository: where.repository } : {}),
        step: where.step,
        ...(where.status !== undefined ? { status: where.status } : {}),
        ...(where.code !== undefined ? { code: where.code } : {}),
      },
      options,
    );
    this.registry = where.registry;
    this.repository = where.repository;
    this.step = where.step;
    this.status = where.status;
  }
}

/** The error for an HTTP answer that is not the one wanted. */
export function statusError(
  where: RegistryErrorContext & { status: number },
  what: string,
  code: string | undefined,
): RegistryError {
  const repo = where.repository !== undefined ? ` for ${where.repository}` : '';
  const coded = code ? ` ${code}` : '';
  let message: string;
  if (where.status === 401) message = `registry ${where.registry} refused credentials${repo} (401${coded})`;
  else if (where.status === 403) message = `registry ${where.registry} denied access${repo} (403${coded})`;
  else if (where.status === 404) message = `registry ${where.registry} has no ${what}${repo} (404${coded})`;
  else message = `registry ${where.registry} answered HTTP ${where.status}${coded} to the ${what} request${repo}`;
  return new RegistryError(message, { ...where, code }, retryClassOfStatus(where.status));
}
