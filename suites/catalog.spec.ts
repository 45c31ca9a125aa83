// The model catalog: GET /v1/models and GET /v1/models/{model_id} (sections 2.10, 2.11, 4.1, 4.2, 5, 9).
import { isDeepStrictEqual } from 'node:util';
import { noUsableReason } from './lib/discovery.ts';
import { judges, req, test } from './lib/test-fixtures.ts';
import { judgeModelEntry, judgeModelList } from '../judge/judge-response.ts';
import { judgeDeactivatedUnlisted, judgeEntryReadBack, judgeListWhole } from '../judge/comparisons.ts';
import type { Profile } from '../run/profile.ts';
import { unjudgedEntryFields } from '../judge/checks/schema.ts';
import type { ModelEntry } from './lib/discovery.ts';
import type { TargetResponse } from '../judge/exchange.ts';
import { slotsOf } from './lib/slots.ts';

/** At most this many single-entry reads per run: a live catalog can hold hundreds of entries. */
const MAX_ENTRY_READS = 25;
/** A live catalog may change between two reads (section 9): a mismatch is read again before it is judged. */
const REREADS = 2;

function entriesOf(res: TargetResponse): ModelEntry[] {
  const body = res.json() as { data?: unknown } | undefined;
  return Array.isArray(body?.data) ? (body.data.filter((m) => typeof m === 'object' && m !== null) as ModelEntry[]) : [];
}

/** Refusal codes that say the key may not use a model it can see: no verdict on the id itself (5, 2.10 min_tier). */
const ACCESS_REFUSALS = /^(insufficient_tier|model_not_allowed|tier|forbidden|permission)/i;

