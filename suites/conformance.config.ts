// `npm run conformance` (and `chatconform run`): the suite against CONFORMANCE_BASE_URL, or the embedded mock
// when it is unset.
import path from 'node:path';
import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { selectionGrep, selectionOf } from '../run/selection.ts';
import { planOfThisRun } from '../run/plan.ts';
import { defaultReportDir } from '../run/config.ts';
import { shardOf } from '../run/shard.ts';
import { BLOB_DIR, MERGE_CONTEXT_ENV } from '../report/merge.ts';
import { resolveModelMatrix } from './lib/discovery-matrix.ts';
import { SLOT_GREP_INVERT } from '../run/slots.ts';

// The run's plan (run/plan.ts): the one `chatconform run` wrote (CONFORMANCE_PLAN), else resolved here once from
// the CONFORMANCE_* variables and the config file, with the seed fixed; the workers inherit its path and read it.
// `playwright merge-reports` replays a finished run: it plans nothing.
const plan = process.env[MERGE_CONTEXT_ENV] ? undefined : planOfThisRun();

// The runner and every worker load this file: their heaps grow by 20 % of what a full collection keeps, not up to 4x
// (a worker's tests leave garbage, not state: a --models run's workers held ~450 MB each, ~270 MB so; cli/mock.ts).
v8.setFlagsFromString('--heap-growing-percent=20');
v8.setFlagsFromString('--no-allocation-site-pretenuring');

// The same config serves the TypeScript sources (the repository) and the compiled package (dist/, JavaScript):
// it names the suite's own files with its own extension.
const ext = path.extname(fileURLToPath(import.meta.url));

// Progress: the kit's own line (tests done, requirements judged by mark, MUST failures, time), rewritten in place on a
// terminal, a short line every few seconds in CI; then the verdict. Never Playwright's pass count beside a FAIL.
const progress = `./reporter/progress${ext}`;

// One shard of the run (CONFORMANCE_SHARD, `chatconform run --shard i/n`): Playwright's sharding, and its blob
// report beside the shard's partial conformance.json for `chatconform report merge`.
const shard = shardOf();
// A watcher of the run (`--events FILE`, as `chatconform ui` starts it): each finished case appended to that file
// (suites/reporter/events.ts).
const events: ReporterDescription[] = plan?.settings.events ? [[`./reporter/events${ext}`]] : [];
const reporters: ReporterDescription[] = process.env[MERGE_CONTEXT_ENV]
  ? // `playwright merge-reports` (chatconform report merge): only the conformance reporter, fed the shards' tests.
    [[`./reporter${ext}`]]
  : // The blob reporter before the conformance reporter: Playwright ends reporters in order, so the blob is whole when
    // the shard's conformance.json records its digest (the merge replays only that blob).
    [[progress], ...(shard ? [['blob', { outputDir: path.join(plan?.settings.reportDir ?? defaultReportDir(), BLOB_DIR) }] as ReporterDescription] : []), [`./reporter${ext}`], ...events];
// --models: the chosen models, resolved once here and written beside the plan. Targets (a targets file, the reference),
// models and trials are the run's slots (run/slots.ts): each spec file declares its tests once per slot that holds
// them (suites/lib/slots.ts), all in this one project, so the same workers serve every slot.
await resolveModelMatrix(plan);
const selection = selectionGrep(selectionOf());

export default defineConfig({
  testDir: '.',
  testMatch: `**/*.spec${ext}`,
  // The kit's checks of itself run in npm test (suites/kit.config.ts), never in a target's verdict. Matched by their
  // own folder: Playwright reads a bare 'kit/**' as '**/kit/**', which ignored every test of a kit installed or
  // cloned under any folder named kit.
  testIgnore: new RegExp(`^${(path.join(path.dirname(fileURLToPath(import.meta.url)), 'kit') + path.sep).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
  // `chatconform run` passes --output (a temp folder): an installed kit writes nothing inside node_modules.
  outputDir: '../test-results/conformance',
  globalSetup: `./global-setup${ext}`,
  fullyParallel: true,
  workers: plan?.settings.workers ?? 2,
  // Bounded: a hanging target fails its tests in time, it never hangs the run.
  timeout: 60_000,
  retries: 0,
  reporter: reporters,
  ...(shard ? { shard: { current: shard.index, total: shard.total } } : {}),
  // A partial run (CONFORMANCE_REQUIREMENTS, _SECTIONS, _LEVELS, _EXCLUDE_REQUIREMENTS): the tests the suite's index
  // says can record a selected ID (arrays of patterns). The reporter calls the verdict partial.
  ...(selection.grep ? { grep: selection.grep } : {}),
  // Besides the selection's exclusions, each slot leaves out the tests it does not hold (a later trial and a model's
  // block of a model-independent file hold only the model-dependent tests).
  grepInvert: [...(selection.grepInvert ?? []), ...SLOT_GREP_INVERT],
  // No browser, no Playwright request context: the suite's own transport (run/http.ts) sends everything,
  // with its user-agent. Nothing that could hold a credential is kept as an artefact.
  use: { trace: 'off', screenshot: 'off', video: 'off' },
});
