// Arbitraries of the two token caps (2.1): presence, absence and values of max_tokens and max_completion_tokens,
// within the profile's budget (budget.maxTokensPerRequest). At least one is present: the target client adds the
// budget's cap to a request that names none, so "both absent" cannot be sent to a paid deployment.
import fc from 'fast-check';

export interface CapPair {
  max_tokens?: number;
  max_completion_tokens?: number;
}

/** Caps from 1 to `maxTokensPerRequest` (0 and out-of-range values are a gap of the spec: OBS-016). */
export const capPair = (maxTokensPerRequest: number): fc.Arbitrary<CapPair> => {
  const cap = fc.integer({ min: 1, max: Math.max(1, maxTokensPerRequest) });
  return fc
    .record({ max_tokens: cap, max_completion_tokens: cap }, { requiredKeys: [] })
    .filter((c) => c.max_tokens !== undefined || c.max_completion_tokens !== undefined);
};

/** The cap in force (2.1, 4.3 rule 2): max_completion_tokens whenever present, else max_tokens. */
export function winningCap(c: CapPair): number {
  return c.max_completion_tokens ?? c.max_tokens!;
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
