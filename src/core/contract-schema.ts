// Loads the assisted-service swagger (Swagger 2.0) definitions into ajv for contract tests.
//
// Resolves the contracts at path.resolve(repoRoot, '../shared/contracts'); returns
// undefined when they are absent so suites can skip cleanly. Vendor extensions
// (x-nullable, x-go-*) are ignored; `#/definitions/x` refs resolve within the document.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import YAML from 'yaml';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SWAGGER_PATH = path.resolve(repoRoot, '../shared/contracts/assisted-service-swagger.yaml');

export interface Contract {
  validate(definition: string, body: unknown): string[];
}

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
        v = ajv.compile({ $ref: `swagger#/definitions/${definition}` });
        cache.set(definition, v);
      }
      return v(body) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
    },
  };
}
