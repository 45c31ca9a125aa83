// The token caps of a request (2.1, 4.3 rule 2) and the one judgement on them: usage.completion_tokens never
// exceeds the cap in force, which is max_completion_tokens whenever it is present, else max_tokens.
import type { Checker } from './checker.ts';
import type { TargetResponse } from './exchange.ts';
import { askedOf, type CapPair } from './asked.ts';
import { entryPoint } from './entry.ts';

export type { CapPair } from './asked.ts';

/** Every requirement a cap judgement records. */
export const CAP_IDS = ['REQ-008', 'REQ-010', 'REQ-011', 'CHAT-008'] as const;

/** The cap in force (2.1, 4.3 rule 2): max_completion_tokens whenever present, else max_tokens. */
export function winningCap(c: CapPair): number | undefined {
  return c.max_completion_tokens ?? c.max_tokens;
}

/** The requirements a pair exercises: REQ-008 (max_tokens alone), REQ-010 (max_completion_tokens alone), REQ-011 and CHAT-008 (both). */
export function capRequirements(c: CapPair): string[] {
  if (c.max_tokens !== undefined && c.max_completion_tokens !== undefined) return ['REQ-011', 'CHAT-008'];
  return c.max_completion_tokens !== undefined ? ['REQ-010'] : ['REQ-008'];
}

export function describeCaps(c: CapPair): string {
  const parts = [c.max_tokens !== undefined ? `max_tokens ${c.max_tokens}` : '', c.max_completion_tokens !== undefined ? `max_completion_tokens ${c.max_completion_tokens}` : ''];
  return parts.filter(Boolean).join(' and ');
}

/** The caps the request of `res` carried, read back from its exchange (numbers only). */
export function capsSent(res: TargetResponse): CapPair {
  return askedOf(res)?.caps ?? {};
}

/**
 * Why an answer within the cap in force shows nothing about which cap was applied, or undefined when it does. It
 * does when it reached the cap in force (stopped by it, not by its own end), and, with both caps sent, when they
 * differ: then the other cap would have let it stop elsewhere. An answer that ended first, or two equal caps, would
 * read the same from a server that ignores the cap: no case of the rule, never a pass.
 */
export function capNotShown(caps: CapPair, used: number): string | undefined {
  const cap = winningCap(caps);
  if (cap === undefined) return 'no cap was sent';
  if (used < cap) return `${describeCaps(caps)}: the answer ended at ${used} completion tokens, before the cap in force ${cap}, so it does not show that cap applied`;
  if (caps.max_tokens !== undefined && caps.max_tokens === caps.max_completion_tokens) return `${describeCaps(caps)}: the two caps are equal, so the answer cannot show which one won`;
  return undefined;
}

/**
 * The answer `res` reports `used` completion tokens: at most the cap in force of the caps its request sent, judged
 * under the requirements those caps exercise (or the `ids` the test names), on `res`. Above the cap fails; within it
 * passes only when the answer shows the cap (capNotShown), else it is no case (not applicable). Returns whether it
 * held; undefined when the request sent no cap (nothing to judge).
 */
export const judgeCapInForce = entryPoint([...CAP_IDS], function judgeCapInForce(check: Checker, res: TargetResponse, used: number, ids?: readonly string[]): boolean | undefined {
  const caps = capsSent(res);
  const cap = winningCap(caps);
  if (cap === undefined) return undefined;
  const both = caps.max_tokens !== undefined && caps.max_completion_tokens !== undefined;
  const failure = () => `${describeCaps(caps)}: usage.completion_tokens is ${used}, above the cap in force ${cap}${both ? ' (max_completion_tokens wins over max_tokens)' : ''}`;
  const judged = ids ?? capRequirements(caps);
  const vacuous = used <= cap ? capNotShown(caps, used) : undefined;
  if (vacuous !== undefined) {
    check.notApplicable(judged, vacuous, res);
    return true;
  }
  let ok = true;
  for (const id of judged) ok = check.that(id, used <= cap, failure, res) && ok;
  return ok;
});
