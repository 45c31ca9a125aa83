// Scripted answers: rules (spec/schemas/mock-script.schema.json) that choose what a chat completion says, for a
// client author's agent loops and edge cases. A rule only replaces what the answer says (content, tool calls,
// reasoning, finish reason) inside the `complete` stage: the core still counts usage, applies the output cap,
// builds the JSON or the stream, so a scripted answer keeps the contract. A rule's fault is a runtime fault
// (faults.ts) that fires whenever the rule answers.
import { FileReadError, readBoundedText } from '../../spec/file-reader.ts';
import { RE2JS } from 're2js';
import { parse as parseYaml } from 'yaml';
import { formatIssues, validate } from '../../spec/validator.ts';
import type { Completion } from '../core/chat.ts';
import { toolCallTokens } from '../core/chat.ts';
import type { ChatRequest, ToolCall } from '../core/request.ts';
import { countTokens, digest, tokenize } from '../engine/tokens.ts';
import { buildToolCalls, functionTools, messageText } from '../core/tools.ts';
import { boundCitations, searchRequested, type Citation, type SearchAction } from '../core/web-search.ts';
import { parseFault, FaultSpecError, type FaultSpec } from './faults.ts';
import { RECORDING_FILE_LIMIT } from '../replay/recording.ts';

/** A script that cannot be used; the message names where it came from and every problem. */
export class ScriptError extends Error {}

export interface ScriptToolCall {
  name: string;
  arguments?: Record<string, unknown>;
  id?: string;
}

/** A script as written (the JSON or YAML document). */
export interface ScriptDocument {
  $schema?: string;
  rules: {
    name?: string;
    match?: { model?: string; user_contains?: string; user_matches?: string; tool_result?: boolean | string; turn?: number };
    answer: { content?: string; reasoning?: string; tool_calls?: ScriptToolCall[]; finish_reason?: 'stop' | 'length' | 'tool_calls'; fault?: string; search?: ScriptSearch };
  }[];
}

/** The search provenance of a scripted answer (2.9): citations over spans of its content, actions, the completed count. */
export interface ScriptSearch {
  citations?: { url: string; title?: string; cited: string }[];
  actions?: SearchAction[];
  /** usage.service_web_search_calls; default the number of actions. */
  completed?: number;
}

type Rule = ScriptDocument['rules'][number];

/** A script's regular expression, compiled once; `test` searches the text as RegExp.prototype.test does. */
export interface TextPattern {
  test(text: string): boolean;
}

/** One rule, checked and ready: its regular expression compiled and its fault parsed, once. */
export interface ScriptRule {
  name: string;
  rule: Rule;
  userPattern?: TextPattern;
  fault?: FaultSpec;
}

/** Why a pattern is refused (thrown as an Error), so the message can name the rule. */
class PatternError extends Error {}

/**
 * A `user_matches` pattern with RE2 semantics (re2js), never a backtracking RegExp: a script's pattern meets a
 * client's text, and `^(a+)+$` against 34 `a` and a `!` held the whole mock (the control API too) for minutes.
 * RE2 matches in time linear in the text for every pattern it accepts; what it cannot run that way
 * (backreferences, lookaround) is refused when the script is loaded. JavaScript spellings (`\u00e9`, `(?<name>`)
 * are translated first; `\k<name>`, which the translation would turn into plain text, is refused before it.
 */
