// What the report says about the run itself: the target, the kit and spec versions, the seed, the spending.
// Read in the runner process from the run's plan (run/plan.ts); a run whose setup failed (no target, bad profile)
// still gets a report, from whatever the plan holds.
//
// Nothing here reads outside the kit: the contract's file name, digest and section titles come from the catalog
// (spec/requirements/contract.json), the kit's name and version from its own package.json.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { defaultReportDir, ENV, kitPackage, normaliseBaseUrl, repoRoot, runConfig, type RunConfig } from '../run/config.ts';
import { currentPlan } from '../run/plan.ts';
import { runSecrets } from '../run/run-secrets.ts';
import { kitBuild } from '../run/kit-build.ts';
import { Ledger } from '../run/ledger.ts';
import { loadProfile, type Profile } from '../run/profile.ts';
import { displayPath } from '../run/display-path.ts';
import { CONTRACT, requirements, type Requirement } from '../spec/requirements/index.ts';
import { targetRequirements } from './results.ts';
import type { RerunOf } from '../run/rerun.ts';

export interface RunInfo {
  kit: { name: string; version: string; build?: string };
  /** Counts of the catalog records the target is judged on; `kitOnly` mock-only records (about the kit) are left out. */
  spec: { file: string; sha256?: string; catalogRecords: number; requirements: number; observations: number; kitOnly?: number };
  target: { url?: string; embeddedMock: boolean; profile?: { name?: string; path?: string } };
  seed?: number;
  fuzzRuns?: number;
  ledger?: { requests: number; cost: number; costedResponses: number };
  reportDir: string;
  /** Every credential the run knows; the report redacts them all. */
  secrets: string[];
  /** Section titles from the spec's headings ("2.10" → "Model catalog entry"). */
  sectionTitles: Map<string, string>;
  /** What could not be read (reported, never fatal). */
  problems: string[];
  /** A rerun (--last-failed, --rerun FILE): the run it reran, its report's path relative to reportDir. */
  rerunOf?: RerunOf;
}

export function kitInfo(): RunInfo['kit'] {
  const pkg = kitPackage();
  // The build (a content digest of the kit): shards of two builds of one version are not one run (report/merge.ts).
  return { name: pkg.name, version: pkg.version, build: kitBuild() };
}

/** The contract and the catalog records a target is judged on (`kitOnly`: the records about the kit itself). */
export function specInfo(list: readonly Requirement[] = requirements): RunInfo['spec'] {
  const scope = targetRequirements(list);
  return {
    file: CONTRACT.file,
    sha256: CONTRACT.sha256,
    catalogRecords: scope.length,
    requirements: scope.filter((r) => r.kind === 'requirement').length,
    observations: scope.filter((r) => r.kind === 'observation').length,
    kitOnly: list.filter((r) => r.check === 'mock-only').length,
  };
}

/** A URL with its credentials, query and fragment removed: only origin and path go into a report. */
export function publicUrl(raw: string): string | undefined {
  try {
    const u = new URL(raw);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

/** The run's configuration, or as much of it as the environment holds when the setup never completed. */
function configOrFallback(problems: string[], given?: RunConfig): { config?: RunConfig; apiKey: string; profile: Profile; profilePath?: string; reportDir: string } {
  try {
    const config = given ?? runConfig();
    return { config, apiKey: config.apiKey, profile: config.profile, ...(config.profilePath ? { profilePath: config.profilePath } : {}), reportDir: config.reportDir };
  } catch (err) {
    problems.push(`run configuration: ${(err as Error).message.split('\n')[0]}`);
  }
  const plan = currentPlan();
  const profilePath = plan?.settings.profile;
  let profile: Profile = {};
  try {
    profile = loadProfile(profilePath);
  } catch (err) {
    problems.push(`profile: ${(err as Error).message.split('\n')[0]}`);
  }
  return {
    // The key is a credential: the run's processes have it in their environment, never in the plan.
    apiKey: process.env[ENV.apiKey] ?? profile.apiKey ?? '',
    profile,
    ...(profilePath ? { profilePath } : {}),
    reportDir: plan?.settings.reportDir ?? defaultReportDir(),
  };
}

/** The run's facts for its report; `given`: one target's configuration in a run of many (run/targets.ts). */
export function collectRunInfo(given?: RunConfig): RunInfo {
  const problems: string[] = [];
  const { config, apiKey, profile, profilePath, reportDir } = configOrFallback(problems, given);
  const plan = currentPlan();
  const rawUrl = config?.baseUrl ?? plan?.settings.baseUrl;
  let url: string | undefined;
  if (rawUrl) {
    try {
      url = normaliseBaseUrl(rawUrl);
    } catch {
      url = publicUrl(rawUrl);
    }
  }
  const runDir = config?.runDir ?? (plan?.runDir || undefined);
  let ledger: RunInfo['ledger'];
  if (runDir && existsSync(path.join(runDir, 'ledger.jsonl'))) {
    ledger = Ledger.in(runDir, { maxRequests: Infinity, maxCost: Infinity }).totals();
  } else if (runDir) {
    ledger = { requests: 0, cost: 0, costedResponses: 0 };
  }
  const seed = config ? config.seed : plan?.seed;
  const profileInfo: { name?: string; path?: string } = {};
  if (profile.name) profileInfo.name = profile.name;
  // The kit's own profiles by their place in the package; the user's relative to where the run started.
  if (profilePath) profileInfo.path = displayPath(profilePath, process.cwd(), repoRoot, { kitPrefix: false });
  const info: RunInfo = {
    kit: kitInfo(),
    spec: specInfo(),
    target: { embeddedMock: config?.embeddedMock ?? plan?.embeddedMock ?? false },
    reportDir,
    // Every secret of the run (run/run-secrets.ts): this target's, every other target's and the reference's.
    secrets: runSecrets(config ?? ({ apiKey, profile } as RunConfig)),
    sectionTitles: new Map(Object.entries(CONTRACT.sections)),
    problems,
  };
  // A value the run does not know is omitted, never null.
  if (url) info.target.url = url;
  if (Object.keys(profileInfo).length > 0) info.target.profile = profileInfo;
  if (seed !== undefined && Number.isSafeInteger(seed)) info.seed = seed;
  if (config) info.fuzzRuns = config.fuzzRuns;
  if (ledger) info.ledger = ledger;
  const rerun = plan?.rerun;
  // Relative to this report's folder, where the rerun's reports sit (rerun/ of the earlier report dir).
  if (rerun) info.rerunOf = { ...rerun, report: path.relative(reportDir, rerun.report).split(path.sep).join('/') || rerun.report };
  return info;
}
