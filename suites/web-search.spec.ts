// Hosted web search (sections 2.7, 2.9, 4.3 rule 6, 6 rule 8, 7, 8): requesting it (web_search_options or a
// bare web_search tool), validating its options, reporting its provenance, and the upfront refusals: a model
// that cannot search, and an output budget below the entry's minimum. Which models search is learned by the
// discovery probes (suites/lib/discovery.ts), never assumed.
import { judges, req, test } from './lib/test-fixtures.ts';
import { judgeRefusal, judgeStream } from '../judge/judge-response.ts';
import { assembledCompletion } from '../judge/checks/stream.ts';
import { describeReport, errorOf, judgeProvenancePlacement, judgeRefusalUnbilled, judgeSearchAnswer, judgeStreamProvenance, judgeUpfront, searched, searchReport } from '../judge/search.ts';
import { searchTakers } from './lib/requests/search.ts';
import type { Checker } from '../judge/checker.ts';
import type { Discovery } from './lib/discovery.ts';
import type { Target, TargetResponse } from '../run/target.ts';
import {
  BAD_CONTEXT_SIZES,
  BUDGET_MESSAGE,
  FLAT_LOCATION,
  MALFORMED_LOCATION_FIELDS,
  NESTED_LOCATION,
  SEARCH_MESSAGES,
  SEARCH_PROMPT,
  UNKNOWN_LOCATION_FIELDS,
  WEB_SEARCH_TOOL,
  capsBelow,
  judgeOptionsRejected,
  probed,
  skipForSearch,
  unclassified,
  type InvalidCase,
} from './lib/requests/search.ts';
import { slotsOf } from './lib/slots.ts';

type Json = Record<string, unknown>;

const ask = (target: Target, model: string, extra: Json): Promise<TargetResponse> =>
  target.chat({ model, messages: [{ role: 'user', content: SEARCH_PROMPT }], ...extra });

/** What every search answer is held to (judgeSearchAnswer): the completion rules, provenance in its place, action urls. */
const ANSWER_IDS = ['SEARCH-034', 'SEARCH-041', 'SEARCH-042'];

