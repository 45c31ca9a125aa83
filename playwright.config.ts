// The project's own tests, in tiers (the conformance suite has its own config: suites/conformance.config.ts).
// - unit, integration: `npm test`, what a contributor runs after each change (minutes, not tens of minutes).
// - slow: `npm run test:slow`, the tests too slow for that path (an install from the registry, a real browser, the
//   bench ladder, long whole-suite runs against third-party and hostile targets).
// - matrix: `npm run test:matrix`, every defect and variant as a whole-suite run.
// - explore: `npm run test:explore` (CHATCONFORM_EXPLORE=1), the seeded tests (those importing tests/support/seed.ts)
//   with random seeds, each printed.
// - installed: `npm run test:installed` (CHATCONFORM_KIT=installed), the integration files that start the
//   `chatconform` command (INSTALLED_KIT_FILES) run again against the packed tarball installed in an empty project
//   (tests/integration/support/installed-kit.ts), as a user installs it; .ci/run runs a part of them
//   (`npm run test:installed:ci`, INSTALLED_KIT_CI_FILES).
// .ci/run runs every tier but explore. A file is in exactly one of unit, integration, slow, matrix; installed runs
// some of them a second time.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

/**
 * Integration files out of the contributor's path; each still runs in .ci/run (npm run test:slow): the packaging
 * test (a build, an install from the registry), the HTML report and `chatconform ui` in a real browser, the bench ladder, and the
 * files whose tests are whole-suite runs against special targets (a third-party server, hostile and slow targets,
 * a 200 MB body, proxies in between, an echoed key, targets with one deviation each, baselines in defect modes,
 * the evidence of every suite area in a defect of its own, three shards of the whole suite merged, two shards of a
 * run with trials and a reference merged, a target beside its reference and repeated trials, a per-model matrix (and
 * its shards merged and rerun), a run and its reruns, the four reference client adapters under every client scenario),
 * each one to several minutes of the two cores; the container image, built and run with podman; and the same runs
 * from the sources and from the installed package, compared; every command of the docs, from an install and a clone.
 */
export const SLOW_FILES = [
  'card-pairs.spec.ts',
  'packaging.spec.ts',
  'reports-browser.spec.ts',
  'bench-ladder.spec.ts',
  'third-party-aimock.spec.ts',
  'hostile-targets.spec.ts',
  'transport-bounded-body.spec.ts',
  'slow-target.spec.ts',
  'transport-proxies.spec.ts',
  'scratch-no-credential.spec.ts',
  'verdict-evidence.spec.ts',
  'blame.spec.ts',
  'ci-gating.spec.ts',
  'finding-evidence-suite.spec.ts',
  'shards-full.spec.ts',
  'shards-features.spec.ts',
  'reference-and-trials.spec.ts',
  'model-matrix.spec.ts',
  'model-matrix-shards-rerun.spec.ts',
  'rerun-failed.spec.ts',
  'slots-one-run.spec.ts',
  'slots-compiled.spec.ts',
  'client-adapters.spec.ts',
  'container.spec.ts',
  'listing-large.spec.ts',
  'deep-nesting.spec.ts',
  'installed-parity.spec.ts',
  'doc-commands.spec.ts',
  'ui-browser.spec.ts',
].map((f) => `**/${f}`);
export const MATRIX_FILES = ['**/defect-matrix-full.spec.ts'];

/**
 * The files run a second time against the installed package (CHATCONFORM_KIT=installed, the `installed` project):
 * those of the integration tier that start the `chatconform` command through support/cli-process.ts, where the
 * compiled kit can differ from its sources (test locations, data files found beside the code, the runner the
 * command spawns, signals through npm's shim). The slow tier's long whole-suite runs stay on the sources: the parity
 * tests (installed-parity.spec.ts) compare the installed kit's reports with the sources' on those features. A file of
 * the integration tier that starts the command is in this list or in SOURCES_ONLY_FILES (tests/unit/tiers.spec.ts).
 */
