// The front door's HTTP routes, two routers:
//   hosts (at the root, served by the plain listener too: src/url-grammar.ts rows front-door-*):
//     GET /boot.ipxe                  the chain script every site's DHCP hands iPXE
//     GET /pxe/host.ipxe?mac=&uuid=&serial=&buildarch=&platform=
//                                     the host's answer: its InfraEnv's iPXE script, skip, or wait
//     GET /pxe/grub.cfg?mac=[&uuid=]  its grub.cfg (signed network GRUB fetching over HTTP)
//     GET /pxe/v1/boot/{mac}          pixiecore's API: 200 {kernel, initrd[], cmdline}, else 404
//   answered as text/plain (iPXE and GRUB print a body they cannot run): 400 for a bad MAC or
//   UUID (counted as `invalid` in the door's metrics), 404 with the front door off
//   (PXE_FRONT_DOOR); unauthenticated, as PXE is.
//   admin (at EXTENSION_API_PREFIX/pxe, the admin's credential as the rest of the extension API):
//     GET    /assignments[?infra_env_id=ID]        at most MAX_LISTED_ASSIGNMENTS
//     GET    /assignments/{mac-or-uuid}            404 when none
//     PUT    /assignments/{mac-or-uuid}            {infra_env_id, secure_boot?}: 201 new, 200 replaced;
//                                                  404 naming an InfraEnv that does not exist
//     DELETE /assignments/{mac-or-uuid}            204, 404 when none
//     GET    /dhcp-snippet?server=dnsmasq|kea|isc|tinkerbell[&tftp_server=IPv4][&secure_boot_only=true]
//                                                  {server, boot_url, tftp_server, secure_boot_macs,
//                                                  snippet}: the site DHCP snippet for this service's
//                                                  addresses (the TFTP server defaults to the boot
//                                                  URL's host), with lines for the MACs assigned
//                                                  with Secure Boot (only those: secure_boot_only)
//   errors in the API's shapes (the core's error handler, statuses from src/error-status.ts).
// Does NOT: decide or render (./front-door.ts), or check the admin credential itself.
import express, { type ErrorRequestHandler, type NextFunction, type Request, type Response, Router } from 'express';
import { NotFoundError } from '../errors.js';
import { errorStatus } from '../error-status.js';
import { methodGuard } from '../platform/api/method-guard.js';
import { queryString, queryUuid } from '../platform/api/request.js';
import { URL_SHAPE, expressPath } from '../url-grammar.js';
import type { AssignmentKind, AssignmentStore, Assignment } from './assignments/assignment-store.js';
import { DHCP_SERVERS, type DhcpServer, dhcpSnippet } from './dhcp-snippets.js';
import type { FrontDoor } from './front-door.js';
import type { HttpAnswerKind } from './front-door-metrics.js';
import { FrontDoorInputError, identityFromQuery, parseMac, parseSystemUuid } from './host-identity.js';

/** A host request's target: what iPXE sends is a few hundred characters; more is not a host. */
export const MAX_HOST_REQUEST_TARGET = 2048;
/** An assignment's body: two fields. */
const ADMIN_BODY_LIMIT_BYTES = 4 * 1024;

type Handler = (req: Request, res: Response) => Promise<void> | void;

/**
 * A host route: its errors answered here as plain text (hostError), not by an error handler on
 * the router, which sits at the root and would see every request the later routers fail. With a
 * kind, a request refused as malformed is counted in the door's metrics (its answers count the rest).
 */
function hostRoute(fn: Handler, counted?: { door: FrontDoor; kind: HttpAnswerKind }) {
  const refuse = (err: unknown, res: Response) => {
    if (counted && err instanceof FrontDoorInputError) counted.door.countInvalid(counted.kind);
    hostError(err, res);
  };
  return (req: Request, res: Response): void => {
    if (req.originalUrl.length > MAX_HOST_REQUEST_TARGET) {
      refuse(new FrontDoorInputError(`the request target is longer than ${MAX_HOST_REQUEST_TARGET} characters`), res);
      return;
    }
    Promise.resolve()
      .then(() => fn(req, res))
      .catch((err: unknown) => refuse(err, res));
  };
}

function sendText(res: Response, body: string): void {
  res.status(200).set('Content-Type', 'text/plain; charset=utf-8').set('Cache-Control', 'no-store').send(body);
}

/** Plain-text errors for iPXE, GRUB and pixiecore (statuses from src/error-status.ts). */
function hostError(err: unknown, res: Response): void {
  const { status, headers, message } = errorStatus(err);
  res
    .status(status)
    .set(headers)
    .set('Content-Type', 'text/plain; charset=utf-8')
    .set('Cache-Control', 'no-store')
    .send(`${message}\n`);
}

export function frontDoorHostRoutes(door: FrontDoor): Router {
  const router = Router();
  router.get(
    expressPath(URL_SHAPE.frontDoorBoot),
    hostRoute((_req, res) => sendText(res, door.bootScript())),
  );
  router.get(
    expressPath(URL_SHAPE.frontDoorHost),
    hostRoute(async (req, res) => sendText(res, await door.hostScript(identityFromQuery(req.query))), {
      door,
      kind: 'ipxe',
    }),
  );
  router.get(
    expressPath(URL_SHAPE.frontDoorGrub),
    hostRoute(async (req, res) => sendText(res, await door.grubConfig(identityFromQuery(req.query))), {
      door,
      kind: 'grub',
    }),
  );
  router.get(
    expressPath(URL_SHAPE.pixiecoreBoot),
    hostRoute(
      async (req, res) => {
        const mac = parseMac(String(req.params.mac ?? ''));
        const boot = await door.pixiecore({
          mac,
          uuid: undefined,
          serial: undefined,
          buildarch: undefined,
          platform: undefined,
        });
        if (!boot) throw new NotFoundError(`no boot for ${mac}: see its pxe_host_unmatched or pxe_host_skipped event`);
        res.status(200).set('Cache-Control', 'no-store').json(boot);
      },
      { door, kind: 'pixiecore' },
    ),
  );
  return router;
}

