// What an answer reported about hosted search (2.7, 2.9, 4.3 rule 6, 6 rule 8), read without trusting its shape, and
// the judgements on it: provenance in its place, action urls, refusals upfront and unbilled. Each is an entry point
// with the IDs it records (judge/entry.ts); the suite's web-search tests and the traffic proxy call the same ones.
import { streamUsage, type ChatStream } from './decoding/chat-stream.ts';
import type { Checker } from './checker.ts';
import type { TargetResponse } from './exchange.ts';
import { isObject, type Json } from './checks/check.ts';
import { entryPoint } from './entry.ts';
import { judgeCompletion } from './judge-response.ts';
import { contentText } from './content-text.ts';

/** What a completion (or an assembled stream) reported about a search. */
export interface SearchReport {
  /** url_citation entries in message.annotations of every choice. */
  annotations: number;
  /** Entries of message.service_web_search of every choice. */
  actions: number;
  /** usage.service_web_search_calls when it is a number. */
  calls?: number;
  /** JSON pointers of citation-like data outside message.annotations. */
  citationsElsewhere: string[];
  /** JSON pointers of search-action-like data outside message.service_web_search (and outside annotations). */
  actionsElsewhere: string[];
}

const ACTION_TYPES = new Set(['search', 'open_page', 'find_in_page']);

export function searchReport(body: Json | undefined): SearchReport {
  const r: SearchReport = { annotations: 0, actions: 0, citationsElsewhere: [], actionsElsewhere: [] };
  if (!body) return r;
  const choices = Array.isArray(body.choices) ? body.choices : [];
  for (const c of choices) {
    const m = isObject(c) && isObject(c.message) ? c.message : undefined;
    if (Array.isArray(m?.annotations)) r.annotations += m.annotations.length;
    if (Array.isArray(m?.service_web_search)) r.actions += m.service_web_search.length;
  }
  const usage = isObject(body.usage) ? body.usage : undefined;
  if (typeof usage?.service_web_search_calls === 'number') r.calls = usage.service_web_search_calls;
  // An explicit stack, never recursion, and each node's pointer built only when it is reported: an answer nested
  // 100,000 deep is walked in bounded stack and linear time.
  type Frame = { v: unknown; parent?: Frame; key: string; depth: number };
  const pointer = (f: Frame): string => {
    const keys: string[] = [];
    for (let p: Frame | undefined = f; p?.parent; p = p.parent) keys.push(p.key);
    return keys.length === 0 ? '/' : `/${keys.reverse().join('/')}`;
  };
  const stack: Frame[] = [{ v: body, key: '', depth: 0 }];
  while (stack.length > 0) {
    const f = stack.pop()!;
    const { v } = f;
    // Where they belong (SEARCH-029 judges mixing).
    if (f.depth === 4 && /^\/choices\/\d+\/message\/(annotations|service_web_search)$/.test(pointer(f))) continue;
    const children: Frame[] = [];
    if (Array.isArray(v)) v.forEach((x, i) => children.push({ v: x, parent: f, key: String(i), depth: f.depth + 1 }));
    else if (!isObject(v)) continue;
    else if (v.type === 'url_citation' || isObject(v.url_citation)) {
      r.citationsElsewhere.push(pointer(f));
      continue;
    } else if (typeof v.type === 'string' && ACTION_TYPES.has(v.type) && ('query' in v || 'queries' in v || 'url' in v || 'pattern' in v)) {
      r.actionsElsewhere.push(pointer(f));
      continue;
    } else {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'citations' && Array.isArray(x) && x.length > 0) r.citationsElsewhere.push(`${pointer(f) === '/' ? '' : pointer(f)}/${k}`);
        else children.push({ v: x, parent: f, key: k, depth: f.depth + 1 });
      }
    }
    // Pushed last to first: visited in document order, as the recursive walk did.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return r;
}

/** Whether the report shows that a search ran: provenance, or a completed-search count. */
export function searched(r: SearchReport): boolean {
  return r.annotations > 0 || r.actions > 0 || (r.calls ?? 0) >= 1;
}

export function describeReport(r: SearchReport): string {
  return `${r.annotations} annotation(s), ${r.actions} search action(s), usage.service_web_search_calls ${r.calls === undefined ? 'absent' : r.calls}`;
}

/** Why SEARCH-041/042 and STREAM-015 are not judged on an answer that reports no search at all. */
export const NO_SEARCH_RAN = 'no search ran: the answer reports no citation, no search action and no service_web_search_calls, so there is no provenance whose place to judge';

