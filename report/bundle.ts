// Certification: a verdict a third party can check. `run --certify` refuses what would make the verdict less than
// the whole suite (a selection, a budget below the defaults, no profile) and then writes a bundle: a folder and
// its .tar.gz holding the four reports, the profile with its secrets removed, and bundle.json (the kit's version
// and commit, the contract's and the catalog's digests, the seed, the exact command). SHA256SUMS covers every
// file; `verify` recomputes it and prints the verdict, so a changed file is caught.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import type { Profile } from '../run/profile.ts';
import { DEFAULT_BUDGET } from '../run/profile.ts';
import { redact } from '../spec/redact.ts';
import { REPORT_FILES } from './write.ts';
import type { ConformanceReport } from './json.ts';

export const MANIFEST = 'SHA256SUMS';
export const BUNDLE_INFO = 'bundle.json';
const MASK = '***REDACTED***';

export interface BundleInfo {
  kit: { name: string; version: string; commit?: string };
  spec: { file: string; sha256?: string };
  /** SHA-256 of the requirements catalog the run judged by. */
  catalogSha256: string;
  seed?: number;
  /** The command as it was run (credentials never appear in it: they come from the environment). */
  command: string;
  createdAt: string;
  target?: string;
  verdict: { result: string; summary: string; exitStatus: string };
}

/** What makes a run unfit to certify: a selection, a budget below the defaults, no profile. Empty: fit. */
export function certifyProblems(input: { selection?: string; profilePath?: string; profile: Profile; fuzzRuns: number }): string[] {
  const problems: string[] = [];
  if (input.selection) problems.push(`a certification judges the whole suite; this run selects ${input.selection}`);
  if (!input.profilePath) problems.push('a certification needs a target profile (--profile / CONFORMANCE_PROFILE): what the target offers beyond the black box');
  const budget = input.profile.budget ?? {};
  for (const key of ['maxRequests', 'maxTokensPerRequest', 'maxCost', 'fuzzRuns', 'maxSearchProbes'] as const) {
    const value = budget[key];
    if (value !== undefined && value < DEFAULT_BUDGET[key]) problems.push(`the profile's budget.${key} ${value} is below the default ${DEFAULT_BUDGET[key]}`);
  }
  if (input.fuzzRuns < DEFAULT_BUDGET.fuzzRuns) problems.push(`${input.fuzzRuns} fuzz runs per property is below the default ${DEFAULT_BUDGET.fuzzRuns}`);
  return problems;
}

/** The profile as a bundle carries it: every key and secret replaced by the mask. */
export function profileWithoutSecrets(profile: Profile, secrets: readonly string[]): Profile {
  const copy = JSON.parse(JSON.stringify(profile)) as Profile;
  if (copy.apiKey !== undefined) copy.apiKey = MASK;
  if (copy.restrictedKey) copy.restrictedKey.key = MASK;
  if (copy.lowTierKey) copy.lowTierKey.key = MASK;
  if (copy.secrets) copy.secrets = copy.secrets.map(() => MASK);
  return JSON.parse(redact(JSON.stringify(copy), secrets)) as Profile;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** The kit's commit: git's, in a checkout; in a package, the one its build recorded (dist/build-info.json); else undefined. */
export function kitCommit(root: string): string | undefined {
  try {
    if (existsSync(path.join(root, '.git'))) return execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // No git: fall through.
  }
  try {
    const commit = (JSON.parse(readFileSync(path.join(root, 'build-info.json'), 'utf8')) as { commit?: unknown }).commit;
    return typeof commit === 'string' && commit ? commit : undefined;
  } catch {
    return undefined;
  }
}

export interface BundleInput {
  reportDir: string;
  bundleDir: string;
  report: ConformanceReport;
  profile: Profile;
  secrets: readonly string[];
  command: string;
  catalogText: string;
  commit?: string;
}

/** Writes the bundle folder and `<folder>.tar.gz`; returns both paths. */
export async function writeBundle(input: BundleInput): Promise<{ dir: string; tarball: string }> {
  const dir = path.resolve(input.bundleDir);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const f of REPORT_FILES) copyFileSync(path.join(input.reportDir, f), path.join(dir, f));
  writeFileSync(path.join(dir, 'profile.json'), `${JSON.stringify(profileWithoutSecrets(input.profile, input.secrets), null, 2)}\n`);
  const r = input.report;
  const info: BundleInfo = {
    kit: { ...r.kit, ...(input.commit ? { commit: input.commit } : {}) },
    spec: { file: r.spec.file, ...(r.spec.sha256 ? { sha256: r.spec.sha256 } : {}) },
    catalogSha256: sha256(input.catalogText),
    ...(r.run.seed !== undefined ? { seed: r.run.seed } : {}),
    command: redact(input.command, input.secrets),
    createdAt: new Date().toISOString(),
    ...(r.target.url ? { target: r.target.url } : {}),
    verdict: { result: r.verdict.result, summary: r.verdict.summary, exitStatus: r.verdict.exitStatus },
  };
  writeFileSync(path.join(dir, BUNDLE_INFO), `${JSON.stringify(info, null, 2)}\n`);
  const names = readdirSync(dir).filter((f) => f !== MANIFEST).sort();
  writeFileSync(path.join(dir, MANIFEST), names.map((f) => `${sha256(readFileSync(path.join(dir, f)))}  ${f}\n`).join(''));
  const tarball = `${dir}.tar.gz`;
  await tar.create({ gzip: true, file: tarball, cwd: path.dirname(dir), portable: true }, [path.basename(dir)]);
  return { dir, tarball };
}

