// Properties: web_search_options validation (2.7, section 7) against the live target, on a model that serves
// hosted search. Valid user_location objects from the spec's grammar are accepted; invalid ones, each with one
// labelled fault, are refused with 400 invalid_web_search_options and the fixed message of its row; the same
// for search_context_size. Each case is judged as web-search.spec.ts judges the same input (one judgement of an
// acceptance, one of a rejection), and only inputs that spec judges are generated: no city or region longer than its
// own (the bound is a gap of section 8), no field sent as null.
import { judges, req, test } from '../lib/test-fixtures.ts';
import type { Checker } from '../../judge/checker.ts';
import type { Discovery } from '../lib/discovery.ts';
import { contextSize, invalidLocation, validLocation, type LocationFault } from '../lib/properties/arb/location.ts';
import { checkProperty, type CaseChecker } from '../lib/properties/runner.ts';
import { judgeOptionsRejected, searchTakers, skipForSearch, SEARCH_MESSAGES, SEARCH_PROMPT } from '../lib/requests/search.ts';
import { judgeRefusal } from '../../judge/judge-response.ts';
import type { Target, TargetResponse } from '../../run/target.ts';
import { slotsOf } from '../lib/slots.ts';

/** Per fault: the requirement the rejection proves, the section 7 row (400 invalid_web_search_options, its message). */
const FAULT_RULES: Record<LocationFault, { rejected: string; row: string; message: string }> = {
  'wrong-type': { rejected: 'SEARCH-047', row: 'SEARCH-047', message: SEARCH_MESSAGES.locationType },
  mixed: { rejected: 'SEARCH-011', row: 'SEARCH-048', message: SEARCH_MESSAGES.locationMixed },
  'unknown-field': { rejected: 'SEARCH-012', row: 'SEARCH-049', message: SEARCH_MESSAGES.locationMalformed },
  'malformed-country': { rejected: 'SEARCH-014', row: 'SEARCH-049', message: SEARCH_MESSAGES.locationMalformed },
  'bogus-timezone': { rejected: 'SEARCH-019', row: 'SEARCH-049', message: SEARCH_MESSAGES.locationMalformed },
  'wrong-json-type': { rejected: 'SEARCH-013', row: 'SEARCH-049', message: SEARCH_MESSAGES.locationMalformed },
};

/** The model every case asks: the first one the discovery probe saw serve hosted search. */
function searchModel(check: Checker, discovery: Discovery): string {
  const { models, reason } = searchTakers(discovery);
  if (models.length === 0) return skipForSearch(check, discovery, `no model serves hosted search: ${reason}`);
  return models[0]!.model;
}

/** The same request as the discovery probe (same prompt, same budget cap), with the generated options. */
function ask(target: Target, model: string, options: Record<string, unknown>): Promise<TargetResponse> {
  return target.chat({ model, messages: [{ role: 'user', content: SEARCH_PROMPT }], web_search_options: options });
}

/**
 * A valid option was accepted: status 200, as web-search.spec.ts requires of the same model (the discovery probe saw it
 * serve search, so web_search_not_supported is a refusal of a valid option there too).
 */
function accepted(cc: CaseChecker, res: TargetResponse, ids: string[], what: string): void {
  for (const id of ids) cc.status(id, res, 200, `${what} is valid (2.7) and must be accepted: status`);
}

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('property: web_search_options validation', () => {
    test(
      'valid user_location objects (nested or flat, real countries and time zones, short city and region) are accepted',
      req('SEARCH-008', 'SEARCH-009', 'SEARCH-010', 'SEARCH-014', 'SEARCH-015', 'SEARCH-017', 'SEARCH-019'),
      async ({ target, check, discovery, config }) => {
        const model = searchModel(check, discovery);
        await checkProperty(
          { check, target, config },
          {
            law: 'a user_location of the 2.7 grammar is accepted',
            arbitrary: validLocation(),
            describe: (l) => `${l.form} location ${JSON.stringify(l.value)}`,
            run: async (l, cc) => {
              const res = await ask(target, model, { user_location: l.value });
              // Charged to what the location exercises: its form and each field it carries.
              const ids = ['SEARCH-008', l.form === 'nested' ? 'SEARCH-009' : 'SEARCH-010'];
              if (l.fields.country !== undefined) ids.push('SEARCH-014');
              if (l.fields.city !== undefined) ids.push('SEARCH-015');
              if (l.fields.region !== undefined) ids.push('SEARCH-017');
              if (l.fields.timezone !== undefined) ids.push('SEARCH-019');
              accepted(cc, res, ids, `the ${l.form} location ${JSON.stringify(l.value)}`);
            },
          },
        );
      },
    );

    test(
      'invalid user_location objects are refused with 400 invalid_web_search_options and the fixed message of their fault',
      req('SEARCH-011', 'SEARCH-012', 'SEARCH-013', 'SEARCH-014', 'SEARCH-019', 'SEARCH-047', 'SEARCH-048', 'SEARCH-049', judges(judgeRefusal)),
      async ({ target, check, discovery, config }) => {
        const model = searchModel(check, discovery);
        await checkProperty(
          { check, target, config },
          {
            law: 'a user_location with one fault is refused with status 400, code invalid_web_search_options and the message of its section 7 row',
            arbitrary: invalidLocation(),
            describe: (l) => `${l.fault}: ${l.label}; user_location ${JSON.stringify(l.value)}`,
            run: async (l, cc) => {
              const res = await ask(target, model, { user_location: l.value });
              const rule = FAULT_RULES[l.fault];
              judgeOptionsRejected(cc, res, { id: rule.rejected, label: `user_location with ${l.label}` }, { id: rule.row, message: rule.message });
            },
          },
        );
      },
    );

    test(
      'search_context_size: low, medium, high or absent are accepted; any other value is refused with 400 and the fixed message',
      req('SEARCH-005', 'SEARCH-006', 'SEARCH-007', 'SEARCH-046', judges(judgeRefusal)),
      async ({ target, check, discovery, config }) => {
        const model = searchModel(check, discovery);
        await checkProperty(
          { check, target, config },
          {
            law: 'search_context_size is accepted exactly when it is low, medium, high or absent',
            arbitrary: contextSize(),
            describe: (c) => (c.valid && c.value === undefined ? 'search_context_size absent' : `search_context_size ${JSON.stringify(c.value)}`),
            run: async (c, cc) => {
              const options = c.value === undefined ? {} : { search_context_size: c.value };
              const res = await ask(target, model, options);
              if (c.valid) {
                accepted(cc, res, [c.value === undefined ? 'SEARCH-006' : 'SEARCH-005'], c.value === undefined ? 'web_search_options without search_context_size' : `search_context_size ${JSON.stringify(c.value)}`);
                return;
              }
              const label = `search_context_size ${JSON.stringify(c.value)}`;
              judgeOptionsRejected(cc, res, { id: 'SEARCH-007', label }, { id: 'SEARCH-046', message: SEARCH_MESSAGES.contextSize });
              cc.status('SEARCH-007', res, 400, `for ${label}, status`);
            },
          },
        );
      },
    );
  });
});
