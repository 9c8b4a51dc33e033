// Conditional request evaluation (RFC 9110 §13.2.2) for a GET or HEAD of one representation.
//
// Does: apply If-Match, else If-Unmodified-Since; then If-None-Match, else If-Modified-Since;
// then, when a Range is present, If-Range — in that order — and return one decision.
// Pure: reads request headers, returns a value, no I/O.
// Does NOT: parse the Range itself, build responses or headers (src/http/representation/response-plan.ts),
// or handle methods other than GET/HEAD (304 is the GET/HEAD answer of §13.1.2).
import type { IncomingHttpHeaders } from 'node:http';
import { ifRangeMatches, matchEntityTag } from './entity-tag.js';
import { parseHttpDate } from './http-date.js';

/** What the conditionals say about the request. */
export type PreconditionDecision =
  /** Answer normally; honour a Range if there is one. */
  | 'proceed'
  /** 304 Not Modified. */
  | 'not-modified'
  /** 412 Precondition Failed. */
  | 'precondition-failed'
  /** If-Range did not match: answer with the whole representation, ignoring the Range. */
  | 'ignore-range';

/** The representation's validators. */
export interface Validators {
  /** Entity tag with quotes, possibly `W/`-prefixed. */
  readonly etag: string;
  /** Last-Modified in whole seconds since the epoch (HTTP dates have no fractions); undefined when unknown. */
  readonly lastModifiedSeconds: number | undefined;
}

export function evaluatePreconditions(headers: IncomingHttpHeaders, validators: Validators): PreconditionDecision {
  const { etag, lastModifiedSeconds } = validators;

  // Steps 1-2: If-Match, else If-Unmodified-Since.
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    if (!matchEntityTag(ifMatch, etag, 'strong')) return 'precondition-failed';
  } else {
    const ius = headers['if-unmodified-since'];
    if (ius !== undefined && lastModifiedSeconds !== undefined) {
      const date = parseHttpDate(ius);
      if (date !== undefined && lastModifiedSeconds * 1000 > date) return 'precondition-failed';
    }
  }

  // Steps 3-4: If-None-Match, else If-Modified-Since.
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    if (matchEntityTag(ifNoneMatch, etag, 'weak')) return 'not-modified';
  } else {
    const ims = headers['if-modified-since'];
    if (ims !== undefined && lastModifiedSeconds !== undefined) {
      const date = parseHttpDate(ims);
      if (date !== undefined && lastModifiedSeconds * 1000 <= date) return 'not-modified';
    }
  }

  // Step 5: If-Range, which only matters together with a Range. Node joins repeated header
  // lines into one string, so an array is never a valid value.
  if (headers.range !== undefined) {
    const ifRange = headers['if-range'];
    if (ifRange !== undefined && !(typeof ifRange === 'string' && ifRangeMatches(ifRange, etag, lastModifiedSeconds))) {
      return 'ignore-range';
    }
  }
  return 'proceed';
}