export const INSTALLED_KIT_FILES = [
  'cli.spec.ts',
  'client-cli.spec.ts',
  'control-api-guard.spec.ts',
  'first-contact.spec.ts',
  'harness-cli.spec.ts',
  'hostile-files.spec.ts',
  'mock-cors.spec.ts',
  'mock-fixture-files.spec.ts',
  'mock-runtime.spec.ts',
  'model-matrix-bounds.spec.ts',
  'proxy-record-replay.spec.ts',
  'proxy-reliability.spec.ts',
  'proxy.spec.ts',
  'reachability.spec.ts',
  'replay-hostile.spec.ts',
  'replay-pace.spec.ts',
  'run-headers.spec.ts',
  'run-plan.spec.ts',
  'selection-empty.spec.ts',
  'settings.spec.ts',
  'shards-hostile.spec.ts',
  'shards.spec.ts',
  'stream-error-event.spec.ts',
].map((f) => `**/${f}`);

/**
 * What .ci/run runs of INSTALLED_KIT_FILES (`npm run test:installed:ci`, CHATCONFORM_KIT_FILES=ci): the whole list
 * takes about 9 min on one worker, and the slow tier already runs the installed kit in its parity, packaging and
 * doc-command tests (every command of the docs from an install: mock, proxy, replay, client, shards and their merge,
 * baseline, certify, verify, init). These files hold what those do not: the command's own flags, listings and
 * errors (cli), the setup mistakes and files found beside the code or the working directory (first-contact,
 * hostile-files, mock-fixture-files), and the runner and workers the installed command starts (run-plan). About 3 min
 * on one worker, the pack and install included. `npm run test:installed` runs them all (before a release).
 */
export const INSTALLED_KIT_CI_FILES = ['cli.spec.ts', 'first-contact.spec.ts', 'hostile-files.spec.ts', 'mock-fixture-files.spec.ts', 'run-plan.spec.ts'].map((f) => `**/${f}`);

/** Integration files that start the `chatconform` command but run on the sources only, and why. */
export const SOURCES_ONLY_FILES: Record<string, string> = {
  'conformance-run.spec.ts': 'its command is only the mock beside a suite run from the sources',
  'harness-clients.spec.ts': 'its command is only the mock beside a suite run from the sources',
  'exit-codes.spec.ts': "half of it is `npm run conformance`, a clone's command; the installed command's exit codes are cli.spec.ts's and the parity tests'",
  'mock-hardening-property.spec.ts': "a property test of the mock's answers: the installed mock is the one the other mock files start",
};

/** An import of tests/support/seed.ts (tests/integration/test-hygiene.spec.ts requires it of every file drawing random inputs). */
export const SEED_IMPORT = /^import .*support\/seed\.ts';$/m;

/** Spec files under tests/ that draw their random inputs from tests/support/seed.ts. */
function seededFiles(): string[] {
  const root = fileURLToPath(new URL('./tests/', import.meta.url));
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.spec.ts') && SEED_IMPORT.test(readFileSync(path.join(root, f), 'utf8')))
    .map((f) => `**/${f.split(path.sep).join('/')}`);
}

export default defineConfig({
  outputDir: 'test-results/self',
  // The run's folder for an installed kit; under CHATCONFORM_KIT=installed, the kit installed there first.
  globalSetup: './tests/integration/support/installed-kit-setup.ts',
  // The plain summary goes last: CI reads the final line.
  reporter: [['list'], ['./tests/support/plain-summary-reporter.ts']],
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  workers: 2,
  projects: [
    { name: 'unit', testDir: 'tests/unit' },
    { name: 'integration', testDir: 'tests/integration', testIgnore: [...SLOW_FILES, ...MATRIX_FILES] },
    // The matrix first: .ci/run runs it with the slow tier in one run, and it is the longest test.
    { name: 'matrix', testDir: 'tests/integration', testMatch: MATRIX_FILES },
    { name: 'slow', testDir: 'tests/integration', testMatch: SLOW_FILES },
    // Only under test:installed, so that the sources' runs stay one per file.
    ...(process.env.CHATCONFORM_KIT === 'installed'
      ? [{ name: 'installed', testDir: 'tests/integration', testMatch: process.env.CHATCONFORM_KIT_FILES === 'ci' ? INSTALLED_KIT_CI_FILES : INSTALLED_KIT_FILES }]
      : []),
    // Only under test:explore, so that running one seeded file by its path runs it once.
    ...(process.env.CHATCONFORM_EXPLORE === '1' ? [{ name: 'explore', testDir: 'tests', testMatch: seededFiles() }] : []),
  ],
});
