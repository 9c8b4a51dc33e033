// Binds a JSON request body the way upstream's generated server does, before any semantic check.
//
// Does: (1) a missing body is go-openapi 602 `<param> in body is required`; (2) JSON whose types do
// not fit the Go model is a parse error (400, `json: cannot unmarshal …` as encoding/json words
// it); `null` is accepted anywhere (Go leaves the field unset); (3) fields the model does not
// declare are dropped and returned so the caller can log them: go-swagger's decoder ignores them,
// so newer clients keep working against an older server; (4) the model's schema rules in Go's
// field order (alphabetical) — required 602, format 601, maxLength 603, pattern 605, enum 606,
// minimum 609 — the first violation is the answer (ServeError serves the first of a composite).
// Does NOT: know any field's meaning (infraenv/params.ts and the host handlers do the semantic
// 400s), coerce values, or hold upstream's swagger (the definitions used are in body-models.ts).
import type { Request } from 'express';
import { FrameworkError, frameworkErrors, goQuote } from '../../platform/api/framework-error.js';

export type Schema =
  | {
      type: 'string';
      enum?: readonly string[];
      /** uuid: checked after decoding (601); date-time: strfmt.DateTime fails while decoding (400). */
      format?: 'uuid' | 'date-time';
      maxLength?: number;
      /** The pattern as upstream declares it (shown in 605 messages) … */
      pattern?: string;
      /** … and an equivalent without nested quantifiers, used to test (no catastrophic backtracking). */
      safePattern?: RegExp;
    }
  | { type: 'integer'; goType?: 'int64' | 'int32'; minimum?: number }
  | { type: 'boolean' }
  | { type: 'array'; items: Schema }
  | ObjectSchema
  /** Any JSON (a free-form field the handler checks itself). */
  | { type: 'any' };

export interface ObjectSchema {
  type: 'object';
  /** The Go model's name, as encoding/json names it in errors (`InfraEnvCreateParams`). */
  goType: string;
  properties: Readonly<Record<string, Schema>>;
  required?: readonly string[];
}

/** A body parameter of one operation: its swagger name (`infraenvCreateParams`) and model. */
export interface BodyDefinition {
  param: string;
  schema: ObjectSchema;
  /** Upstream marks the body required (every operation bootsmith serves except step replies). */
  required: boolean;
}

export interface BoundBody {
  body: Record<string, unknown>;
  /** Dotted paths of the fields dropped because the model does not declare them. */
  ignored: string[];
}

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const INT64_LIMIT = 2 ** 63;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function isDateTime(s: string): boolean {
  return DATE_TIME_RE.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T')));
}

/** runtime.HasBody: a Content-Length above zero or a chunked body. */
export function requestHasBody(req: Request): boolean {
  if (req.get('transfer-encoding') !== undefined) return true;
  const length = req.get('content-length');
  return length !== undefined && length !== '0';
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return `number ${String(v)}`;
  if (typeof v === 'string') return 'string';
  return 'object';
}

function goTypeOf(s: Schema): string {
  switch (s.type) {
    case 'string':
      return s.format === 'uuid' ? 'strfmt.UUID' : s.format === 'date-time' ? 'strfmt.DateTime' : 'string';
    case 'integer':
      return s.goType ?? 'int64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${goTypeOf(s.items)}`;
    case 'object':
      return `models.${s.goType}`;
    case 'any':
      return 'interface {}';
  }
}

class Decoder {
  readonly ignored: string[] = [];
  constructor(
    private readonly param: string,
    private readonly root: ObjectSchema,
  ) {}

  private mismatch(value: unknown, schema: Schema, field: string | undefined): FrameworkError {
    const target = field
      ? `Go struct field ${this.root.goType}.${field} of type ${goTypeOf(schema)}`
      : `Go value of type ${goTypeOf(schema)}`;
    return frameworkErrors.parse(this.param, 'body', `json: cannot unmarshal ${jsonKind(value)} into ${target}`);
  }

