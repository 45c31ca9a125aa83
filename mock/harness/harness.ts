// The client author's harness over one mock instance: runtime faults, the request journal, scripted answers and
// the mount prefix. Not contract: it sits around the instance's `handle` (control API, journal, the faults a
// request gets) and adds two hooks to the stages, a scenario source for the scenario layer (mock/scenario.ts) and
// a wrapper of `complete` for scripted answers. mock/service.ts composes it once per instance.
import { capWithinWindow, checkWithinWindow } from '../core/chat.ts';
import type { CoreRequest, CoreResult } from '../core/http.ts';
import { matchPath, type ErrorInput, type StageWrapper, type Stages } from '../core/pipeline.ts';
import { mergeScenario, scenarioError, type Scenario, type ScenarioSource } from '../scenario.ts';
import { FaultSet, parseFault } from './faults.ts';
import { DEFAULT_JOURNAL_BODY_BYTES, DEFAULT_JOURNAL_SIZE, Journal, outcomeOf, RecordedBody, type JournalRecord } from './journal.ts';
import { CONTROL_ROOT, TEST_ID_HEADER } from './names.ts';
import { compileScript, matchRule, scriptedCompletion, type Script, type ScriptDocument } from './script.ts';

export interface HarnessOptions {
  /** runtime faults applied server-wide from the start (mock/README.md, "Runtime faults"); a bad spec throws FaultSpecError */
  fault?: string | readonly string[];
  /** the seed of probabilistic faults (default 0): the same seed and the same requests in the same order fire the same faults */
  seed?: number;
  /** scripted answers (spec/schemas/mock-script.schema.json); a bad script throws ScriptError */
  script?: ScriptDocument;
  /** entries the journal holds, oldest dropped first (default 1,000; 0 records nothing) */
  journalSize?: number;
  /** bytes of each request body the journal keeps (default 16,384) */
  journalBodyBytes?: number;
  /** serve the /v1 routes only under this mount prefix (e.g. "/api": http://host/api/v1/models); other paths are 404 */
  prefix?: string;
  /**
   * host names (no port) the control API answers besides localhost and IP addresses, e.g. "mock" for a container
   * reached as http://mock:8787; a control request whose Host names another is refused (DNS rebinding)
   */
  controlHosts?: readonly string[];
  /**
   * web origins allowed to drive the control API (`mock --cors ORIGIN --cors-control`: a browser test harness that
   * sets faults from the page); none by default
   */
  controlOrigins?: readonly string[];
}