export function compilePattern(source: string): TextPattern {
  for (let i = 0; i < source.length; i++) {
    if (source[i] !== '\\') continue;
    i++;
    if (source[i] === 'k') throw new PatternError('backreferences (\\k<name>) cannot be matched in linear time');
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (err) {
    throw new PatternError((err as Error).message);
  }
  return { test: (text) => re.matcher(text).find() };
}

export interface Script {
  document: ScriptDocument;
  rules: ScriptRule[];
}

/** Checks a script document against its schema and its own sense (regular expressions, faults, finish reasons). */
export function compileScript(data: unknown, where: string): Script {
  const shape = validate('mock-script', data);
  if (!shape.valid) throw new ScriptError(`${where} does not match spec/schemas/mock-script.schema.json: ${formatIssues(shape.errors).replace(/\n/g, '; ')}`);
  const document = data as ScriptDocument;
  const problems: string[] = [];
  const rules = document.rules.map((rule, i): ScriptRule => {
    const name = rule.name ?? `rules[${i}]`;
    const compiled: ScriptRule = { name, rule };
    const at = `rules[${i}]${rule.name !== undefined ? ` (${rule.name})` : ''}`;
    if (rule.match?.user_matches !== undefined) {
      try {
        compiled.userPattern = compilePattern(rule.match.user_matches);
      } catch (err) {
        if (!(err instanceof PatternError)) throw err;
        problems.push(`${at}: match.user_matches is not a regular expression the mock can match in linear time (RE2 syntax: no backreferences or lookaround): ${err.message}`);
      }
    }
    const a = rule.answer;
    if (a.fault !== undefined) {
      try {
        compiled.fault = parseFault(a.fault, { when: false });
      } catch (err) {
        if (!(err instanceof FaultSpecError)) throw err;
        problems.push(`${at}: answer.${err.message}`);
      }
    }
    const calls = a.tool_calls !== undefined;
    if (a.finish_reason === 'tool_calls' && !calls) problems.push(`${at}: answer.finish_reason is tool_calls but the answer has no tool_calls`);
    if (calls && a.finish_reason !== undefined && a.finish_reason !== 'tool_calls') problems.push(`${at}: an answer with tool_calls finishes with tool_calls (got ${a.finish_reason})`);
    if (a.search !== undefined) {
      if (a.content === undefined) problems.push(`${at}: answer.search needs answer.content (the citations point into it)`);
      for (const [k, c] of (a.search.citations ?? []).entries()) {
        if (a.content !== undefined && !a.content.includes(c.cited)) problems.push(`${at}: answer.search.citations[${k}].cited is not part of answer.content`);
      }
    }
    return compiled;
  });
  if (problems.length > 0) throw new ScriptError(`${where}: ${problems.join('; ')}`);
  return { document, rules };
}

/** Reads a script file (JSON, or YAML for .yaml/.yml), checked before the mock listens. */
export function loadScriptFile(file: string): Script {
  let text: string;
  try {
    // The kit's one reader, as a recording's: a regular file within its bound, checked as it is read.
    text = readBoundedText(file, '--script', { maxBytes: RECORDING_FILE_LIMIT, timeoutMs: 30_000 });
  } catch (err) {
    throw new ScriptError(err instanceof FileReadError ? err.message : `--script ${file}: cannot be read`);
  }
  let data: unknown;
  const yaml = /\.ya?ml$/i.test(file);
  try {
    data = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new ScriptError(`--script ${file}: not ${yaml ? 'YAML' : 'JSON'} (${(err as Error).message.split('\n')[0]})`);
  }
  return compileScript(data, `--script ${file}`);
}

/** The number of assistant messages before this request: the turn of an agent loop. */
export const turnOf = (req: ChatRequest): number => req.messages.filter((m) => m.role === 'assistant').length;

function hasToolResult(req: ChatRequest, fn: boolean | string): boolean {
  const results = req.messages.filter((m) => m.role === 'tool');
  if (typeof fn === 'boolean') return results.length > 0 === fn;
  const names = new Map<string, string>();
  for (const m of req.messages) for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
  return results.some((m) => m.tool_call_id !== undefined && names.get(m.tool_call_id) === fn);
}

/** The first rule whose every condition holds for the request. */
export function matchRule(script: Script, req: ChatRequest): ScriptRule | undefined {
  let lastUser: string | undefined;
  const userText = (): string => {
    if (lastUser === undefined) {
      const m = req.messages.findLast((x) => x.role === 'user');
      lastUser = m ? messageText(m) : '';
    }
    return lastUser;
  };
  return script.rules.find(({ rule, userPattern }) => {
    const m = rule.match;
    if (m === undefined) return true;
    if (m.model !== undefined && m.model !== req.model) return false;
    if (m.turn !== undefined && m.turn !== turnOf(req)) return false;
    if (m.tool_result !== undefined && !hasToolResult(req, m.tool_result)) return false;
    if (m.user_contains !== undefined && !userText().includes(m.user_contains)) return false;
    if (userPattern !== undefined && !userPattern.test(userText())) return false;
    return true;
  });
}

/** Tokens of `text` up to `limit` counted tokens (whitespace pieces are not counted, as countTokens). */
function cutTokens(pieces: string[], limit: number): { kept: string[]; cut: boolean } {
  const kept: string[] = [];
  let n = 0;
  for (const p of pieces) {
    const counted = !/^\s+$/u.test(p);
    if (counted && n === limit) return { kept: trimLast(kept), cut: true };
    if (counted) n++;
    kept.push(p);
  }
  return { kept, cut: false };
}

function trimLast(tokens: string[]): string[] {
  const last = tokens.length - 1;
  if (last >= 0) tokens[last] = tokens[last]!.trimEnd();
  return tokens;
}

/**
 * The completion a rule answers, built on the core's own completion of the request (`base`: prompt tokens, the
 * prompt cache, whether reasoning is returned and how much, search actions) with the rule's content, calls and
 * reasoning in place of the mock's, counted and capped as the core counts and caps its own.
 */
export function scriptedCompletion(base: Completion, rule: ScriptRule, req: ChatRequest, cap: number | undefined): Completion {
  const a = rule.rule.answer;
  const c: Completion = { ...base, tokens: { ...base.tokens } };
  let used = 0;

  if (base.reasoning !== undefined && a.reasoning !== undefined) {
    // The core's bound on reasoning: reasoning.max_tokens, and at most half of the cap.
    let limit = Infinity;
    if (req.reasoning?.max_tokens !== undefined) limit = req.reasoning.max_tokens;
    if (cap !== undefined) limit = Math.min(limit, Math.floor(cap / 2));
    const { kept } = cutTokens(tokenize(a.reasoning), limit);
    if (kept.length > 0) {
      c.reasoning = kept.join('');
      c.reasoningPieces = kept;
    } else {
      delete c.reasoning;
      c.reasoningPieces = [];
    }
  }
  c.tokens.reasoning = c.reasoning !== undefined ? countTokens(c.reasoning) : 0;
  used += c.tokens.reasoning;

  if (a.content === undefined && a.tool_calls === undefined) {
    // Only reasoning or a finish reason scripted: the mock's own text or calls, as the core built them.
    used += countTokens(c.content ?? '') + toolCallTokens(c.toolCalls);
    if (a.finish_reason !== undefined && c.finishReason === 'stop') c.finishReason = a.finish_reason;
  } else {
    c.toolCalls = a.tool_calls !== undefined ? scriptedCalls(a.tool_calls, req, rule.name) : [];
    used += toolCallTokens(c.toolCalls);
    // The rule's content replaces the mock's; citations pointed into the mock's text, so they go with it.
    c.citations = [];
    const room = cap === undefined ? Infinity : Math.max(0, cap - used);
    const { kept, cut } = cutTokens(tokenize(a.content ?? ''), room);
    if (a.content !== undefined) {
      c.content = kept.join('');
      c.contentTokens = kept;
    } else {
      delete c.content;
      c.contentTokens = [];
    }
    used += countTokens(c.content ?? '');
    c.finishReason = cut ? 'length' : c.toolCalls.length > 0 ? 'tool_calls' : (a.finish_reason ?? 'stop');
    if (a.search !== undefined && searchRequested(req)) scriptedProvenance(c, a.search);
  }
  c.tokens.completion = used;
  return c;
}

/**
 * A scripted answer's own search provenance in place of the mock's: each citation spans the first occurrence of its
 * `cited` text in the (possibly capped) content, and is dropped or clamped as the core bounds its own.
 */
function scriptedProvenance(c: Completion, search: ScriptSearch): void {
  const text = c.content ?? '';
  const citations: Citation[] = [];
  for (const x of search.citations ?? []) {
    const start = text.indexOf(x.cited);
    if (start < 0) continue;
    citations.push({ type: 'url_citation', url_citation: { url: x.url, ...(x.title !== undefined ? { title: x.title } : {}), start_index: start, end_index: start + x.cited.length } });
  }
  c.citations = boundCitations(citations, text);
  c.actions = (search.actions ?? []).map((x) => ({ ...x }));
  if (search.completed !== undefined) c.searchCalls = search.completed;
}

/** The rule's calls: arguments as given, or generated from the declared tool's schema as the core does. */
function scriptedCalls(calls: ScriptToolCall[], req: ChatRequest, ruleName: string): ToolCall[] {
  const declared = functionTools(req);
  const seed = digest(`${ruleName}:${JSON.stringify(req.messages.length)}:${JSON.stringify(calls)}`);
  return calls.map((call, i) => {
    const id = call.id ?? `call_${digest(`${seed}:${i}:${call.name}`)}`;
    if (call.arguments !== undefined) return { id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } };
    const tool = declared.find((t) => t.function.name === call.name);
    const args = tool ? buildToolCalls([tool], seed)[0]!.function.arguments : '{}';
    return { id, type: 'function', function: { name: call.name, arguments: args } };
  });
}