export interface Verification {
  ok: boolean;
  problems: string[];
  info?: BundleInfo;
  /** The verdict conformance.json states. */
  verdict?: { result: string; summary: string };
}

/** Re-checks a bundle (its folder or its .tar.gz): every file against SHA256SUMS, nothing unlisted, one verdict. */
export async function verifyBundle(target: string): Promise<Verification> {
  let dir = path.resolve(target);
  let scratch: string | undefined;
  const problems: string[] = [];
  try {
    if (!existsSync(dir)) return { ok: false, problems: [`${target}: no such bundle`] };
    if (statSync(dir).isFile()) {
      scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-verify-'));
      try {
        await tar.extract({ file: dir, cwd: scratch, strict: true });
      } catch (err) {
        return { ok: false, problems: [`${target}: not a readable .tar.gz (${(err as Error).message})`] };
      }
      const top = readdirSync(scratch);
      if (top.length !== 1 || !statSync(path.join(scratch, top[0]!)).isDirectory()) return { ok: false, problems: [`${target}: the archive must hold one bundle folder`] };
      dir = path.join(scratch, top[0]!);
    }
    const manifestFile = path.join(dir, MANIFEST);
    if (!existsSync(manifestFile)) return { ok: false, problems: [`${MANIFEST} is missing`] };
    const listed = new Map<string, string>();
    for (const line of readFileSync(manifestFile, 'utf8').split('\n').filter(Boolean)) {
      const m = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
      if (!m) problems.push(`${MANIFEST}: a line is not "<sha256>  <file>": ${line.slice(0, 100)}`);
      else listed.set(m[2]!, m[1]!);
    }
    for (const [name, digest] of listed) {
      const file = path.join(dir, name);
      if (path.basename(name) !== name || !existsSync(file)) problems.push(`${name}: listed in ${MANIFEST} but missing`);
      else if (sha256(readFileSync(file)) !== digest) problems.push(`${name}: its SHA-256 does not match ${MANIFEST} (the file was changed)`);
    }
    for (const name of readdirSync(dir)) if (name !== MANIFEST && !listed.has(name)) problems.push(`${name}: in the bundle but not in ${MANIFEST}`);
    for (const required of [...REPORT_FILES, 'profile.json', BUNDLE_INFO]) if (!listed.has(required)) problems.push(`${required}: missing from ${MANIFEST}`);
    let info: BundleInfo | undefined;
    let verdict: Verification['verdict'];
    try {
      info = JSON.parse(readFileSync(path.join(dir, BUNDLE_INFO), 'utf8')) as BundleInfo;
      const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
      verdict = { result: report.verdict.result, summary: report.verdict.summary };
      if (info.verdict.result !== report.verdict.result) problems.push(`${BUNDLE_INFO} says ${info.verdict.result} but conformance.json says ${report.verdict.result}`);
    } catch (err) {
      problems.push(`the bundle's JSON cannot be read: ${(err as Error).message}`);
    }
    return { ok: problems.length === 0, problems, ...(info ? { info } : {}), ...(verdict ? { verdict } : {}) };
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** What `verify` prints. */
export function formatVerification(target: string, v: Verification): string {
  const lines = [v.ok ? `${target}: the manifest holds (${MANIFEST} covers every file)` : `${target}: NOT VERIFIED`];
  for (const p of v.problems) lines.push(`  - ${p}`);
  if (v.verdict) lines.push(`verdict: ${v.verdict.result.toUpperCase()} — ${v.verdict.summary}`);
  if (v.info) lines.push(`kit ${v.info.kit.name} ${v.info.kit.version}${v.info.kit.commit ? ` (${v.info.kit.commit.slice(0, 12)})` : ''}; catalog ${v.info.catalogSha256.slice(0, 12)}; seed ${v.info.seed ?? '(none)'}; target ${v.info.target ?? '(none)'}`, `command: ${v.info.command}`);
  return `${lines.join('\n')}\n`;
}
