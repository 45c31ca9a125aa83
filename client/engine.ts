// A client run: for each scenario, the mock in the scenario's state on a free port of 127.0.0.1, served under the
// scenario's own mount prefix (http://127.0.0.1:PORT/<scenario>/v1), the client started once against it, its
// report and the mock's journal judged. One process per scenario, one at a time: a crash, a hang or a flood costs
// that scenario only, and each journal holds exactly what the client sent in it.
import type { CheckRecord } from '../judge/checker.ts';
import { createMockService, MOCK_KEYS, startMockServer, type JournalEntry } from '../mock/index.ts';
import { CLIENT_ENV, parseReport, type ClientReport } from './protocol.ts';
import { DEFAULT_BOUNDS, runClient, runProblem, type ClientCommand, type ClientRun, type RunBounds } from './runner.ts';
import { SCENARIOS, type Scenario } from './scenarios.ts';

/** The kit's own requests to a scenario's mock (the catalog it lists) carry this test id, and are left out of the judgement. */
const KIT_TEST_ID = 'chatconform-kit';

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
  /**
   * Run the scenarios at once (each has its own mock) instead of one after the other. The command runs them one at a
   * time: a client process per scenario competes for the machine with the others, and a run reads best in order.
   */
  parallel?: boolean;
}

async function listedCatalog(baseUrl: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${baseUrl}/models`, { headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'x-chatconform-test-id': KIT_TEST_ID } });
  const body = (await res.json()) as { data?: Record<string, unknown>[] };
  return Array.isArray(body.data) ? body.data : [];
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
      const why = problem ?? (parsed as { problem: string }).problem;
      // The kit could not judge: an error per requirement, the client's stderr tail in the message.
      const tail = problem === undefined && run.stderrTail.trim() !== '' ? `; stderr ends: ${JSON.stringify(run.stderrTail.trim().split('\n').slice(-5).join('\n'))}` : '';
      return { scenario, baseUrl, run, problem: `${why}${tail}`, journal, records: scenario.requirements.map((id) => ({ id, status: 'error', message: `${why}${tail}` })) };
    }
    let records: CheckRecord[];
    try {
      records = scenario.judge({ report: parsed.report, journal, listed });
    } catch (err) {
      // A report of the wrong shape (a string where an array is due) is the client's, not a crash of the kit.
      records = scenario.requirements.map((id) => ({ id, status: 'fail', message: `the client's report could not be read: ${(err as Error).message}` }));
    }
    return { scenario, baseUrl, run, report: parsed.report, journal, records };
  } finally {
    await server.close();
  }
}

/** Turns the failures (and warnings) of a scenario built on a failed one into skips naming that failure (one deviation, reported once). */
export function blockByBase(results: readonly ScenarioResult[]): void {
  const byId = new Map(results.map((r) => [r.scenario.id, r]));
  for (const r of results) {
    const base = r.scenario.after === undefined ? undefined : byId.get(r.scenario.after);
    const baseFail = base?.records.find((x) => x.status === 'fail' || x.status === 'error');
    if (!base || !baseFail) continue;
    r.records = r.records.map((x) =>
      x.status === 'fail' || x.status === 'error' || x.status === 'warn'
        ? { id: x.id, status: 'skip', message: x.message, cause: { ...(baseFail.status === 'fail' ? { id: baseFail.id } : {}), message: `the client failed the scenario ${base.scenario.id} this one builds on: ${baseFail.message ?? baseFail.id}` } }
        : x,
    );
  }
}

export async function runClientScenarios(options: ClientRunOptions): Promise<ScenarioResult[]> {
  const bounds: RunBounds = { ...DEFAULT_BOUNDS, ...options.bounds };
  const one = async (scenario: Scenario): Promise<ScenarioResult> => {
    const r = await runScenario(scenario, options.driver, bounds, options.seed);
    options.onScenario?.(r);
    return r;
  };
  const scenarios = options.scenarios ?? SCENARIOS;
  const results: ScenarioResult[] = [];
  if (options.parallel) results.push(...(await Promise.all(scenarios.map(one))));
  else for (const scenario of scenarios) results.push(await one(scenario));
  blockByBase(results);
  return results;
}