/**
 * 4.3 rule 6 on an answer that searched: citations in message.annotations (SEARCH-041) and actions in
 * message.service_web_search (SEARCH-042). A target may add fields of its own; only provenance that is
 * reported elsewhere and missing from its place fails. The rule holds "when hosted search was used": an answer
 * that shows no search (`on`: the response it came in) leaves both skipped with that reason, never passed.
 */
export const judgeProvenancePlacement = entryPoint(['SEARCH-041', 'SEARCH-042'], function judgeProvenancePlacement(check: Checker, r: SearchReport, where: string, on: TargetResponse): void {
  const ran = searched(r) || r.citationsElsewhere.length > 0 || r.actionsElsewhere.length > 0;
  if (!ran) return check.notApplicable(['SEARCH-041', 'SEARCH-042'], `${where}: ${NO_SEARCH_RAN}`, on);
  check.that('SEARCH-041', r.citationsElsewhere.length === 0 || r.annotations > 0, () => `${where}: citations are in message.annotations; the answer has none there but carries citations at ${r.citationsElsewhere.slice(0, 5).join(', ')}`, on);
  check.that('SEARCH-042', r.actionsElsewhere.length === 0 || r.actions > 0, () => `${where}: search actions are in message.service_web_search; the answer has none there but carries actions at ${r.actionsElsewhere.slice(0, 5).join(', ')}`, on);
  if (r.calls !== undefined && r.calls >= 1) {
    check.that('SEARCH-042', r.actions > 0, () => `${where}: usage.service_web_search_calls is ${r.calls}, so search actions completed, but message.service_web_search lists none`, on);
  }
});

/**
 * Search-action fields the schema rules do not charge precisely: `url`, when present, is a string (SEARCH-034).
 * An open_page / find_in_page without url is normal, not truncation (SEARCH-036): that is a promise of the kit
 * (it accepts such actions), checked in npm test, not a verdict on the target.
 */
export const judgeActionUrls = entryPoint('SEARCH-034', function judgeActionUrls(check: Checker, body: Json | undefined, where: string, on: TargetResponse): void {
  const choices = Array.isArray(body?.choices) ? body.choices : [];
  let judged = false;
  choices.forEach((c, i) => {
    const m = isObject(c) && isObject(c.message) ? c.message : undefined;
    const actions = Array.isArray(m?.service_web_search) ? m.service_web_search.filter(isObject) : [];
    actions.forEach((a, j) => {
      if (!('url' in a)) return;
      judged = true;
      check.that('SEARCH-034', typeof a.url === 'string', () => `${where}: choice ${i} action ${j}: url is ${JSON.stringify(a.url)}, not a string`, on);
    });
  });
  // Judged only where a search action carries a url: an answer without one gives SEARCH-034 no case.
  if (!judged) check.notApplicable(['SEARCH-034'], `${where}: ${NO_ACTION_URL}`, on);
});

/** Why SEARCH-034 is not judged on an answer none of whose search actions carries a url. */
export const NO_ACTION_URL = 'no search action carries a url, so there is no url to judge';

/**
 * A refused search request (4.3 rule 6): upfront, a non-200 error before any answer and no stream opened
 * (each of `upfrontIds`), and no partial answer: no choices, no streamed text (`partialId`). It records only the IDs
 * its caller names (the rows of section 7 that refuse), which the calling test declares.
 */
export const judgeUpfront = entryPoint([], function judgeUpfront(check: Checker, res: TargetResponse, upfrontIds: readonly string[], partialId: string, what: string): void {
  const ct = res.headers['content-type'] ?? '';
  const isStream = /text\/event-stream/i.test(ct);
  const upfront = res.exchange.status !== 0 && res.status !== 200 && !isStream;
  for (const id of upfrontIds) check.that(id, upfront, () => `${what}: a refusal happens upfront, as a non-200 error response before any answer; received ${isStream ? `an event stream (HTTP ${res.status})` : res.describe()}`, res);
  let partial: string | undefined;
  if (isStream) {
    const s = res.stream();
    const text = [...s.choices.values()].map((c) => c.content).join('');
    if (text !== '') partial = `streamed text ${JSON.stringify(text.slice(0, 120))}${s.outcome === 'error' ? ' before an error event' : ''}`;
  } else {
    const body = res.json();
    const choices = isObject(body) && Array.isArray(body.choices) ? body.choices : [];
    const content = choices.map((c) => (isObject(c) && isObject(c.message) ? contentText(c.message.content) : undefined)).filter((x) => x !== undefined && x !== '');
    if (content.length > 0) partial = `an answer ${JSON.stringify(String(content[0]).slice(0, 120))}`;
  }
  check.that(partialId, partial === undefined, () => `${what}: a refused search request never leaves a partial answer; received ${partial}`, res);
});

