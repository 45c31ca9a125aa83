// Checks of a section 7 refusal's body: a JSON object with an `error` object holding type, code and message.
import type { TargetResponse } from '../exchange.ts';
import { check, holds, isObject } from './check.ts';

/** A refusal to judge: the non-200 response and its body parsed as JSON (undefined when it is not JSON). */
export interface Refusal {
  res: TargetResponse;
  body: unknown;
}

export const errorObjectPresent = check('ERR-001', function errorObjectPresent(r: Refusal) {
  return holds(isObject(r.body) && isObject(r.body.error), () => `a non-200 response carries a JSON object with an error object; received ${r.res.describe()}`);
});

export const ERROR_CHECKS = [errorObjectPresent] as const;
