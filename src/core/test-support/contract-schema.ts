// Loads the assisted-service swagger (Swagger 2.0) definitions into ajv for contract tests.
//
// Reads the swagger from ../shared/contracts (SWAGGER_PATH, src/test-support/probes.ts); returns
// undefined when it is absent (contract.test.ts fails under CI then, see requirements.ts). Vendor extensions
// (x-nullable, x-go-*) are ignored; `#/definitions/x` refs resolve within the document.
import { existsSync, readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import YAML from 'yaml';

import { SWAGGER_PATH } from '../../test-support/probes.js';

export { SWAGGER_PATH };

export interface Contract {
  /** Errors of `body` against a swagger definition, or against GO_OPENAPI_ERROR by that name. */
  validate(definition: string, body: unknown): string[];
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
  const doc = YAML.parse(readFileSync(SWAGGER_PATH, 'utf8')) as { definitions: Record<string, unknown> };
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  ajv.addFormat('mac', /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/);
  ajv.addFormat('int32', true);
  ajv.addFormat('int64', true);
  ajv.addFormat('binary', true);
  ajv.addSchema({ $id: 'swagger', definitions: doc.definitions }, 'swagger');
  const cache = new Map<string, ValidateFunction>();
  return {
    validate(definition, body) {
      let v = cache.get(definition);
      if (!v) {
        v = ajv.compile(
          definition === GO_OPENAPI_ERROR ? GO_OPENAPI_ERROR_SCHEMA : { $ref: `swagger#/definitions/${definition}` },
        );
        cache.set(definition, v);
      }
      return v(body) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
    },
  };
}
