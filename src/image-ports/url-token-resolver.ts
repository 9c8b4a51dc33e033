// How the image side learns which InfraEnv an opaque `/bytoken/<token>/…` URL opens.
//
// Does: declare the seam. The in-process core implements it (src/core/in-process-ignition-source.ts,
// backed by src/core/auth/url-tokens.ts); a remote assisted-service issues JWTs only, so in remote
// mode there is no resolver and the route answers 401 to an opaque token.
// Does NOT: authorize the request (the IgnitionSource still checks the credential) or see JWTs.

export interface UrlTokenResolver {
  /** The InfraEnv id the token opens now; throws UnauthorizedError when unknown, revoked or expired. */
  infraEnvOf(token: string): Promise<string>;
}
