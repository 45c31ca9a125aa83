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
// honours: AUTH-001, AUTH-003 (Bearer <API_KEY>; an unknown key is 401 invalid_api_key)
export function readCredential(authorization: string | undefined, keys: Map<string, ApiKey>): Credential {
  if (authorization === undefined || authorization.trim() === '') return { kind: 'none' };
  const m = /^\s*bearer\s*(.*?)\s*$/i.exec(authorization);
  if (!m) throw new MockHttpError(401, 'invalid_api_key', 'the Authorization header must be "Bearer <API_KEY>"');
  const token = m[1] ?? '';
  if (token === '') return { kind: 'none' };
  const key = keys.get(token);
  if (!key) throw new MockHttpError(401, UNKNOWN_KEY.code, UNKNOWN_KEY.message);
  return { kind: 'key', key };
}

/** The refusal of a well-formed bearer key that is not known. */
export const UNKNOWN_KEY = { code: 'invalid_api_key', message: 'the API key is not valid' } as const;

/** The credential of a request; chat requires one (none gives 401 missing_api_key), the catalog does not. */
// honours: AUTH-002, AUTH-004 (chat without a credential: 401 missing_api_key)
export function authenticate(authorization: string | undefined, keys: Map<string, ApiKey>, required: boolean): ApiKey | undefined {
  const cred = readCredential(authorization, keys);
  if (cred.kind === 'key') return cred.key;
  if (required) throw new MockHttpError(401, 'missing_api_key', 'an API key is required: send "Authorization: Bearer <API_KEY>"');
  return undefined;
}

/** Whether a key may use a model id (its explicit list, if any). */
export function keyAllows(key: ApiKey, modelId: string): boolean {
  return key.models === undefined || key.models.includes(modelId);
}

/** Whether `tier` is at least `minTier` in the catalog's tier order; unknown tiers rank below everything. */
export function tierAtLeast(tiersOrder: string[], tier: string, minTier: string): boolean {
  return tiersOrder.indexOf(tier) >= tiersOrder.indexOf(minTier);
}
