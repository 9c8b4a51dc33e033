// The first check every assisted API request passes after JSON parsing: no control characters
// in query parameters (names or values) or anywhere in the JSON body, and no JSON nested
// deeper than MAX_JSON_DEPTH. Offending requests get a 400 naming the parameter or field.
//
// Query values follow the `line` rule, body strings the `multiline` rule (tab/LF/CR allowed;
// fields that must be one line are checked again by their own validators). Does not know
// any field's format.
import type { NextFunction, Request, Response } from 'express';
import { assertCleanJson, assertCleanText } from './clean-text.js';

export function inputGuard(req: Request, _res: Response, next: NextFunction): void {
  try {
    for (const [name, value] of Object.entries(req.query)) {
      assertCleanText('query parameter name', name, 'line');
      for (const v of Array.isArray(value) ? value : [value]) {
        if (typeof v === 'string') assertCleanText(`query parameter ${name}`, v, 'line');
        else assertCleanJson(`query parameter ${name}`, v, 1);
      }
    }
    const body = req.body as unknown;
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
        assertCleanText('body field name', k, 'line');
        assertCleanJson(k, v, 1);
      }
    } else {
      assertCleanJson('request body', body);
    }
    next();
  } catch (err) {
    next(err);
  }
}
