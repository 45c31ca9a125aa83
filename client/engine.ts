// A client run: for each scenario, the mock in the scenario's state on a free port of 127.0.0.1, served under the
// scenario's own mount prefix (http://127.0.0.1:PORT/<scenario>/v1), the client started once against it, its
// report and the mock's journal judged by the scenario's steps (judge/checks/consumer.ts). One process per
// scenario, a few at a time (`jobs`): each has its own mock, so each journal holds exactly what the client sent in
// it, and a crash, a hang or a flood costs that scenario only.
import type { CheckRecord } from '../judge/checker.ts';
import { judgeConsumer, restOnBase, type ConsumerRequest } from '../judge/checks/consumer.ts';
import { createMockService, MOCK_KEYS, startMockServer, type JournalEntry } from '../mock/index.ts';
import { CLIENT_ENV, parseReport, type ClientReport } from './protocol.ts';
import { DEFAULT_BOUNDS, leftoverNote, runClient, runProblem, type ClientCommand, type ClientRun, type RunBounds } from './runner.ts';
import { SCENARIOS, type Scenario } from './scenarios.ts';

/** The kit's own requests to a scenario's mock (the catalog it lists) carry this test id, and are left out of the judgement. */
const KIT_TEST_ID = 'chatconform-kit';

/** Scenarios run at once by default: each is mostly waiting (a process start, a paced stream, a retry-after). */
export const DEFAULT_JOBS = 6;

export interface ScenarioResult {
  scenario: Scenario;
  baseUrl: string;
  run: ClientRun;
  report?: ClientReport;
  /** Why the client gave no report (crash, timeout, flood, garbage), with its stderr tail. */
  problem?: string;
  journal: JournalEntry[];
  records: CheckRecord[];
}

/** Runs one client (a command, or in tests a function) against the scenario's mock. */
export type ClientDriver = (env: Record<string, string>, bounds: RunBounds) => Promise<ClientRun>;

export function commandDriver(command: ClientCommand, cwd?: string): ClientDriver {
  return (vars, bounds) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...vars };
    // The kit's own credentials never reach the client under test.
    for (const name of Object.keys(env)) if (name.startsWith('CONFORMANCE_')) delete env[name];
    return runClient(command, env, bounds, cwd);
  };
}

export interface ClientRunOptions {
  driver: ClientDriver;
  scenarios?: readonly Scenario[];
  bounds?: Partial<RunBounds>;
  seed?: number;
  /** Called as each scenario ends (progress on the terminal). */
  onScenario?: (r: ScenarioResult) => void;
  /** How many scenarios run at once (default DEFAULT_JOBS); 1 runs them one after the other. The verdict is the same. */
  jobs?: number;
  /** Every scenario at once (tests that drive the client in process). */
  parallel?: boolean;
}

async function listedCatalog(baseUrl: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${baseUrl}/models`, { headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'x-chatconform-test-id': KIT_TEST_ID } });
  const body = (await res.json()) as { data?: Record<string, unknown>[] };
  return Array.isArray(body.data) ? body.data : [];
}

/** A journal entry as the consumer checks read it: the body parsed when it is a whole JSON object. */
export function requestOf(e: JournalEntry): ConsumerRequest {
  let body: Record<string, unknown> | undefined;
  if (e.body !== undefined && !e.body_truncated) {
    try {
      const v: unknown = JSON.parse(e.body);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) body = v as Record<string, unknown>;
    } catch {
      // not JSON: no body to read
    }
  }
  return { seq: e.seq, method: e.method, path: e.path, status: e.status, ...(e.error_code ? { errorCode: e.error_code } : {}), ...(body ? { body } : {}) };
}

export async function runScenario(scenario: Scenario, driver: ClientDriver, bounds: RunBounds, seed = 0): Promise<ScenarioResult> {
  const prefix = `/${scenario.id}`;
  const service = createMockService({ ...scenario.mock, prefix, seed });
  const server = await startMockServer({ service });
  try {
    const baseUrl = `${server.url}${prefix}/v1`;
    const env: Record<string, string> = {
      [CLIENT_ENV.baseUrl]: baseUrl,
      [CLIENT_ENV.apiKey]: MOCK_KEYS.full,
      [CLIENT_ENV.instruction]: JSON.stringify(scenario.instruction),
      [CLIENT_ENV.model]: scenario.instruction.model ?? '',
      [CLIENT_ENV.scenario]: scenario.id,
    };
    const run = await driver(env, bounds);
    const listed = await listedCatalog(baseUrl);
    const journal = service.harness.journal.entries().filter((e) => e.test_id !== KIT_TEST_ID);
    const problem = runProblem(run, bounds.timeoutMs);
    const parsed = problem === undefined ? parseReport(run.stdout) : undefined;
    if (parsed === undefined || 'problem' in parsed) {
      const why = problem ?? `${(parsed as { problem: string }).problem}${leftoverNote(run)}`;
      // The kit could not judge: an error per requirement, the client's stderr tail in the message.
      const tail = problem === undefined && run.stderrTail.trim() !== '' ? `; stderr ends: ${JSON.stringify(run.stderrTail.trim().split('\n').slice(-5).join('\n'))}` : '';
      return { scenario, baseUrl, run, problem: `${why}${tail}`, journal, records: scenario.requirements.map((id) => ({ id, status: 'error', message: `${why}${tail}` })) };
    }
    const records = judgeConsumer(scenario.steps, { report: parsed.report, requests: journal.map(requestOf), listed });
    return { scenario, baseUrl, run, report: parsed.report, journal, records };
  } finally {
    await server.close();
  }
}

/**
 * Each scenario built on others stands only on bases the client passed: its records become skips naming the root
 * cause otherwise (judge/checks/consumer.ts `restOnBase`). Bases are settled first, whatever the order of the list.
 */
export function settleOnBases(results: readonly ScenarioResult[]): void {
  const byId = new Map(results.map((r) => [r.scenario.id, r]));
  const settled = new Set<string>();
  const settle = (r: ScenarioResult): void => {
    if (settled.has(r.scenario.id)) return;
    settled.add(r.scenario.id);
    for (const id of r.scenario.after ?? []) {
      const base = byId.get(id);
      // A base that was not selected is not run: the scenario is judged on its own.
      if (!base) continue;
      settle(base);
      const rested = restOnBase(r.records, { id, records: base.records });
      // The first base the client did not pass is the cause named.
      if (rested) {
        r.records = rested;
        return;
      }
    }
  };
  results.forEach(settle);
}

/** Runs `work` over `items`, at most `jobs` at a time; results in the order of `items`. */
async function bounded<T, R>(items: readonly T[], jobs: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, lane));
  return out;
}

export async function runClientScenarios(options: ClientRunOptions): Promise<ScenarioResult[]> {
  const bounds: RunBounds = { ...DEFAULT_BOUNDS, ...options.bounds };
  const scenarios = options.scenarios ?? SCENARIOS;
  const jobs = options.parallel ? scenarios.length : (options.jobs ?? DEFAULT_JOBS);
  // The slow ones first, so that they do not end the run alone; the results keep the scenarios' order.
  const order = [...scenarios.keys()].sort((a, b) => Number(!scenarios[a]!.slow) - Number(!scenarios[b]!.slow));
  const ran = await bounded(order, jobs, async (i) => {
    const r = await runScenario(scenarios[i]!, options.driver, bounds, options.seed);
    options.onScenario?.(r);
    return r;
  });
  const results = order.map((_, k) => ran[order.indexOf(k)]!);
  settleOnBases(results);
  return results;
}
