// Reasoning (2.1, 2.2, 2.6, 2.9, section 7 rule 1): the reasoning object and include_reasoning are accepted,
// reasoning_content comes back as a string and only from entries that expose reasoning, an effort outside
// the entry's set is refused with 400, and a request message may carry reasoning_content.
// Entries are picked by supports_reasoning from the live catalog. thinking_config is an unspecified block
// (a gap): it only makes messages more helpful, it never decides a verdict.
import { judges, req, test } from './lib/test-fixtures.ts';
import { judgeRefusal } from '../judge/judge-response.ts';
import { pickModel, usableModels, type ModelEntry, noUsableReason } from './lib/discovery.ts';
import { firstMessage, isObject, probeCap } from './lib/requests/features.ts';
import { judgeAccepted, judgeStreamAccepted, refusedForAccess, skipIfUnavailable } from '../judge/acceptance.ts';
import { judgeStream } from '../judge/judge-response.ts';
import { slotsOf } from './lib/slots.ts';
import { judgeReasoningOnlyWhereExposed } from '../judge/answers.ts';

/** An effort value no entry's set contains. */
const INVALID_EFFORT = 'chatconform-invalid-effort';
const COMMON_EFFORTS = ['low', 'medium', 'high'] as const;
/** Entries the invalid-effort refusal is tried on (refusals cost nothing; answers would). */
const MAX_EFFORT_REFUSALS = 3;

const QUESTION = [{ role: 'user', content: 'What is 17 + 25? Answer with the number.' }];