/** A model the probes found able to search, or a skip naming what the probes found. */
function capableModel(check: Checker, discovery: Discovery): string {
  const { models, reason } = searchTakers(discovery);
  if (!models[0]) return skipForSearch(check, discovery, reason);
  return models[0].model;
}

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('requesting hosted search', () => {
    test('web_search_options and a bare web_search tool both request search and report its provenance', req('SEARCH-001', 'SEARCH-002', 'SEARCH-003', 'SEARCH-004', 'SEARCH-006', ...ANSWER_IDS, judges(judgeSearchAnswer), { modelDependent: true }), async ({ target, check, discovery }) => {
      const model = capableModel(check, discovery);
      // web_search_options without search_context_size: the endpoint applies its default (SEARCH-006).
      const viaOptions = await ask(target, model, { web_search_options: {} });
      check.status('SEARCH-001', viaOptions, 200, `web_search_options {} on ${model}, which the probe found able to search, must be accepted: status`);
      check.status('SEARCH-006', viaOptions, 200, `web_search_options without search_context_size (the default applies) must be accepted: status`);
      const answerA = judgeSearchAnswer(check, viaOptions, model, 'web_search_options');
      const a = searchReport(answerA);
      if (answerA) check.that('SEARCH-002', searched(a), () => `web_search_options requests hosted search, but the answer reports none: ${describeReport(a)}`, viaOptions);

      const viaTool = await ask(target, model, { tools: [WEB_SEARCH_TOOL] });
      check.status('SEARCH-003', viaTool, 200, `a bare {"type":"web_search"} tools entry on ${model} must be accepted as a request for search: status`);
      const answerB = judgeSearchAnswer(check, viaTool, model, 'bare web_search tool');
      const b = searchReport(answerB);
      if (answerB) check.that('SEARCH-003', searched(b), () => `a bare web_search tool requests hosted search, but the answer reports none: ${describeReport(b)}`, viaTool);

      check.that('SEARCH-004', viaOptions.status === viaTool.status, () => `both forms count as a request for search: web_search_options got HTTP ${viaOptions.status}, the bare web_search tool HTTP ${viaTool.status}`, viaTool.status !== 200 ? viaTool : viaOptions);
      if (answerA && answerB) {
        check.that('SEARCH-004', searched(a) === searched(b), () => `both forms count as a request for search, but only one reported a search: web_search_options ${describeReport(a)}; bare tool ${describeReport(b)}`, searched(b) ? viaOptions : viaTool);
      }
    });

    test('search_context_size "low", "medium" and "high" are each accepted', req('SEARCH-005', ...ANSWER_IDS, judges(judgeSearchAnswer)), async ({ target, check, discovery }) => {
      const model = capableModel(check, discovery);
      for (const size of ['low', 'medium', 'high'] as const) {
        const res = await ask(target, model, { web_search_options: { search_context_size: size } });
        check.status('SEARCH-005', res, 200, `search_context_size ${JSON.stringify(size)} must be accepted: status`);
        judgeSearchAnswer(check, res, model, `search_context_size ${size}`);
      }
    });

    test('a streamed search answer carries its provenance inside a delta', req('SEARCH-002', 'SEARCH-041', 'SEARCH-042', 'STREAM-015', judges(judgeStream, judgeStreamProvenance, judgeProvenancePlacement), { modelDependent: true }), async ({ target, check, discovery }) => {
      const model = capableModel(check, discovery);
      const res = await ask(target, model, { web_search_options: {}, stream: true, stream_options: { include_usage: true } });
      const s = judgeStream(check, res, model, { expectText: true });
      if (!s || s.outcome !== 'complete' || s.chunks.length === 0) return; // what is wrong was charged by judgeStream
      judgeStreamProvenance(check, s, res);
      const r = searchReport(assembledCompletion(s));
      check.that('SEARCH-002', searched(r), () => `web_search_options requests hosted search, but the stream reports none: ${describeReport(r)}`, res);
      judgeProvenancePlacement(check, r, 'streamed answer', res);
    });
  });

  /** An invalid web_search_options: rejected (the 2.7 requirement), with the section 7 row's 400, code and text. */
  async function expectRejected(check: Checker, target: Target, model: string, c: InvalidCase, row: { id: string; message: string }): Promise<TargetResponse> {
    const res = await ask(target, model, { web_search_options: c.options });
    judgeOptionsRejected(check, res, c, row);
    return res;
  }

  test.describe('web_search_options validation (section 7, invalid_web_search_options)', () => {
    // Sent to a model that can search, so a rejection is about the options, whether the target validates them
    // before or after its capability gate.
    test('search_context_size other than low, medium, high: 400 with the fixed message', req('SEARCH-007', 'SEARCH-046', judges(judgeRefusal)), async ({ target, check, discovery }) => {
      const model = capableModel(check, discovery);
      for (const c of BAD_CONTEXT_SIZES) {
        const res = await expectRejected(check, target, model, c, { id: 'SEARCH-046', message: SEARCH_MESSAGES.contextSize });
        check.status('SEARCH-007', res, 400, `for ${c.label}, status`);
      }
    });

    test('user_location.type other than "approximate": 400 with the fixed message', req('SEARCH-047', judges(judgeRefusal)), async ({ target, check, discovery }) => {
      const model = capableModel(check, discovery);
      const c: InvalidCase = { id: 'SEARCH-047', label: 'user_location.type "precise"', options: { user_location: { type: 'precise', country: 'FR' } } };
      await expectRejected(check, target, model, c, { id: 'SEARCH-047', message: SEARCH_MESSAGES.locationType });
    });

    test('nested and flat location fields mixed: rejected, 400 with the fixed message', req('SEARCH-011', 'SEARCH-048', judges(judgeRefusal)), async ({ target, check, discovery }) => {
      const model = capableModel(check, discovery);
      const c: InvalidCase = { id: 'SEARCH-011', label: 'a nested approximate object beside a flat city', options: { user_location: { type: 'approximate', approximate: { country: 'FR' }, city: 'Paris' } } };
      await expectRejected(check, target, model, c, { id: 'SEARCH-048', message: SEARCH_MESSAGES.locationMixed });
    });

    test('an unknown location field, flat or nested: rejected, 400 with the fixed message', req('SEARCH-012', 'SEARCH-049', judges(judgeRefusal)), async ({ target, check, discovery }) => {
      const model = capableModel(check, discovery);
      for (const c of UNKNOWN_LOCATION_FIELDS) await expectRejected(check, target, model, c, { id: 'SEARCH-049', message: SEARCH_MESSAGES.locationMalformed });
    });

    test('a malformed location field (wrong type, bad country, bad time zone): rejected, 400 with the fixed message', req('SEARCH-013', 'SEARCH-014', 'SEARCH-019', 'SEARCH-049', judges(judgeRefusal)), async ({ target, check, discovery }) => {
      const model = capableModel(check, discovery);
      for (const c of MALFORMED_LOCATION_FIELDS) await expectRejected(check, target, model, c, { id: 'SEARCH-049', message: SEARCH_MESSAGES.locationMalformed });
    });
  });

  test.describe('valid locations', () => {
    const LOCATION_IDS = ['SEARCH-008', 'SEARCH-014', 'SEARCH-015', 'SEARCH-017', 'SEARCH-019'];
    for (const [form, id, location] of [
      ['nested approximate object', 'SEARCH-009', NESTED_LOCATION],
      ['flat fields', 'SEARCH-010', FLAT_LOCATION],
    ] as const) {
      test(`a location with ${form} (ISO country, IANA time zone, short city and region) is accepted`, req(id, ...LOCATION_IDS, ...ANSWER_IDS, judges(judgeSearchAnswer)), async ({ target, check, discovery }) => {
        const model = capableModel(check, discovery);
        const res = await ask(target, model, { web_search_options: { user_location: location } });
        const fields = 'approximate' in location ? location.approximate : location;
        const accepted = (rid: string, what: string) => check.status(rid, res, 200, `${what} (user_location ${JSON.stringify(location)}) must be accepted: status`);
        accepted(id, `a user_location with ${form}`);
        accepted('SEARCH-008', 'user_location with type "approximate"');
        accepted('SEARCH-014', `country ${JSON.stringify(fields.country)} (ISO 3166-1 alpha-2)`);
        accepted('SEARCH-015', `a short city ${JSON.stringify(fields.city)}`);
        accepted('SEARCH-017', `a short region ${JSON.stringify(fields.region)}`);
        accepted('SEARCH-019', `timezone ${JSON.stringify(fields.timezone)} (an IANA name)`);
        judgeSearchAnswer(check, res, model, `user_location with ${form}`);
      });
    }
  });

  test.describe('location length bounds (a gap: section 8 does not give them)', () => {
    const LONG = 1000;
    test(`a ${LONG}-character city and region: what the target does is recorded; a rejection is the malformed-field row`, req('OBS-031', 'OBS-032', 'SEARCH-016', 'SEARCH-018', 'SEARCH-049', judges(judgeRefusal)), async ({ target, check, discovery }) => {
      const model = capableModel(check, discovery);
      const accepted: string[] = [];
      for (const [field, obs, id] of [['city', 'OBS-031', 'SEARCH-016'], ['region', 'OBS-032', 'SEARCH-018']] as const) {
        const value = `${field === 'city' ? 'Springfield' : 'Northshire'}${'x'.repeat(LONG)}`.slice(0, LONG);
        const res = await ask(target, model, { web_search_options: { user_location: { type: 'approximate', country: 'US', [field]: value } } });
        const err = errorOf(res);
        check.observe(obs, { length: LONG, status: res.status, ...(err ? { code: err.code, message: err.message } : {}) }, `user_location.${field} of ${LONG} characters`, res);
        if (res.status === 200) {
          accepted.push(field);
          continue;
        }
        // The bound is unknown, but a target that refuses this length has a bound below it: the refusal is the
        // "unknown or malformed field" row (2.7: a city/region longer than the bound is malformed).
        judgeRefusal(check, res, { id: 'SEARCH-049', status: 400, code: 'invalid_web_search_options', message: SEARCH_MESSAGES.locationMalformed, statusText: `for a ${LONG}-character ${field}, status` });
        check.that(id, err?.code === 'invalid_web_search_options' && err?.message === SEARCH_MESSAGES.locationMalformed, () => `a ${field} longer than the bound is rejected as malformed ("${SEARCH_MESSAGES.locationMalformed}"); received ${res.describe()}`, res);
      }
      if (accepted.length > 0) {
        check.markSkipped(`the target accepted a ${LONG}-character ${accepted.join(' and ')}; the bound is not in the contract (section 8) nor in the profile, so an over-long value cannot be chosen honestly`);
      }
    });
  });

  test.describe('refusals happen upfront and leave no partial answer', () => {
    test('a model that cannot search: web_search_not_supported with the fixed message, for both forms and when streamed', req('SEARCH-045', 'SEARCH-043', 'SEARCH-044', 'SEARCH-004', 'OBS-022', judges(judgeRefusal, judgeUpfront)), async ({ target, check, discovery }) => {
      // A model refused with neither search refusal is judged here too: its refusal breaks this rule.
      const { models, reason } = probed(discovery, 'unsupported');
      const model = models[0]?.model ?? unclassified(discovery)[0]?.model;
      if (!model) return check.skip(reason);
      const forms: { label: string; extra: Json }[] = [
        { label: 'web_search_options', extra: { web_search_options: {} } },
        { label: 'a bare web_search tool', extra: { tools: [WEB_SEARCH_TOOL] } },
        { label: 'web_search_options with stream true', extra: { web_search_options: {}, stream: true } },
      ];
      const seen: Json[] = [];
      const sent: TargetResponse[] = [];
      for (const { label, extra } of forms) {
        const res = await ask(target, model, extra);
        judgeRefusal(check, res, { id: 'SEARCH-045', code: 'web_search_not_supported', message: SEARCH_MESSAGES.notSupported });
        judgeUpfront(check, res, ['SEARCH-043'], 'SEARCH-044', `${label} on ${model}`);
        sent.push(res);
        seen.push({ form: label, status: res.status, code: errorOf(res)?.code });
      }
      const [options, tool] = seen;
      check.that('SEARCH-004', options!.status === tool!.status && options!.code === tool!.code, () => `both forms count as a request for search, so both are refused alike; received ${JSON.stringify(seen.slice(0, 2))}`, sent[tool!.code !== 'web_search_not_supported' ? 1 : 0]!);
      check.observe('OBS-022', seen, `status of web_search_not_supported on ${model}`, null /* one request per form */);
    });

    test('an output budget below the entry minimum: refused upfront, at no cost, naming N and M', req('SEARCH-050', 'SEARCH-051', 'SEARCH-052', 'LIMIT-004', 'SEARCH-043', 'SEARCH-044', 'SEARCH-004', 'OBS-023', judges(judgeRefusal, judgeUpfront, judgeRefusalUnbilled)), async ({ target, check, discovery }) => {
      const { models, reason } = probed(discovery, 'budget');
      const probe = models[0];
      if (!probe) return skipForSearch(check, discovery, reason);
      const [m1, m2] = capsBelow(probe.minOutputTokens, target.maxTokens);
      if (m1 === undefined) return check.skip(`the entry's minimum output budget (${probe.minOutputTokens}) leaves no positive cap below it`);
      const m2cap = m2 ?? m1;
      const requests: { label: string; m: number; extra: Json }[] = [
        { label: 'web_search_options, max_completion_tokens', m: m1, extra: { web_search_options: {}, max_completion_tokens: m1 } },
        { label: 'a bare web_search tool, max_completion_tokens', m: m1, extra: { tools: [WEB_SEARCH_TOOL], max_completion_tokens: m1 } },
        // Streamed, with the legacy cap name: still upfront, and M is the cap that was requested.
        { label: 'web_search_options with stream true, max_tokens', m: m2cap, extra: { web_search_options: {}, stream: true, max_tokens: m2cap } },
      ];
      const seen: Json[] = [];
      const sent: TargetResponse[] = [];
      const minimums: number[] = probe.minOutputTokens !== undefined ? [probe.minOutputTokens] : [];
      for (const { label, m, extra } of requests) {
        const res = await ask(target, probe.model, extra);
        const what = `${label} ${m} on ${probe.model}`;
        const err = judgeRefusal(check, res, { id: 'SEARCH-050', code: 'web_search_output_budget_too_small', message: BUDGET_MESSAGE });
        const match = typeof err?.message === 'string' ? BUDGET_MESSAGE.exec(err.message) : null;
        if (match) {
          const n = Number(match[1]);
          const reported = Number(match[2]);
          check.that('SEARCH-050', reported === m, () => `${what}: M in the message must be the budget requested (${m}); the message says ${reported}`, res);
          check.that('SEARCH-050', n > m, () => `${what}: refused although the requested ${m} is not below the reported minimum ${n}`, res);
          check.that('LIMIT-004', Number.isSafeInteger(n) && n > 0, () => `${what}: the minimum N is reported as an integer; the message says ${match[1]}`, res);
          minimums.push(n);
        }
        judgeUpfront(check, res, ['SEARCH-052', 'SEARCH-043'], 'SEARCH-044', what);
        // What a black box can see of "costs nothing": the refusal bills no usage. The target's own ledger is
        // beyond it; a target's cooperation (or the mock) is needed to verify more.
        judgeRefusalUnbilled(check, res, what);
        sent.push(res);
        seen.push({ request: label, status: res.status, code: err?.code });
      }
      check.that('LIMIT-004', new Set(minimums).size <= 1, () => `the minimum output budget is per entry, so one N for ${probe.model}; the probe and the refusals report ${[...new Set(minimums)].join(', ')}`, null /* the probe's minimum against the refusals': no single exchange deviates */);
      const [options, tool] = seen;
      check.that('SEARCH-004', options!.status === tool!.status && options!.code === tool!.code, () => `both forms count as a request for search, so both are refused alike; received ${JSON.stringify(seen.slice(0, 2))}`, sent[tool!.code !== 'web_search_output_budget_too_small' ? 1 : 0]!);
      check.observe('OBS-023', seen, `status of web_search_output_budget_too_small on ${probe.model}`, null /* one request per form */);
    });
  });
});
