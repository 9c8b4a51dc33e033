// Discovery ISO routes, compatible with assisted-image-service (URL shapes of src/url-grammar.ts):
//   GET|HEAD /images/{id}?version=&arch=&type=full-iso|minimal-iso[&api_key=|&image_token=]
//   GET|HEAD /byid/{id}/{version}/{arch}/{full|minimal}.iso
//   GET|HEAD /bytoken/{image_token}/{version}/{arch}/{full|minimal}.iso
//   GET|HEAD /byapikey/{api_key}/{version}/{arch}/{full|minimal}.iso
// Path-style URLs need no query string, which BMC virtual-media clients require.
// A path token with two dots is a JWT (its claims name the InfraEnv); any other is a short
// opaque token resolved by the UrlTokenResolver (the in-process core, or the core this image
// side fronts), else 401. Like upstream, a
// token opens its InfraEnv's ISO for whichever version/arch in the path the service has.
// Each served request is reported to the boot-event observer, and every answered request opened by
// a short opaque token to the token-read observer (BMC boot jobs follow their own URL's reads).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router } from 'express';
import type { Credential, DiscoveryImageType } from '../../../image-ports/ignition-source.js';
import { isJwtShaped } from '../../../image-ports/url-token-resolver.js';
import { type ImageRouteContext, artifactRepresentation, sendArtifact } from '../artifact-response.js';
import { UnauthorizedError } from '../../../errors.js';
import { type PathCredentialKind, type UrlShape, URL_SHAPE, URL_SHAPES, expressPath } from '../../../url-grammar.js';
import { reportOf } from '../boot-event-report.js';
import { watchTokenRead } from '../token-read-watch.js';
import { credentialFromRequest } from '../request-credential.js';
import {
  infraEnvIdFromToken,
  infraEnvIdParam,
  isoTypeFromFilename,
  isoTypeFromQuery,
  stringQuery,
} from '../request-params.js';

export interface IsoTarget {
  infraEnvId: string;
  version: string | undefined;
  arch: string | undefined;
  type: DiscoveryImageType;
  credential: Credential;
}

/**
 * The target of `/{bytoken|byapikey}/{token}/{version}/{arch}/{filename}` (a URL shape whose
 * path carries a credential of `kind`): the InfraEnv is named by a JWT's claims or, for an
 * opaque short token, resolved by the UrlTokenResolver.
 */
export async function credentialPathTarget(
  { urlTokens }: ImageRouteContext,
  kind: PathCredentialKind,
  token: string,
  version: string,
  arch: string,
  filename: string,
): Promise<IsoTarget> {
  const type = isoTypeFromFilename(filename);
  const opaque = !isJwtShaped(token);
  if (opaque && !urlTokens)
    throw new UnauthorizedError(
      'this image service cannot resolve short image URL tokens (no bootsmith core behind it)',
    );
  return {
    infraEnvId: opaque ? await urlTokens!.infraEnvOf(token) : infraEnvIdFromToken(token),
    version,
    arch,
    type,
    credential: opaque ? { kind: 'image-token', value: token } : { kind, value: token },
  };
}

/** The target of `/byid/{id}/{version}/{arch}/{filename}`; the credential comes from the request. */
export function byIdTarget(
  id: string,
  version: string,
  arch: string,
  filename: string,
  credential: Credential,
): IsoTarget {
  return { infraEnvId: infraEnvIdParam(id), version, arch, type: isoTypeFromFilename(filename), credential };
}

/** Answers `req` with the discovery ISO of `target` and reports it to the boot-event observer. */
export async function serveDiscoveryIso(
  context: ImageRouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  target: IsoTarget,
): Promise<void> {
  const artifact = await context.artifacts.discoveryIso(target, target.type);
  context.observer?.artifactRequested(reportOf(req, target.infraEnvId, target.type));
  const onPlan =
    context.tokenReads && target.credential.kind === 'image-token' && !isJwtShaped(target.credential.value)
      ? watchTokenRead(context.tokenReads, req, res, target.credential.value, artifact.file.size, artifact.bootExtents)
      : undefined;
  const filename = `${target.infraEnvId}-discovery.iso`;
  return sendArtifact(req, res, context, target.type, artifactRepresentation(artifact, filename), onPlan);
}

export function discoveryImageRoutes(context: ImageRouteContext, shapes: readonly UrlShape[] = URL_SHAPES): Router {
  const hotShapes = shapes.filter((s) => s.hot);
  const router = Router();

  router.get(expressPath(URL_SHAPE.isoByQuery), async (req, res) => {
    const infraEnvId = infraEnvIdParam((req.params as Record<string, string>).id);
    await serveDiscoveryIso(context, req, res, {
      infraEnvId,
      version: stringQuery(req, 'version'),
      arch: stringQuery(req, 'arch'),
      type: isoTypeFromQuery(req),
      credential: credentialFromRequest(req),
    });
  });
  // Path style (the hot shapes: the hot route answers their plain form first, these the rest).
  for (const shape of hotShapes) {
    const credential = shape.credential;
    router.get(expressPath(shape), async (req, res) => {
      const { version, arch, filename } = req.params as Record<'version' | 'arch' | 'filename', string>;
      const param = (name: string) => (req.params as Record<string, string>)[name]!;
      // With the credential in the path, the InfraEnv id is read from the token's claims.
      const target = credential
        ? await credentialPathTarget(context, credential.kind, param(credential.param), version, arch, filename)
        : byIdTarget(param('id'), version, arch, filename, credentialFromRequest(req));
      await serveDiscoveryIso(context, req, res, target);
    });
  }
  return router;
}
