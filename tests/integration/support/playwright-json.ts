// The tests of a run as Playwright's JSON reporter printed them on stdout (beside the conformance reporter): each
// with its file, its annotations and the worker that ran it.

interface JsonTest {
  annotations: { type: string; description?: string }[];
  results: { status: string; workerIndex: number }[];
}
interface JsonSuite {
  title: string;
  specs?: { title: string; tests: JsonTest[] }[];
  suites?: JsonSuite[];
}

export interface RanTest {
  /** The spec file, as the JSON report names it (relative to the suite's folder). */
  file: string;
  annotations: JsonTest['annotations'];
  workerIndex: number;
  status: string;
}

/**
 * Playwright's JSON report in `stdout`: from the first `{` to the first closing brace in column 0 (the kit's summary
 * after it quotes curls, braces and all).
 */
export function jsonReportOf(stdout: string): { suites: JsonSuite[] } {
  const start = stdout.indexOf('{');
  return JSON.parse(stdout.slice(start, stdout.indexOf('\n}', start) + 2)) as { suites: JsonSuite[] };
}

/** Every test of the JSON report in `stdout`. */
export function testsOfJsonReport(stdout: string): RanTest[] {
  const json = jsonReportOf(stdout);
  const ran: RanTest[] = [];
  const walk = (s: JsonSuite, file: string) => {
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests) {
        const last = t.results.at(-1)!;
        ran.push({ file, annotations: t.annotations, workerIndex: last.workerIndex, status: last.status });
      }
    }
    for (const child of s.suites ?? []) walk(child, file);
  };
  for (const f of json.suites) walk(f, f.title);
  return ran;
}
