// Loads the assisted-service swagger (Swagger 2.0) into ajv for contract tests: its definitions,
// and each operation's declared responses (by operationId and status).
//
// Reads the swagger from ../shared/contracts (SWAGGER_PATH, test/support/probes.ts); returns
// undefined when it is absent (contract.postgres.test.ts fails under CI then, see requirements.ts). Vendor extensions
// (x-nullable, x-go-*) are ignored; `#/definitions/x` refs resolve within the document.
import { existsSync, readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import YAML from 'yaml';

import { SWAGGER_PATH } from '../../../test/support/probes.js';

export { SWAGGER_PATH };

export interface Contract {
  /** Errors of `body` against a swagger definition, or against GO_OPENAPI_ERROR by that name. */
  validate(definition: string, body: unknown): string[];
  /**
   * Errors of a response to `operationId` with `status`: against the schema the swagger declares
   * for that status (a declared response without a schema must have no body). A go-openapi
   * framework body (`{code, message}`, what the runtime writes for 400 parse, 404 route, 405 and
   * 422 errors whatever the declaration) is checked against GO_OPENAPI_ERROR; an undeclared
   * status must carry the `error` definition (what upstream's handlers render for any ApiError).
   */
  validateResponse(operationId: string, status: number, body: unknown): string[];
  /** Every operationId of the swagger with its method and path. */
  operations(): { operationId: string; method: string; path: string }[];
}

/**
 * What upstream's generated server answers before a handler runs (go-openapi/errors
 * `errorAsJSON`): binding and schema errors (400, 422 with codes 601…), unknown routes (404) and
 * wrong methods (405). The swagger declares no schema for these; this is the shape the runtime writes.
 */
export const GO_OPENAPI_ERROR = 'go-openapi-error';
const GO_OPENAPI_ERROR_SCHEMA = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: { code: { type: 'integer' }, message: { type: 'string' } },
};

export function loadContract(): Contract | undefined {
  if (!existsSync(SWAGGER_PATH)) return undefined;
  const doc = YAML.parse(readFileSync(SWAGGER_PATH, 'utf8')) as {
    definitions: Record<string, unknown>;
    paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, { schema?: unknown }> }>>;
  };
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  ajv.addFormat('mac', /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/);
  ajv.addFormat('int32', true);
  ajv.addFormat('int64', true);
  ajv.addFormat('binary', true);
  ajv.addSchema({ $id: 'swagger', definitions: doc.definitions, paths: doc.paths }, 'swagger');
  const cache = new Map<string, ValidateFunction>();
  const compiled = (key: string, schema: () => object): ValidateFunction => {
    let v = cache.get(key);
    if (!v) {
      v = ajv.compile(schema());
      cache.set(key, v);
    }
    return v;
  };
  const errorsOf = (v: ValidateFunction, body: unknown): string[] =>
    v(body) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  const ops = new Map<string, { method: string; path: string; responses: Record<string, { schema?: unknown }> }>();
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (op && typeof op === 'object' && op.operationId)
        ops.set(op.operationId, { method: method.toUpperCase(), path: p, responses: op.responses ?? {} });
    }
  }
  const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  const contract: Contract = {
    validate(definition, body) {
      const v = compiled(`def:${definition}`, () =>
        definition === GO_OPENAPI_ERROR ? GO_OPENAPI_ERROR_SCHEMA : { $ref: `swagger#/definitions/${definition}` },
      );
      return errorsOf(v, body);
    },
    validateResponse(operationId, status, body) {
      const op = ops.get(operationId);
      if (!op) return [`no operation ${operationId} in the swagger`];
      const isFramework =
        typeof body === 'object' &&
        body !== null &&
        !('kind' in body) &&
        typeof (body as { code?: unknown }).code === 'number';
      if (status >= 400 && isFramework && ![401, 403].includes(status))
        return contract.validate(GO_OPENAPI_ERROR, body);
      const declared = op.responses[String(status)];
      if (!declared) return status >= 400 ? contract.validate('error', body) : [`status ${status} is not declared`];
      if (declared.schema === undefined)
        return body === undefined || body === '' || body === null ? [] : ['a body where the swagger declares none'];
      // Swagger 2.0 `type: file`: any bytes (not a JSON schema ajv knows)
      if ((declared.schema as { type?: unknown }).type === 'file') return [];
      const method = Object.entries(doc.paths[op.path]!).find(([, o]) => o.operationId === operationId)![0];
      const v = compiled(`op:${operationId}:${status}`, () => ({
        $ref: `swagger#/paths/${pointer(op.path)}/${method}/responses/${status}/schema`,
      }));
      return errorsOf(v, body);
    },
    operations() {
      return [...ops.entries()].map(([operationId, o]) => ({ operationId, method: o.method, path: o.path }));
    },
  };
  return contract;
}
