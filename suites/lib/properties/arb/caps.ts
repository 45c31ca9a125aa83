// Arbitraries of the two token caps (2.1): presence, absence and values of max_tokens and max_completion_tokens,
// within the profile's budget (budget.maxTokensPerRequest). At least one is present: the target client adds the
// budget's cap to a request that names none, so "both absent" cannot be sent to a paid deployment.
import fc from 'fast-check';

// The pair and its reading (the cap in force, the requirements it exercises) are the judge's (judge/token-caps.ts).
import type { CapPair } from '../../../../judge/token-caps.ts';

export { capRequirements, describeCaps, winningCap, type CapPair } from '../../../../judge/token-caps.ts';

/** Caps from 1 to `maxTokensPerRequest` (0 and out-of-range values are a gap of the spec: OBS-016). */
export const capPair = (maxTokensPerRequest: number): fc.Arbitrary<CapPair> => {
  const cap = fc.integer({ min: 1, max: Math.max(1, maxTokensPerRequest) });
  return fc
    .record({ max_tokens: cap, max_completion_tokens: cap }, { requiredKeys: [] })
    .filter((c) => c.max_tokens !== undefined || c.max_completion_tokens !== undefined);
};