/** The prefix as given, checked: "/a/b" (leading slash, no trailing one, no query, no /v1 segment). */
export function checkPrefix(raw: string): string {
  const prefix = raw.replace(/\/+$/, '');
  if (prefix === '') return '';
  if (!/^(\/[A-Za-z0-9\-._~%!$&'()*+,;=:@]+)+$/.test(prefix)) throw new Error(`prefix must be a path such as /api or /team/llm (got ${JSON.stringify(raw)})`);
  if (/(^|\/)v1(\/|$)/.test(prefix)) throw new Error(`prefix must not hold the /v1 segment, which the mock adds (got ${JSON.stringify(raw)})`);
  if (prefix === CONTROL_ROOT || prefix.startsWith(`${CONTROL_ROOT}/`)) throw new Error(`prefix must not be under ${CONTROL_ROOT}, the control API (got ${JSON.stringify(raw)})`);
  return prefix;
}

/** What one request collects on its way (the record the journal gets, filled as the stages run). */
interface Trace {
  record?: JournalRecord;
  /** scenario fields from its faults and its scripted rule */
  scenario?: Partial<Scenario>;
}

export const testIdOf = (request: CoreRequest): string | undefined => {
  const v = request.header(TEST_ID_HEADER)?.trim();
  return v === undefined || v === '' ? undefined : v;
};

export class Harness {
  readonly faults: FaultSet;
  readonly journal: Journal;
  readonly prefix: string;
  /** host names the control API answers besides localhost and IP addresses (lower case) */
  readonly controlHosts: ReadonlySet<string>;
  readonly controlOrigins: ReadonlySet<string>;
  /** scripts by test id; the key undefined holds the server-wide one */
  private readonly scripts = new Map<string | undefined, Script>();
  /**
   * The trace of each request being answered, removed when its answer is made. (Not a WeakMap: an entry per
   * request in a WeakMap kept each request's objects alive into the old generation, about 1.5 µs a request and
   * frequent full collections; bench/README.md.)
   */
  private readonly traces = new Map<CoreRequest, Trace>();

  constructor(options: HarnessOptions = {}) {
    const seed = options.seed ?? 0;
    if (!Number.isSafeInteger(seed)) throw new Error(`seed must be an integer (got ${seed})`);
    this.faults = new FaultSet(seed);
    const specs = options.fault === undefined ? [] : typeof options.fault === 'string' ? [options.fault] : options.fault;
    this.faults.add(specs.map((s) => parseFault(s)));
    this.journal = new Journal(options.journalSize ?? DEFAULT_JOURNAL_SIZE, options.journalBodyBytes ?? DEFAULT_JOURNAL_BODY_BYTES);
    if (options.script !== undefined) this.setScript(compileScript(options.script, 'the script option'));
    this.prefix = checkPrefix(options.prefix ?? '');
    this.controlHosts = new Set((options.controlHosts ?? []).map((h) => h.toLowerCase()));
    this.controlOrigins = new Set((options.controlOrigins ?? []).map((o) => o.toLowerCase()));
  }

  setScript(script: Script | undefined, testId?: string): void {
    if (script === undefined) this.scripts.delete(testId);
    else this.scripts.set(testId, script);
  }

  /** Forgets the script of a test, or every script when no test id is given. */
  clearScripts(testId?: string): number {
    if (testId !== undefined) return this.scripts.delete(testId) ? 1 : 0;
    const n = this.scripts.size;
    this.scripts.clear();
    return n;
  }

  script(testId?: string): Script | undefined {
    return this.scripts.get(testId);
  }

  /** The script a request follows: its test's, else the server-wide one. */
  private scriptFor(request: CoreRequest): Script | undefined {
    if (this.scripts.size === 0) return undefined;
    const testId = testIdOf(request);
    return (testId !== undefined ? this.scripts.get(testId) : undefined) ?? this.scripts.get(undefined);
  }

  /** For the scenario layer: the fields a request's faults and scripted rule give. */
  readonly scenarioSource: ScenarioSource = (request) => this.traces.get(request)?.scenario;

  /** The stage wrappers of the harness: scripted answers, over the contract's `complete` (innermost, under the modes). */
  stages(): Partial<{ [K in keyof Stages]: StageWrapper<K> }> {
    const complete: StageWrapper<'complete'> = (next) => (input) => {
      // A request that came in while the harness had nothing to do (no trace) is answered as the contract says.
      const trace = this.traces.get(input.request);
      const script = trace && this.scriptFor(input.request);
      const rule = script && matchRule(script, input.req);
      if (trace === undefined || rule === undefined) return next(input);
      if (trace.record) trace.record.scriptRule = rule.name;
      if (rule.fault !== undefined) {
        const f = rule.fault.scenario;
        // The stream has not started and the upfront checks are behind: a status is answered from here.
        if (f.status !== undefined) throw scenarioError(f.status, f.retryAfter, `the scripted rule ${rule.name} (fault ${rule.fault.spec})`);
        trace.scenario = mergeScenario(trace.scenario ?? {}, f);
      }
      const base = next(input);
      // Counted and capped as the core counts and caps its own: within the context window too.
      const c = scriptedCompletion(base, rule, input.req, capWithinWindow(input.cap, input.entry, base.tokens.prompt));
      checkWithinWindow(c, input.entry);
      return c;
    };
    return { complete };
  }

  /**
   * One contract request through the harness: its faults decided, the prefix checked, the answer recorded.
   * `next` is the instance's own handle; `error` its error builder (the 404 outside the prefix is the mock's own).
   */
  async handle(request: CoreRequest, next: (request: CoreRequest) => Promise<CoreResult>, error: (input: ErrorInput) => CoreResult): Promise<CoreResult> {
    const journal = this.journal;
    if (!journal.enabled && this.faults.size === 0 && this.scripts.size === 0 && this.prefix === '') return next(request);
    const testId = testIdOf(request);
    let req = request;
    let body: RecordedBody | undefined;
    const trace: Trace = {};
    if (journal.enabled) {
      body = new RecordedBody(request.body, journal.bodyBytes);
      req = { ...request, body };
      trace.record = {
        seq: journal.nextSeq(),
        at: Date.now(),
        ...(testId !== undefined ? { testId } : {}),
        method: request.method,
        path: request.path,
        ...(request.query !== undefined ? { query: request.query } : {}),
        headers: request.headers?.() ?? {},
        status: 0,
        outcome: 'error',
      };
    }
    this.traces.set(req, trace);
    const outside = this.prefix !== '' && !this.underPrefix(request.path);
    if (this.faults.size > 0 && !outside) {
      const isChat = request.method === 'POST' && matchPath(request.path)?.route === 'chat';
      const fired = this.faults.decide(isChat ? 'chat' : 'any', testId);
      if (fired.length > 0) {
        trace.scenario = fired.reduce((acc: Partial<Scenario>, f) => mergeScenario(acc, f.fault.scenario), {});
        if (trace.record) trace.record.faults = fired.map((f) => f.fault.spec);
      }
    }
    let result: CoreResult;
    try {
      result = outside ? this.outsidePrefix(request, error) : await next(req);
    } finally {
      this.traces.delete(req);
    }
    if (trace.record) this.finish(trace.record, body, result);
    return result;
  }

  private finish(record: JournalRecord, body: RecordedBody | undefined, result: CoreResult): void {
    const read = body?.recorded();
    if (read !== undefined) record.body = read;
    record.status = result.status;
    const { outcome, errorCode } = outcomeOf(result);
    record.outcome = outcome;
    if (errorCode !== undefined) record.errorCode = errorCode;
    this.journal.push(record);
  }

  private underPrefix(path: string): boolean {
    return path === `${this.prefix}/v1` || path.startsWith(`${this.prefix}/v1/`);
  }

  private outsidePrefix(request: CoreRequest, error: (input: ErrorInput) => CoreResult): CoreResult {
    return error({ status: 404, code: 'not_found', message: `no such endpoint: ${request.method} ${request.path} (this mock serves its API under ${this.prefix}/v1)` });
  }
}