/** Effort lists an entry's thinking_config seems to publish (its inner structure is a gap): a hint for messages only. */
function hintedEfforts(m: ModelEntry): string[] | undefined {
  const tc = m.thinking_config;
  if (!isObject(tc)) return undefined;
  for (const [k, v] of Object.entries(tc)) {
    if (/effort/i.test(k) && Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  }
  return undefined;
}

const hint = (m: ModelEntry) => {
  const efforts = hintedEfforts(m);
  return efforts ? ` (its thinking_config lists efforts ${JSON.stringify(efforts)})` : '';
};

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('reasoning', () => {
    test('include_reasoning true on a reasoning entry returns reasoning_content alongside the answer', req('RSN-002', 'RSN-003', judges(judgeAccepted), { modelDependent: true }), async ({ target, check, discovery, config }) => {
      const model = pickModel(discovery, config.profile, { reasoning: true });
      if (!model) return check.skip(noUsableReason(discovery, 'usable model with supports_reasoning true'));
      const res = await target.chat({ model: model.id, messages: QUESTION, include_reasoning: true });
      const body = judgeAccepted(check, 'RSN-002', res, model.id, `include_reasoning true, to ${model.id}`);
      if (!body) return;
      const message = firstMessage(body);
      // Carried is enough here; that it is a string (RSN-007) is judged by the schema in judgeAccepted.
      check.that('RSN-003', message !== undefined && 'reasoning_content' in message, () => `with include_reasoning true, ${model.id} (supports_reasoning true) returned no reasoning_content; message fields: ${JSON.stringify(Object.keys(message ?? {}))}`, res);
    });

    test('streamed, include_reasoning true returns reasoning_content in deltas, as strings', req('RSN-002', 'RSN-003', 'RSN-007', judges(judgeStreamAccepted, judgeStream), { modelDependent: true }), async ({ target, check, discovery, config }) => {
      const model = pickModel(discovery, config.profile, { reasoning: true });
      if (!model) return check.skip(noUsableReason(discovery, 'usable model with supports_reasoning true'));
      const res = await target.chat({ model: model.id, messages: QUESTION, include_reasoning: true, stream: true });
      const stream = judgeStreamAccepted(check, 'RSN-002', res, model.id, `include_reasoning true, to ${model.id}`);
      if (!stream) return;
      // The only stream that carries reasoning deltas: it is judged whole (framing, chunks, [DONE]) like every other.
      judgeStream(check, res, model.id);
      const deltas = stream.chunks.flatMap((c) => (Array.isArray(c.choices) ? c.choices : [])).map((ch) => (isObject(ch) && isObject(ch.delta) ? ch.delta : {}));
      const carried = deltas.filter((d) => 'reasoning_content' in d).map((d) => d.reasoning_content);
      const notStrings = carried.filter((r) => typeof r !== 'string');
      check.that('RSN-007', notStrings.length === 0, () => `delta.reasoning_content must be a string when present; received ${JSON.stringify(notStrings.slice(0, 3))}`, res);
      check.that('RSN-003', carried.length > 0, () => `with include_reasoning true, no delta from ${model.id} (supports_reasoning true) carried reasoning_content (${stream.chunks.length} chunks)`, res);
    });

    test('reasoning, an object, and reasoning.max_tokens are accepted by a reasoning entry', req('RSN-001', 'RSN-004', judges(judgeAccepted)), async ({ target, check, discovery, config }) => {
      const model = pickModel(discovery, config.profile, { reasoning: true });
      if (!model) return check.skip(noUsableReason(discovery, 'usable model with supports_reasoning true'));
      const empty = await target.chat({ model: model.id, messages: QUESTION, reasoning: {} });
      judgeAccepted(check, 'RSN-001', empty, model.id, `reasoning {}, to ${model.id}`);
      const bound = Math.max(1, Math.floor(target.maxTokens / 2));
      const bounded = await target.chat({ model: model.id, messages: QUESTION, reasoning: { max_tokens: bound } });
      judgeAccepted(check, 'RSN-004', bounded, model.id, `reasoning.max_tokens ${bound}, to ${model.id}`);
    });

    test('reasoning.effort low, medium and high are accepted by a reasoning entry', req('RSN-005', judges(judgeAccepted)), async ({ target, check, discovery, config }) => {
      const model = pickModel(discovery, config.profile, { reasoning: true });
      if (!model) return check.skip(noUsableReason(discovery, 'usable model with supports_reasoning true'));
      for (const effort of COMMON_EFFORTS) {
        const res = await target.chat({ model: model.id, messages: QUESTION, reasoning: { effort } });
        judgeAccepted(check, 'RSN-005', res, model.id, `reasoning.effort ${JSON.stringify(effort)}, to ${model.id}${hint(model)}`);
      }
    });

    test('a reasoning.effort outside the entry\'s set is refused with 400 and a section 7 error', req('RSN-006', 'RSN-010', judges(judgeRefusal)), async ({ target, check, discovery, config }) => {
      const models = usableModels(discovery, config.profile).filter((m) => m.supports_reasoning === true).slice(0, MAX_EFFORT_REFUSALS);
      if (models.length === 0) return check.skip(noUsableReason(discovery, 'usable model with supports_reasoning true'));
      for (const m of models) {
        const res = await target.chat({ model: m.id, messages: QUESTION, reasoning: { effort: INVALID_EFFORT }, max_completion_tokens: probeCap(target.maxTokens) });
        skipIfUnavailable(check, res, m.id);
        if (refusedForAccess(check, 'RSN-006', res, m.id)) {
          check.cannotJudge(['RSN-010'], { message: `the run's key may not use ${m.id}`, on: res });
          continue;
        }
        check.status('RSN-006', res, 400, `for reasoning.effort ${JSON.stringify(INVALID_EFFORT)} to ${m.id}${hint(m)}, status`);
        judgeRefusal(check, res, { id: 'RSN-010', status: 400, statusText: `for reasoning.effort ${JSON.stringify(INVALID_EFFORT)} to ${m.id}, status` });
      }
    });

    test('reasoning_content comes only from an entry that exposes reasoning; include_reasoning true and false are accepted', req('RSN-002', 'RSN-008', judges(judgeAccepted, judgeReasoningOnlyWhereExposed)), async ({ target, check, discovery, config }) => {
      const model = pickModel(discovery, config.profile, { reasoning: false });
      if (!model) return check.skip(noUsableReason(discovery, 'usable model with supports_reasoning false'));
      const res = await target.chat({ model: model.id, messages: QUESTION, include_reasoning: true, max_completion_tokens: probeCap(target.maxTokens) });
      const body = judgeAccepted(check, 'RSN-002', res, model.id, `include_reasoning true, to ${model.id} (supports_reasoning false)`);
      if (body) judgeReasoningOnlyWhereExposed(check, res, { ...model });
      // What real clients send by default: include_reasoning false is as much a boolean RSN-002 accepts.
      const off = await target.chat({ model: model.id, messages: QUESTION, include_reasoning: false, max_completion_tokens: probeCap(target.maxTokens) });
      if (judgeAccepted(check, 'RSN-002', off, model.id, `include_reasoning false, to ${model.id} (supports_reasoning false)`)) judgeReasoningOnlyWhereExposed(check, off, { ...model });
    });

    test('a request message carrying reasoning_content is accepted', req('RSN-009', judges(judgeAccepted)), async ({ target, check, discovery, config }) => {
      const d = discovery;
      const reasoning = pickModel(d, config.profile, { reasoning: true });
      const plain = pickModel(d, config.profile, { reasoning: false });
      // reasoning_content is a field of a request message (2.2) for any entry: any usable one where the catalog says neither.
      const models = [reasoning, plain, pickModel(d, config.profile)].filter((m, i, all): m is ModelEntry => m !== undefined && all.findIndex((x) => x?.id === m.id) === i);
      if (models.length === 0) return check.skip(noUsableReason(discovery));
      const messages = [
        { role: 'user', content: 'What is 2 + 2?' },
        { role: 'assistant', content: '4', reasoning_content: 'Two plus two makes four.' },
        { role: 'user', content: 'And 3 + 3?' },
      ];
      for (const m of models) {
        const res = await target.chat({ model: m.id, messages, ...(m.supports_reasoning === true ? {} : { max_completion_tokens: probeCap(target.maxTokens) }) });
        judgeAccepted(check, 'RSN-009', res, m.id, `an assistant message carrying reasoning_content, to ${m.id} (supports_reasoning ${String(m.supports_reasoning)})`);
      }
    });
  });
});
