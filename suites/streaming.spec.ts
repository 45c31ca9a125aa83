// Streamed completions: section 6 (events), 4.3 (stream true vs false, failures before a stream opens),
// 2.1/2.6 (stream, stream_options). Every stream is decoded by the reference consumer and judged by
// lib/stream-checks.ts; the framing variants prove the suite accepts what section 6 allows.
import { judges, req, test } from './lib/test-fixtures.ts';
import { judgeCompletion, judgeRefusal, judgeStream } from '../judge/judge-response.ts';
import { streamedAnswer, type ChatStream } from '../judge/decoding/chat-stream.ts';
import { judgeProvokedFailure } from '../judge/comparisons.ts';
import { pickModel, searchModels, usableModels, type Discovery, type ModelEntry, noUsableReason } from './lib/discovery.ts';
import { skipForSearch } from './lib/requests/search.ts';
import type { Profile } from '../run/profile.ts';
import { judgeStreamProvenance } from '../judge/search.ts';
import { judgeCapOfAnswer, judgeNoEventStream, judgeRefusedBeforeStream, judgeStreamOptionsIgnored } from '../judge/answers.ts';
import { validate, formatIssues } from '../spec/validator.ts';
import { getRequirement } from '../spec/requirements/index.ts';
import type { TargetResponse } from '../judge/exchange.ts';
import { slotsOf } from './lib/slots.ts';

const HELLO = [{ role: 'user', content: 'Say hello in one short sentence.' }];
/** Small caps: a paid deployment is billed per token. */
const CAP = 24;

/** A plain chat model (no reasoning: its text is the answer), else any usable one. */
function chatModel(d: Discovery, p: Profile): ModelEntry | undefined {
  return pickModel(d, p, { reasoning: false }) ?? pickModel(d, p);
}

