// Bearer-credential lookup (section 5). Missing/invalid credential is a gap of the spec: the mock answers 401.
import { MockHttpError } from './errors.ts';
import type { ApiKey, KeysFixture } from './types.ts';

export type Credential = { kind: 'none' } | { kind: 'key'; key: ApiKey };

/** Index of keys by their string, built once per mock instance. */
export function indexKeys(keys: KeysFixture): Map<string, ApiKey> {
  return new Map(keys.keys.map((k) => [k.key, k]));
}

/**
 * Reads `Authorization: Bearer <key>`. No header (or an empty bearer token) is `none`; an unknown key or a
 * non-Bearer scheme throws 401 invalid_api_key.
 */
export function readCredential(headers: Headers, keys: Map<string, ApiKey>, acceptUnknown = false): Credential {
  const raw = headers.get('authorization');
  if (raw === null || raw.trim() === '') return { kind: 'none' };
  const m = /^\s*bearer\s*(.*?)\s*$/i.exec(raw);
  if (!m) throw new MockHttpError(401, 'invalid_api_key', 'the Authorization header must be "Bearer <API_KEY>"');
  const token = m[1] ?? '';
  if (token === '') return { kind: 'none' };
  // acceptUnknown (defect invalid-key-accepted): an unknown key is served as the first fixture key.
  const key = keys.get(token) ?? (acceptUnknown ? keys.values().next().value : undefined);
  if (!key) throw new MockHttpError(401, 'invalid_api_key', 'the API key is not valid');
  return { kind: 'key', key };
}

/**
 * Chat requires a credential: none gives 401 missing_api_key. `lenient` (defects invalid-key-accepted,
 * chat-without-credential) serves an unknown key, or no key, as the first fixture key.
 */
export function requireKey(headers: Headers, keys: Map<string, ApiKey>, lenient: { unknown?: boolean; none?: boolean } = {}): ApiKey {
  const cred = readCredential(headers, keys, lenient.unknown);
  if (cred.kind === 'none' && lenient.none) {
    const first = keys.values().next().value;
    if (first) return first;
  }
  if (cred.kind === 'none') {
    throw new MockHttpError(401, 'missing_api_key', 'an API key is required: send "Authorization: Bearer <API_KEY>"');
  }
  return cred.key;
}

/** Whether a key may use a model id (its explicit list, if any). */
export function keyAllows(key: ApiKey, modelId: string): boolean {
  return key.models === undefined || key.models.includes(modelId);
}

/** Whether `tier` is at least `minTier` in the catalog's tier order; unknown tiers rank below everything. */
export function tierAtLeast(tiersOrder: string[], tier: string, minTier: string): boolean {
  return tiersOrder.indexOf(tier) >= tiersOrder.indexOf(minTier);
}