/** The models a profile names as available to some key (never its deactivated one): each is in the full list. */
function profileModels(p: Profile): string[] {
  const named = [...(p.models ?? []), ...(p.restrictedKey?.allowedModels ?? []), ...(p.lowTierKey?.deniedModels ?? []), ...(p.unavailableModel ? [p.unavailableModel] : []), ...(p.webSearch?.models ?? []), ...(p.webSearch?.unsupportedModels ?? [])];
  return [...new Set(named)].filter((id) => id !== p.deactivatedModel);
}

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('GET /v1/models', () => {
    test('answers without a credential with the model list', req('AUTH-005', 'VER-001', judges(judgeModelList)), async ({ target, check }) => {
      const res = await target.get('/v1/models', { key: null });
      // The /v1 prefix is shown by the route answering at all: a 401 here is AUTH-005's failure, not VER-001's.
      check.status('VER-001', res, (s) => s !== 404 && s !== 405, 'under the /v1 prefix, a status that shows the route exists (not 404 or 405)');
      judgeModelList(check, res, 'AUTH-005');
    });

    test('answers with the run credential', req('AUTH-006', 'AUTH-001', 'CAT-031', judges(judgeModelList)), async ({ target, check }) => {
      const res = await target.get('/v1/models');
      check.status('AUTH-001', res, 200, 'with Authorization: Bearer <key>, status');
      check.status('CAT-031', res, 200, 'for a bare GET (no body, no parameters), status');
      // An empty catalog is a legal list: it fails nothing, it only leaves the entry rules unjudged (the coverage says so).
      const entries = judgeModelList(check, res, 'AUTH-006');
      // What the catalog itself gives no case of is skipped for that reason, on every target alike, never untested
      // here and blamed on another read's failure there.
      if (res.status === 200) for (const u of unjudgedEntryFields(entries)) check.cannotJudge([u.id], { message: u.reason, on: res });
    });

    test('records what the catalog uses where the contract is silent', req('OBS-003', 'OBS-004', 'OBS-005', 'OBS-006', 'OBS-007', 'CAT-006', 'OBS-033', 'OBS-034'), async ({ target, check }) => {
      const res = await target.get('/v1/models');
      const entries = entriesOf(res);
      if (entries.length === 0) return check.skip(`the catalog could not be read: ${res.describe()}`);
      const values = (field: string) => [...new Set(entries.map((m) => m[field]).filter((v) => v !== undefined))];
      const missingTier = entries.filter((m) => typeof m.min_tier !== 'string').map((m) => m.id);
      check.that('CAT-006', missingTier.length === 0, () => `entries without a string min_tier: ${missingTier.join(', ')}`, res);
      check.observe('OBS-003', values('min_tier'), 'min_tier values', res);
      check.observe('OBS-004', values('credit_tier'), 'credit_tier values', res);
      check.observe('OBS-005', values('api_format'), 'api_format values', res);
      check.observe('OBS-006', values('thinking_config').slice(0, 5), 'thinking_config blocks (first 5 distinct)', res);
      check.observe('OBS-007', values('tiers').slice(0, 5), 'tiers blocks (first 5 distinct)', res);
      const signals = Object.entries(res.headers).filter(([k]) => /deprecat|sunset|api-version|version/i.test(k));
      check.observe('OBS-033', Object.fromEntries(signals.filter(([k]) => /deprecat|sunset/i.test(k))), 'deprecation headers on GET /v1/models', res);
      check.observe('OBS-034', Object.fromEntries(signals.filter(([k]) => /version/i.test(k))), 'version headers on GET /v1/models', res);
    });

    test('the list is the whole catalog: no further page, every model the profile names is listed', req('CAT-045', judges(judgeListWhole)), async ({ target, check, config }) => {
      const list = await target.get('/v1/models');
      if (!check.status('CAT-045', list, (s) => s !== 0)) return;
      if (list.status !== 200) return check.skip(`the catalog could not be read: ${list.describe()}`);
      const ids = entriesOf(list).map((m) => m.id);
      // Read one by one only what the list left out: a model the single read serves is available to this key.
      const unlisted = profileModels(config.profile).filter((id) => !ids.includes(id)).slice(0, MAX_ENTRY_READS);
      const readBack = [];
      for (const id of unlisted) readBack.push({ id, res: await target.get(`/v1/models/${encodeURIComponent(id)}`) });
      judgeListWhole(check, list, ids, readBack);
    });

    test('a restricted key sees the models it may use', req('CAT-034', 'AUTH-007'), async ({ target, check, config }) => {
      const restricted = config.profile.restrictedKey;
      if (!restricted) return check.skip('the profile names no restricted key (restrictedKey)');
      const res = await target.get('/v1/models', { key: restricted.key, keyVar: 'RESTRICTED_KEY' });
      if (!check.status('AUTH-007', res, 200, 'with the restricted key, status')) return;
      const listed = entriesOf(res).map((m) => m.id);
      const outside = listed.filter((id) => !restricted.allowedModels.includes(id));
      check.that('CAT-034', outside.length === 0, () => `the restricted key's list shows models outside its allowed list: ${outside.join(', ')}`, res);
      const full = entriesOf(await target.get('/v1/models')).map((m) => m.id);
      const missing = restricted.allowedModels.filter((id) => full.includes(id) && !listed.includes(id));
      check.that('AUTH-007', missing.length === 0, () => `allowed models missing from the restricted key's list: ${missing.join(', ')}`, res);
    });

    test('a deactivated model is not listed', req('CAT-039', judges(judgeDeactivatedUnlisted)), async ({ target, check, config }) => {
      const deactivated = config.profile.deactivatedModel;
      if (!deactivated) return check.skip('the profile names no deactivated model (deactivatedModel)');
      const list = await target.get('/v1/models');
      judgeDeactivatedUnlisted(check, list, entriesOf(list).map((m) => m.id), deactivated);
    });

    test('every listed model is active: a completion naming it is not refused as deactivated', req('CAT-033', 'CAT-004'), async ({ target, check, discovery }) => {
      // Every listed id, not only those discovery found usable: a deactivated model that is still listed is exactly
      // the one a usable-model filter would hide.
      const models = discovery.models.slice(0, 8);
      if (models.length === 0) return check.skip(noUsableReason(discovery, 'model'));
      for (const m of models) {
        const res = await target.chat({ model: m.id, messages: [{ role: 'user', content: 'Say hello.' }], max_completion_tokens: 8 });
        if (!check.status('CAT-033', res, (s) => s !== 0)) continue;
        const code = (res.json() as { error?: { code?: unknown } } | undefined)?.error?.code;
        check.that('CAT-033', code !== 'model_not_found', () => `listed model ${m.id} refused as deactivated: ${res.describe()}`, res);
        // A refusal that is about the key (its tier, its model list) or the moment (unavailable, rate limited)
        // says nothing against the id: the id is accepted as a model, this caller just may not use it now.
        const aboutAccess = typeof code === 'string' && (ACCESS_REFUSALS.test(code) || code === 'model_unavailable');
        if (res.status !== 200 && (aboutAccess || res.status === 429 || res.status === 503)) {
          check.cannotJudge(['CAT-004'], { message: `the run's key may not use listed model ${m.id} now: ${res.describe()}`, on: res });
          continue;
        }
        check.status('CAT-004', res, 200, `listed id ${m.id} as model, status`);
      }
    });
  });

  test.describe('GET /v1/models/{model_id}', () => {
    test('each listed entry reads back identically, with and without a credential', req('CAT-036', 'CAT-037', 'AUTH-005', 'AUTH-006', judges(judgeModelEntry, judgeEntryReadBack)), async ({ target, check, discovery }) => {
      const list = await target.get('/v1/models');
      check.status('AUTH-006', list, 200, 'GET /v1/models with a credential, status');
      const entries = entriesOf(list);
      // A run pinned to models whose list is unreadable still reads each pinned entry (CAT-036): the route answers
      // whatever the list does; only the comparison with the list (CAT-037) waits for a list, and says which failure.
      if (entries.length === 0 && discovery.listError !== undefined && discovery.pinned !== undefined && discovery.pinned.length > 0) {
        for (const id of discovery.pinned.slice(0, MAX_ENTRY_READS)) {
          const path = `/v1/models/${encodeURIComponent(id)}`;
          judgeModelEntry(check, await target.get(path), id, `GET ${path} (a pinned model; the list is unreadable)`);
        }
        const failed = check.firstFailureOn(check.exchangeIndex(list));
        return check.cannotJudge(['CAT-037'], { ...(failed ? { id: failed } : {}), message: `no model list to compare the entries with: ${list.describe()}`, on: list });
      }
      if (entries.length === 0) return check.skip(`the catalog lists no entry to read back: ${list.describe()}`);
      const anonymous = entriesOf(await target.get('/v1/models', { key: null }));
      /**
       * The entry as GET /v1/models/{id} gives it equals the listed one (CAT-037). The catalog is live (section 9):
       * on a mismatch both are read again, and only a mismatch that persists is judged.
       */
      const readBack = async (path: string, res: TargetResponse, body: unknown, listed: ModelEntry, key: null | undefined, what: string): Promise<void> => {
        let one = body;
        let entry: unknown = listed;
        for (let i = 0; i < REREADS && !isDeepStrictEqual(one, entry); i++) {
          res = await target.get(path, { key });
          one = res.json();
          entry = entriesOf(await target.get('/v1/models', { key })).find((m) => m.id === listed.id);
        }
        judgeEntryReadBack(check, res, one, entry, what);
      };
      for (const entry of entries.slice(0, MAX_ENTRY_READS)) {
        const path = `/v1/models/${encodeURIComponent(entry.id)}`;
        const keyed = await target.get(path);
        const body = judgeModelEntry(check, keyed, entry.id, `GET ${path}`);
        if (body) await readBack(path, keyed, body, entry, undefined, `GET ${path}`);
        const anon = await target.get(path, { key: null });
        // A route that does not answer with a credential either (CAT-036) says nothing of authentication by its
        // answer without one: a 401 there is the missing route's consequence, not a second deviation (AUTH-005).
        if (keyed.status !== 200 && anon.status !== 200 && anon.status !== 0) {
          check.cannotJudge(['AUTH-005'], { id: 'CAT-036', message: `GET /v1/models/{id} gives no entry with a credential either (HTTP ${keyed.status}): HTTP ${anon.status} without one is not judged`, on: anon });
        } else check.status('AUTH-005', anon, 200, `GET ${path} without a credential, status`);
        const listedAnon = anonymous.find((m) => m.id === entry.id);
        // A 200 without a credential is read like any entry (CAT-036); only an entry is compared with the list.
        const anonBody = anon.status === 200 ? judgeModelEntry(check, anon, entry.id, `GET ${path} without a credential`) : undefined;
        if (listedAnon && anonBody) await readBack(path, anon, anonBody, listedAnon, null, `GET ${path} without a credential`);
      }
    });

    test('an id with a reserved character is found when percent-encoded', req('CAT-038'), async ({ target, check }) => {
      const entries = entriesOf(await target.get('/v1/models'));
      const reserved = entries.find((m) => /[/:?#@ ]/.test(m.id));
      if (!reserved) return check.skip('no listed id contains a path-reserved character');
      const res = await target.get(`/v1/models/${encodeURIComponent(reserved.id)}`);
      if (res.status !== 200) {
        // Percent-encoding is only in question where a plain id is found: else the route itself is missing (CAT-036).
        const plain = entries.find((m) => !/[/:?#@ %]/.test(m.id));
        const control = plain ? await target.get(`/v1/models/${encodeURIComponent(plain.id)}`) : undefined;
        if (control && control.status !== 200 && control.status !== 0) {
          return check.cannotJudge(['CAT-038'], { id: 'CAT-036', message: `GET /v1/models/{id} does not find a plain listed id either (HTTP ${control.status})`, on: control });
        }
      }
      check.that('CAT-038', res.status === 200 && (res.json() as ModelEntry | undefined)?.id === reserved.id, () => `GET /v1/models/${encodeURIComponent(reserved.id)}: ${res.describe()}`, res);
    });
  });
});
