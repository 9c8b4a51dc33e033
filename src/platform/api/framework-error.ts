// The errors upstream's generated server (go-swagger + github.com/go-openapi/errors) answers before
// any handler runs: body or parameter binding failures, schema violations, an unknown route and a
// wrong method on a known one. Rendered as go-openapi's `{ "code": <n>, "message": "…" }`.
//
// Does: name go-openapi's codes (schema.go: CompositeErrorCode is 422, then InvalidTypeCode = 601,
// RequiredFailCode = 602, … ReadOnlyFailCode = 619, counted with iota from 600) and build each
// error with go-openapi's message wording; the HTTP status follows api.go `asHTTPCode`: a code of
// 600 or more is 422, below that the code itself (400 for a parse error, 404, 405).
// Does NOT: decide what is valid (body-schema.ts does) or write responses
// (./error-handler.ts renders these, with `Allow` for 405).
import { BootsmithError, type ErrorKind } from '../../errors.js';

/** go-openapi/errors schema.go codes (iota after CompositeErrorCode, starting at 600 + 1). */
export const GO_OPENAPI_CODE = {
  invalidType: 601,
  required: 602,
  tooLong: 603,
  tooShort: 604,
  pattern: 605,
  enum: 606,
  multipleOf: 607,
  max: 608,
  min: 609,
  unique: 610,
  maxItems: 611,
  minItems: 612,
  readOnly: 619,
} as const;

/** go-openapi api.go: codes at or above this are not HTTP statuses and are served as 422. */
const MAXIMUM_VALID_HTTP_CODE = 600;

export type ParameterLocation = 'body' | 'path' | 'query' | 'header';

function kindFor(code: number): ErrorKind {
  if (code >= MAXIMUM_VALID_HTTP_CODE) return 'unprocessable';
  if (code === 404) return 'not-found';
  if (code === 405) return 'method-not-allowed';
  return 'bad-request';
}

/** Go's %q for the strings we quote (ASCII-safe double-quoted, like strconv.Quote for printable text). */
export function goQuote(value: string): string {
  return JSON.stringify(value);
}

/** Go's %v of a []interface{} of strings: `[a b c]`. */
function goList(values: readonly (string | number)[]): string {
  return `[${values.join(' ')}]`;
}

export class FrameworkError extends BootsmithError {
  /** go-openapi's code: 400, 404, 405 or 601…619. */
  readonly code: number;
  /** Methods the path accepts (405 only), for the `Allow` header. */
  readonly allowed: readonly string[];

  constructor(code: number, message: string, allowed: readonly string[] = []) {
    super(kindFor(code), message, { code });
    this.code = code;
    this.allowed = allowed;
  }
}

export const frameworkErrors = {
  required: (name: string, where: ParameterLocation) =>
    new FrameworkError(GO_OPENAPI_CODE.required, `${name} in ${where} is required`),
  invalidType: (name: string, where: ParameterLocation, type: string, value: string) =>
    new FrameworkError(GO_OPENAPI_CODE.invalidType, `${name} in ${where} must be of type ${type}: ${goQuote(value)}`),
  enumFail: (name: string, where: ParameterLocation, values: readonly (string | number)[]) =>
    new FrameworkError(GO_OPENAPI_CODE.enum, `${name} in ${where} should be one of ${goList(values)}`),
  tooLong: (name: string, where: ParameterLocation, max: number) =>
    new FrameworkError(GO_OPENAPI_CODE.tooLong, `${name} in ${where} should be at most ${max} chars long`),
  pattern: (name: string, where: ParameterLocation, pattern: string) =>
    new FrameworkError(GO_OPENAPI_CODE.pattern, `${name} in ${where} should match '${pattern}'`),
  minimum: (name: string, where: ParameterLocation, min: number) =>
    new FrameworkError(GO_OPENAPI_CODE.min, `${name} in ${where} should be greater than or equal to ${min}`),
  /** A body that is not JSON, or whose JSON types do not fit the Go struct (errors.NewParseError: 400). */
  parse: (name: string, where: ParameterLocation, reason: string) =>
    new FrameworkError(400, `parsing ${name} ${where} from "" failed, because ${reason}`),
  routeNotFound: (path: string) => new FrameworkError(404, `path ${path} was not found`),
  methodNotAllowed: (method: string, allowed: readonly string[]) =>
    new FrameworkError(405, `method ${method} is not allowed, but [${allowed.join(',')}] are`, allowed),
};