const isEventStream = (res: TargetResponse) => /text\/event-stream/i.test(res.headers['content-type'] ?? '');

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('stream true', () => {
    test('a streamed completion is an SSE stream whose chunks assemble into the answer', req('REQ-005', 'STREAM-013', judges(judgeStream)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      const res = await target.chat({ model: model.id, messages: HELLO, stream: true, max_completion_tokens: CAP });
      if (check.status('REQ-005', res, 200, 'stream true must be accepted: status')) check.that('REQ-005', isEventStream(res), () => `stream true asks for a server-sent-event response; received content-type ${JSON.stringify(res.headers['content-type'])}, ${res.describe()}`, res);
      const s = judgeStream(check, res, model.id, { expectText: true });
      if (!s || s.outcome !== 'complete') return;
      // A chunk may lack delta.content (the role chunk, the finish chunk); the consumer assembles the text anyway.
      let answer = '';
      try {
        answer = streamedAnswer(s).content;
      } catch (err) {
        check.that('STREAM-012', false, `a stream that completed with [DONE] carries the answer in its deltas; the consumer found none: ${(err as Error).message}`, res);
        return;
      }
      const pieces = s.chunks.flatMap((c) => (Array.isArray(c.choices) ? c.choices : [])).map((c) => (c as { delta?: { content?: unknown } }).delta?.content);
      const withoutText = pieces.filter((p) => typeof p !== 'string').length;
      const joined = pieces.filter((p): p is string => typeof p === 'string').join('');
      check.that('STREAM-013', answer === joined, () => `the consumer's answer ${JSON.stringify(answer)} differs from the concatenated delta.content ${JSON.stringify(joined)} (${withoutText} chunk(s) without content)`, res);
    });

    test('include_usage true gives a usage block in the stream', req('REQ-021', 'REQ-010', judges(judgeStream, judgeCapOfAnswer)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      const res = await target.chat({ model: model.id, messages: HELLO, stream: true, stream_options: { include_usage: true }, max_completion_tokens: CAP });
      check.status('REQ-021', res, 200, 'stream_options.include_usage true with stream true, status');
      // include_usage true is read from the request by judgeStream: STREAM-016 asks for the usage block.
      const s = judgeStream(check, res, model.id, { expectText: true });
      if (!s) return;
      // max_completion_tokens caps a streamed completion too, on the usage block it reports.
      judgeCapOfAnswer(check, res);
    });

    test('include_usage false is accepted and gives no usage block', req('REQ-021', judges(judgeStream)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      const res = await target.chat({ model: model.id, messages: HELLO, stream: true, stream_options: { include_usage: false }, max_completion_tokens: CAP });
      check.status('REQ-021', res, 200, 'stream_options.include_usage false with stream true, status');
      judgeStream(check, res, model.id, { expectText: true });
    });

    test('search provenance arrives inside a delta', req('STREAM-015', judges(judgeStream, judgeStreamProvenance)), async ({ target, check, discovery }) => {
      const probe = searchModels(discovery, 'capable')[0] ?? searchModels(discovery, 'ignored')[0];
      if (!probe) return skipForSearch(check, discovery, `no model answered a search request during discovery (${discovery.searchProbes.map((p) => `${p.model}: ${p.result}`).join(', ') || 'no probes'})`);
      // Same request shape as the discovery probe that succeeded (its cap is the budget's default).
      const res = await target.chat({ model: probe.model, messages: [{ role: 'user', content: 'Which city hosts the Louvre?' }], web_search_options: {}, stream: true, stream_options: { include_usage: true } });
      const s = judgeStream(check, res, probe.model);
      if (!s) return;
      // Judged only where a search ran (provenance or a count of completed searches); otherwise skipped, with that reason.
      judgeStreamProvenance(check, s, res);
    });
  });

  test.describe('stream absent or false', () => {
    test('never yields an event stream', req('STREAM-001', 'REQ-005', judges(judgeCompletion, judgeNoEventStream)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      for (const stream of [undefined, false] as const) {
        const body: Record<string, unknown> = { model: model.id, messages: HELLO, max_completion_tokens: CAP };
        if (stream !== undefined) body.stream = stream;
        const res = await target.chat(body);
        const what = stream === undefined ? 'stream absent' : 'stream false';
        judgeNoEventStream(check, res, what);
        if (stream === false) {
          if (check.status('REQ-005', res, 200, 'stream false must be accepted: status')) check.that('REQ-005', res.isJson, () => `stream false asks for a JSON response; received ${res.describe()}`, res);
          judgeCompletion(check, res, model.id);
        }
      }
    });

    test('stream_options without stream true has no effect: a JSON answer', req('REQ-012', judges(judgeCompletion, judgeStreamOptionsIgnored)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      for (const stream of [false, undefined] as const) {
        const body: Record<string, unknown> = { model: model.id, messages: HELLO, max_completion_tokens: CAP, stream_options: { include_usage: true } };
        if (stream !== undefined) body.stream = stream;
        const res = await target.chat(body);
        const what = stream === undefined ? 'stream absent' : 'stream false';
        judgeStreamOptionsIgnored(check, res, what);
        judgeCompletion(check, res, model.id);
      }
    });
  });

  test.describe('failures', () => {
    test('a failure before a stream opens is a non-200 JSON error, also with stream true', req('ERR-005', judges(judgeRefusedBeforeStream)), async ({ target, check, discovery, config }) => {
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      const cases: { what: string; send: () => Promise<TargetResponse> }[] = [
        { what: 'no credential', send: () => target.chat({ model: model.id, messages: HELLO, stream: true }, { key: null }) },
        { what: 'search_context_size "huge" (400 invalid_web_search_options, or a search refusal)', send: () => target.chat({ model: model.id, messages: HELLO, stream: true, web_search_options: { search_context_size: 'huge' } }) },
      ];
      if (config.profile.deactivatedModel) {
        const deactivated = config.profile.deactivatedModel;
        cases.push({ what: `deactivated model ${deactivated}`, send: () => target.chat({ model: deactivated, messages: HELLO, stream: true }) });
      }
      if (config.profile.scenarioHeaders) {
        cases.push({ what: 'x-mock-status: 503', send: () => target.chat({ model: model.id, messages: HELLO, stream: true }, { headers: { 'x-mock-status': '503' }, subjectStatus: 503 }) });
      }
      // A target that did not refuse at all broke the rule of the case (a credential is required, search_context_size
      // is validated), which its own test judges: judgeRefusedBeforeStream leaves ERR-005 unjudged there.
      for (const c of cases) judgeRefusedBeforeStream(check, await c.send(), c.what);
    });

    test('an error after the stream opened is an error event, and the consumer reports a failure', req('STREAM-017', 'STREAM-019', 'STREAM-020', 'ERR-010', 'OBS-020', judges(judgeStream, judgeProvokedFailure)), async ({ target, check, discovery, config }) => {
      if (!config.profile.scenarioHeaders) return check.skip('the profile does not enable the scenario headers (scenarioHeaders), so an in-stream error cannot be provoked');
      const model = chatModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      for (const after of [2, 0]) {
        const res = await target.chat({ model: model.id, messages: HELLO, stream: true, max_completion_tokens: CAP }, { headers: { 'x-mock-fail-after': String(after) } });
        const s = judgeStream(check, res, model.id, { expectError: true });
        if (!s) continue;
        const at = `x-mock-fail-after: ${after}`;
        judgeProvokedFailure(check, res, s, after, at);
        if (s.outcome !== 'error') continue;
        const ev = s.errorEvent;
        const shape = validate('stream-error-event', ev);
        check.that('ERR-010', shape.valid, () => `${at}: the error event is not one a client recognises as an error (section 6 leaves its shape open; the kit reads the common convention, a top-level error object with a message):\n${formatIssues(shape.errors)}`, res);
        check.that('STREAM-019', s.eventsAfterError === 0 && s.donePositions.length === 0, () => `${at}: after the error event came ${s.eventsAfterError} event(s)${s.donePositions.length ? ' including [DONE]' : ''}`, res);
        check.observe('OBS-020', describeErrorEvent(ev), `${at}: shape of the in-stream error event after ${s.chunks.length} chunk(s)`, res);
      }
    });

    test('push notifications are outside the contract', req('OBS-021'), async ({ check }) => {
      check.observe('OBS-021', 'none exercised', 'section 6 names server-sent events of a streamed completion as the only events; no webhook or other push mechanism exists to exercise', null /* nothing to send: no push mechanism exists */);
    });
  });

  /** Field names and value types of an error event (the values themselves may carry request details). */
  function describeErrorEvent(ev: Record<string, unknown> | undefined): unknown {
    if (!ev) return undefined;
    const types = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v]));
    const error = ev.error;
    return { fields: types(ev), error: typeof error === 'object' && error !== null && !Array.isArray(error) ? { ...types(error as Record<string, unknown>), ...pick(error as Record<string, unknown>, ['type', 'code']) } : error };
  }

  function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
    return Object.fromEntries(keys.filter((k) => typeof o[k] === 'string').map((k) => [`${k}=`, o[k]]));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Framing that section 6 allows: the suite must accept it. Each variant is requested through the mock's
  // x-mock-framing scenario header, judged by the same judgeStream, and shown to have been exercised.

  interface Variant {
    framing: string;
    /** The MAY record this variant demonstrates. */
    id: string;
    /** Evidence in the raw body that the target really sent this framing. */
    exercised: (raw: string, s: ChatStream) => boolean;
    sees: string;
  }

  const VARIANTS: Variant[] = [
    { framing: 'crlf', id: 'STREAM-007', exercised: (raw) => raw.includes('\r\n') && !/[^\r]\n/.test(raw), sees: 'every line ends with CRLF' },
    { framing: 'multiline', id: 'STREAM-005', exercised: (_raw, s) => s.transcript.events.some((e) => e.data.includes('\n')), sees: 'an event spans several data: lines' },
    { framing: 'no-final-blank', id: 'STREAM-010', exercised: (raw) => !/\n\s*\n\s*$/.test(raw), sees: 'the final event lacks its blank line' },
    { framing: 'comments', id: 'STREAM-002', exercised: (_raw, s) => s.transcript.comments.length > 0, sees: 'comment lines (keep-alives) between events' },
    { framing: 'no-space', id: 'STREAM-002', exercised: (raw) => /^data:[^ ]/m.test(raw), sees: 'data: lines without the optional space after the colon' },
    { framing: 'bytewise', id: 'STREAM-002', exercised: () => true, sees: 'one byte per network write' },
    { framing: 'crlf,multiline,comments,no-final-blank', id: 'STREAM-007', exercised: (raw, s) => raw.includes('\r\n') && s.transcript.comments.length > 0 && s.transcript.events.some((e) => e.data.includes('\n')), sees: 'all of them at once' },
  ];

  test.describe('framing section 6 allows is accepted', () => {
    for (const v of VARIANTS) {
      test(`x-mock-framing: ${v.framing}`, req(v.id, 'STREAM-005', 'STREAM-007', 'STREAM-010', judges(judgeStream)), async ({ target, check, discovery, config }) => {
        if (!config.profile.scenarioHeaders) return check.skip('the profile does not enable the scenario headers (scenarioHeaders), so framing variants cannot be requested');
        const model = chatModel(discovery, config.profile);
        if (!model) return check.skip(noUsableReason(discovery));
        const res = await target.chat({ model: model.id, messages: HELLO, stream: true, stream_options: { include_usage: true }, max_completion_tokens: CAP }, { headers: { 'x-mock-framing': v.framing } });
        const s = judgeStream(check, res, model.id, { expectText: true });
        if (!s) return;
        const exercised = v.exercised(res.text, s);
        const note = `the target did not send the requested framing (${v.sees}); the variant was not exercised`;
        // Only a MAY record is judged by whether the variant showed; otherwise a warning, never a failed MUST.
        if (getRequirement(v.id).level === 'MAY') check.that(v.id, exercised, note, res);
        else if (!exercised) check.note(`x-mock-framing ${v.framing}: ${note}`);
      });
    }

    test('a spread of framings gives the same assembled answer', req('STREAM-005', 'STREAM-007', 'STREAM-010', judges(judgeStream)), async ({ target, check, discovery, config }) => {
      if (!config.profile.scenarioHeaders) return check.skip('the profile does not enable the scenario headers (scenarioHeaders)');
      const model = usableModels(discovery, config.profile).find((m) => m.supports_reasoning === false);
      if (!model) return check.skip(noUsableReason(discovery));
      const answers: Record<string, string> = {};
      const sent: Record<string, TargetResponse> = {};
      for (const framing of ['lf', 'lf-again', 'crlf', 'multiline', 'no-final-blank']) {
        const res = await target.chat({ model: model.id, messages: HELLO, stream: true, max_completion_tokens: CAP }, { headers: { 'x-mock-framing': framing.replace('-again', '') } });
        sent[framing] = res;
        const s = judgeStream(check, res, model.id, { expectText: true });
        if (s?.outcome === 'complete') answers[framing] = [...s.choices.values()].map((c) => c.content).join('');
      }
      const lf = answers.lf;
      // Comparing answers needs a deterministic target (the mock is): the same request twice must agree.
      if (lf === undefined || answers['lf-again'] !== lf) return check.skip('the target answers the same request differently, so framings cannot be compared by their answers');
      for (const [framing, id] of [['crlf', 'STREAM-007'], ['multiline', 'STREAM-005'], ['no-final-blank', 'STREAM-010']] as const) {
        check.that(id, lf !== undefined && answers[framing] === lf, () => `with x-mock-framing ${framing} the assembled answer is ${JSON.stringify(answers[framing])}; with LF framing it is ${JSON.stringify(lf)}`, sent[framing] ?? null);
      }
    });
  });
});