/** Whether a refusal bills anything: a usage block with tokens or a cost, at the top level or in the error. */
export function billedUsage(res: TargetResponse): string | undefined {
  const blocks: unknown[] = [];
  const ct = res.headers['content-type'] ?? '';
  if (/text\/event-stream/i.test(ct)) for (const u of res.stream().usageChunks) blocks.push(u.chunk.usage);
  else {
    const body = res.json();
    if (isObject(body)) {
      blocks.push(body.usage);
      if (isObject(body.error)) blocks.push(body.error.usage, body.error.cost !== undefined ? { cost: body.error.cost } : undefined);
    }
  }
  for (const b of blocks) {
    if (!isObject(b)) continue;
    const billed = ['cost', 'prompt_tokens', 'completion_tokens', 'total_tokens'].filter((k) => typeof b[k] === 'number' && (b[k] as number) > 0);
    if (billed.length > 0) return `a usage block with ${billed.map((k) => `${k} ${String(b[k])}`).join(', ')}`;
  }
  return undefined;
}

/** The error object of a response, when there is one. */
export function errorOf(res: TargetResponse): Json | undefined {
  const body = res.json();
  return isObject(body) && isObject(body.error) ? body.error : undefined;
}

/**
 * STREAM-015: search provenance arrives inside a delta (choices[].delta.annotations / service_web_search),
 * never elsewhere in a chunk. Judged when the stream shows a search (provenance anywhere, or a usage block that
 * counts completed searches); a stream that shows none leaves it skipped with that reason (`on`: its response),
 * never passed. Returns whether any provenance arrived in a delta.
 */
export const judgeStreamProvenance = entryPoint('STREAM-015', function judgeStreamProvenance(check: Checker, s: ChatStream, on: TargetResponse): boolean {
  // Extra fields are legal: provenance placed elsewhere fails only when the deltas do not carry it too.
  const inDelta = [...s.choices.values()].some((c) => c.provenanceChunks.length > 0);
  const elsewhere: string[] = [];
  s.chunks.forEach((chunk, i) => {
    for (const k of ['annotations', 'service_web_search', 'citations']) if (k in chunk) elsewhere.push(`chunk ${i}: top-level ${k}`);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    choices.forEach((c, j) => {
      if (!isObject(c)) return;
      for (const k of ['annotations', 'service_web_search']) if (k in c) elsewhere.push(`chunk ${i} choice ${j}: ${k} beside the delta`);
      if (isObject(c.message) && ('annotations' in c.message || 'service_web_search' in c.message)) elsewhere.push(`chunk ${i} choice ${j}: provenance in choices[].message`);
    });
  });
  const calls = streamUsage(s)?.service_web_search_calls;
  const counted = typeof calls === 'number' && calls >= 1;
  if (!inDelta && elsewhere.length === 0 && !counted) {
    check.notApplicable(['STREAM-015'], `the stream: ${NO_SEARCH_RAN}`, on);
    return false;
  }
  check.that('STREAM-015', inDelta, () =>
    elsewhere.length > 0
      ? `search provenance arrives inside a delta; found it only elsewhere: ${elsewhere.slice(0, 5).join('; ')}`
      : `usage.service_web_search_calls is ${String(calls)}, so a search completed, but no delta carried annotations or service_web_search`, on,
  );
  return inDelta;
});

/** SEARCH-051: a refusal of a search request bills nothing (what a black box sees of "costs nothing"): no usage block with tokens or a cost. */
export const judgeRefusalUnbilled = entryPoint('SEARCH-051', function judgeRefusalUnbilled(check: Checker, res: TargetResponse, what: string): boolean {
  const billed = billedUsage(res);
  return check.that('SEARCH-051', billed === undefined, () => `${what}: the budget refusal costs nothing, but it carries ${billed}`, res);
});

/**
 * An answer to a request for search, judged as every search answer is: the completion rules (annotations,
 * citations, actions, the usage count), provenance in its place, action urls. Returns the completion.
 */
export const judgeSearchAnswer = entryPoint([judgeCompletion, judgeProvenancePlacement, judgeActionUrls], function judgeSearchAnswer(check: Checker, res: TargetResponse, model: string, what: string): Json | undefined {
  const body = judgeCompletion(check, res, model);
  if (!body) return undefined;
  judgeProvenancePlacement(check, searchReport(body), what, res);
  judgeActionUrls(check, body, what, res);
  return body;
});
