// Routing preferences (2.8, 4.3 rules 4 and 5): none is a guarantee, none changes the model. What an answer to a
// request that carried preferences is held to, whatever it asked.
import type { Checker } from './checker.ts';
import { isObject } from './checks/check.ts';
import { judgeModelKept } from './comparisons.ts';
import { entryPoint } from './entry.ts';
import type { TargetResponse } from './exchange.ts';
import { judgeCompletion, judgeRefusal } from './judge-response.ts';

/**
 * ROUTE-008 on one answer: a completion names the requested entry; a refusal is a section 7 error, never an
 * answer by another model. A preference may be refused (its values are a gap), never used to substitute.
 */
export const judgeModelKeptOrRefused = entryPoint(['ROUTE-008', judgeCompletion, judgeModelKept, judgeRefusal], function judgeModelKeptOrRefused(check: Checker, res: TargetResponse, model: string, what: string): void {
  if (res.exchange.status !== 0 && res.status === 200) {
    const body = judgeCompletion(check, res, model);
    if (body) judgeModelKept(check, res, model, [body.model], what);
  } else {
    judgeRefusal(check, res, { id: 'ROUTE-008' });
  }
});

/** ROUTE-007: a preference a route may not implement is still answered: a completion or a section 7 refusal. */
export const judgeAnsweredEitherWay = entryPoint('ROUTE-007', function judgeAnsweredEitherWay(check: Checker, res: TargetResponse, what: string): void {
  const body = res.json();
  const completion = res.status === 200 && isObject(body) && Array.isArray(body.choices);
  const refusal = res.exchange.status !== 0 && res.status !== 200 && isObject(body) && isObject(body.error);
  check.that('ROUTE-007', completion || refusal, () => `a preference is never a guarantee, so a request with ${what} is either served or refused with a section 7 error; received ${res.describe()}`, res);
});