  /** Checks JSON types against the model and returns the value without undeclared fields. */
  decode(value: unknown, schema: Schema, field: string | undefined): unknown {
    if (value === null || schema.type === 'any') return value;
    switch (schema.type) {
      case 'string':
        if (typeof value !== 'string') throw this.mismatch(value, schema, field);
        if (schema.format === 'date-time' && !isDateTime(value))
          throw frameworkErrors.parse(this.param, 'body', `parsing time ${goQuote(value)}: not an RFC 3339 date-time`);
        return value;
      case 'integer':
        if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) >= INT64_LIMIT)
          throw this.mismatch(value, schema, field);
        return value;
      case 'boolean':
        if (typeof value !== 'boolean') throw this.mismatch(value, schema, field);
        return value;
      case 'array':
        if (!Array.isArray(value)) throw this.mismatch(value, schema, field);
        return value.map((item) => this.decode(item, schema.items, field));
      case 'object': {
        if (typeof value !== 'object' || Array.isArray(value)) throw this.mismatch(value, schema, field);
        const out: Record<string, unknown> = {};
        for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
          const prop = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
          const path = field ? `${field}.${key}` : key;
          if (!prop) {
            this.ignored.push(path);
            continue;
          }
          out[key] = this.decode(v, prop, path);
        }
        return out;
      }
    }
  }
}

/** The first schema violation of `value` (already decoded), named as go-openapi names it. */
export function firstViolation(value: unknown, schema: Schema, name: string): FrameworkError | undefined {
  if (value === null || value === undefined) return undefined;
  switch (schema.type) {
    case 'string': {
      const s = value as string;
      if (schema.format === 'uuid' && !UUID_RE.test(s)) return frameworkErrors.invalidType(name, 'body', 'uuid', s);
      if (schema.maxLength !== undefined && [...s].length > schema.maxLength)
        return frameworkErrors.tooLong(name, 'body', schema.maxLength);
      if (schema.pattern !== undefined && !(schema.safePattern ?? new RegExp(schema.pattern, 'u')).test(s))
        return frameworkErrors.pattern(name, 'body', schema.pattern);
      if (schema.enum && !schema.enum.includes(s)) return frameworkErrors.enumFail(name, 'body', schema.enum);
      return undefined;
    }
    case 'integer':
      if (schema.minimum !== undefined && (value as number) < schema.minimum)
        return frameworkErrors.minimum(name, 'body', schema.minimum);
      return undefined;
    case 'array': {
      const items = value as unknown[];
      for (let i = 0; i < items.length; i++) {
        const v = firstViolation(items[i], schema.items, `${name}.${i}`);
        if (v) return v;
      }
      return undefined;
    }
    case 'object': {
      const obj = value as Record<string, unknown>;
      for (const key of Object.keys(schema.properties).sort()) {
        const path = name ? `${name}.${key}` : key;
        const v = obj[key];
        if ((v === undefined || v === null) && schema.required?.includes(key))
          return frameworkErrors.required(path, 'body');
        const violation = firstViolation(v, schema.properties[key]!, path);
        if (violation) return violation;
      }
      return undefined;
    }
    case 'boolean':
    case 'any':
      return undefined;
  }
}

/**
 * Binds `req.body` (parsed by express.json) against `def`: throws the FrameworkError upstream's
 * server would answer, else returns the body without undeclared fields and their names.
 */
export function bindBody(req: Request, def: BodyDefinition): BoundBody {
  const raw = req.body as unknown;
  if (!requestHasBody(req)) {
    if (def.required) throw frameworkErrors.required(def.param, 'body');
    return { body: {}, ignored: [] };
  }
  // a body express.json() did not parse: its Content-Type is not JSON (upstream consumes JSON only)
  if (raw === undefined) throw frameworkErrors.parse(def.param, 'body', 'the request body is not application/json');
  const decoder = new Decoder(def.param, def.schema);
  const decoded = raw === null ? {} : (decoder.decode(raw, def.schema, undefined) as Record<string, unknown>);
  const violation = firstViolation(decoded, def.schema, '');
  if (violation) throw violation;
  return { body: decoded, ignored: decoder.ignored };
}
