// GET /v2/openshift-versions (v2ListSupportedOpenshiftVersions): the versions the image catalog
// can serve (core/versions/openshift-versions.ts), filtered by `version` and `only_latest`.
// Needs an admin credential under AUTH_TYPE=local (upstream: any user).
import type { Router } from 'express';
import type { CoreContext } from '../context.js';
import { authorize } from '../http/request.js';
import { queryBoolean, queryString, wrap } from '../../platform/api/request.js';
import { openshiftVersions } from '../versions/openshift-versions.js';

export function registerVersionRoutes(router: Router, ctx: CoreContext): void {
  router.get(
    '/v2/openshift-versions',
    wrap(async (req, res) => {
      await authorize(ctx, req, {});
      res.json(
        openshiftVersions(ctx.catalog.images(), {
          version: queryString(req, 'version'),
          onlyLatest: queryBoolean(req, 'only_latest'),
        }),
      );
    }),
  );
}