export interface AdminRouteParts {
  door: FrontDoor;
  assignments: AssignmentStore;
  authorizeAdmin(req: Request): Promise<void>;
  errorHandler: ErrorRequestHandler;
  /** The core's InfraEnv lookup: a PUT naming a missing one is refused before the write. */
  infraEnvExists(id: string): Promise<boolean>;
}

/** A key of the assignments' path: a System UUID, or a MAC in any spelling. */
export function assignmentKey(text: string): { kind: AssignmentKind; key: string } {
  if (/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-/.test(text))
    return { kind: 'uuid', key: parseSystemUuid(text, 'the assignment key') };
  return { kind: 'mac', key: parseMac(text, 'the assignment key (a MAC or a System UUID)') };
}

function view(a: Assignment): Record<string, unknown> {
  return {
    [a.kind]: a.key,
    infra_env_id: a.infraEnvId,
    secure_boot: a.secureBoot,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

function parsePut(body: unknown): { infraEnvId: string; secureBoot: boolean } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new FrontDoorInputError('the body must be a JSON object {"infra_env_id": "…", "secure_boot": false}');
  const b = body as Record<string, unknown>;
  for (const name of Object.keys(b))
    if (name !== 'infra_env_id' && name !== 'secure_boot')
      throw new FrontDoorInputError(`${name}: not a field of an assignment`);
  if (typeof b.infra_env_id !== 'string') throw new FrontDoorInputError('infra_env_id is required (an InfraEnv id)');
  const infraEnvId = parseSystemUuid(b.infra_env_id, 'infra_env_id');
  if (b.secure_boot !== undefined && typeof b.secure_boot !== 'boolean')
    throw new FrontDoorInputError('secure_boot must be true or false');
  return { infraEnvId, secureBoot: b.secure_boot === true };
}

export function frontDoorAdminRoutes(parts: AdminRouteParts): Router {
  const { assignments, door } = parts;
  const router = Router();
  router.use(express.json({ limit: ADMIN_BODY_LIMIT_BYTES, type: ['application/json', 'application/*+json'] }));
  const admin = (fn: Handler) => (req: Request, res: Response, next: NextFunction) => {
    parts
      .authorizeAdmin(req)
      .then(() => fn(req, res))
      .catch(next);
  };
  const keyOf = (req: Request) => assignmentKey(String(req.params.key ?? ''));

  router.get(
    '/assignments',
    admin(async (req, res) => {
      res.json((await assignments.list(queryUuid(req, 'infra_env_id'))).map(view));
    }),
  );
  router.get(
    '/assignments/:key',
    admin(async (req, res) => {
      const { kind, key } = keyOf(req);
      const found = await assignments.get(kind, key);
      if (!found) throw new NotFoundError(`no assignment for ${kind === 'mac' ? 'MAC' : 'System UUID'} ${key}`);
      res.json(view(found));
    }),
  );
  router.put(
    '/assignments/:key',
    admin(async (req, res) => {
      const { kind, key } = keyOf(req);
      const { infraEnvId, secureBoot } = parsePut(req.body);
      if (!(await parts.infraEnvExists(infraEnvId))) throw new NotFoundError(`InfraEnv ${infraEnvId} does not exist`);
      const { assignment, created } = await assignments.put(kind, key, infraEnvId, secureBoot);
      res.status(created ? 201 : 200).json(view(assignment));
    }),
  );
  router.delete(
    '/assignments/:key',
    admin(async (req, res) => {
      const { kind, key } = keyOf(req);
      if (!(await assignments.remove(kind, key)))
        throw new NotFoundError(`no assignment for ${kind === 'mac' ? 'MAC' : 'System UUID'} ${key}`);
      res.status(204).end();
    }),
  );
  router.get(
    '/dhcp-snippet',
    admin(async (req, res) => {
      const server = queryString(req, 'server') ?? '';
      if (!(DHCP_SERVERS as readonly string[]).includes(server))
        throw new FrontDoorInputError(`server must be one of ${DHCP_SERVERS.join(', ')}`);
      const only = queryString(req, 'secure_boot_only') ?? 'false';
      if (only !== 'true' && only !== 'false') throw new FrontDoorInputError('secure_boot_only must be true or false');
      const bootUrl = door.url(URL_SHAPE.frontDoorBoot.path);
      const tftpServer = queryString(req, 'tftp_server') ?? new URL(bootUrl).hostname;
      const secureBootMacs = server === 'tinkerbell' ? [] : await assignments.secureBootMacs();
      const snippet = dhcpSnippet(server as DhcpServer, {
        bootUrl,
        tftpServer,
        secureBootMacs,
        secureBootOnly: only === 'true',
      });
      res.json({ server, boot_url: bootUrl, tftp_server: tftpServer, secure_boot_macs: secureBootMacs, snippet });
    }),
  );
  router.use(methodGuard(router));
  router.use(parts.errorHandler);
  return router;
}
