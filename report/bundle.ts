// Certification: a verdict a third party can check. `run --certify` refuses what would make the verdict less than
// the whole suite (a selection, a budget below the defaults, no profile) and then writes a bundle: a folder and
// its .tar.gz holding the four reports, the profile with its secrets removed, and bundle.json (the kit's version
// and commit, the contract's and the catalog's digests, the seed, the exact command). SHA256SUMS covers every
// file; `verify` recomputes it, cross-checks bundle.json against conformance.json, and prints the verdict.
// Checksums alone prove only that the files agree with each other (anyone can regenerate SHA256SUMS), so with
// `--sign-key` the manifest is also signed (ed25519, SHA256SUMS.sig); `verify --verify-key` checks that signature
// against the certifier's public key, which is what makes a forged bundle fail.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
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
/** The manifest's ed25519 signature (base64), beside it; not listed in it (it signs it). */
export const SIGNATURE = 'SHA256SUMS.sig';
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
  verdict: { result: string; summary: string; exitStatus: string; exitCode?: number };
  /** Set when the bundle is signed: the algorithm and the SHA-256 of the signer's public key (SPKI DER). */
  signature?: { algorithm: 'ed25519'; file: string; publicKeySha256: string };
}

/** An ed25519 private key from a PEM file (`--sign-key`); throws a one-line reason otherwise. */
export function loadSigningKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file));
  } catch (err) {
    throw new Error(`${file}: not a readable PEM private key (${(err as Error).message.split('\n')[0]})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file}: an ${key.asymmetricKeyType ?? 'unknown'} key; a bundle is signed with an ed25519 key`);
  return key;
}

/** An ed25519 public key from a PEM file (`--verify-key`; a private key's PEM gives its public half). */
export function loadVerifyKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(readFileSync(file));
  } catch (err) {
    throw new Error(`${file}: not a readable PEM public key (${(err as Error).message.split('\n')[0]})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file}: an ${key.asymmetricKeyType ?? 'unknown'} key; bundles are signed with ed25519`);
  return key;
}

/** The fingerprint bundle.json records of the signer: SHA-256 of the public key's SPKI DER. */
export function publicKeySha256(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return sha256(pub.export({ type: 'spki', format: 'der' }));
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
  /** The certifier's ed25519 private key: the manifest is signed with it. */
  signKey?: KeyObject;
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
    verdict: { result: r.verdict.result, summary: r.verdict.summary, exitStatus: r.verdict.exitStatus, exitCode: r.verdict.exitCode },
    ...(input.signKey ? { signature: { algorithm: 'ed25519' as const, file: SIGNATURE, publicKeySha256: publicKeySha256(input.signKey) } } : {}),
  };
  writeFileSync(path.join(dir, BUNDLE_INFO), `${JSON.stringify(info, null, 2)}\n`);
  const names = readdirSync(dir).filter((f) => f !== MANIFEST).sort();
  const manifest = names.map((f) => `${sha256(readFileSync(path.join(dir, f)))}  ${f}\n`).join('');
  writeFileSync(path.join(dir, MANIFEST), manifest);
  // The manifest names every file's digest, so signing it signs them all.
  if (input.signKey) writeFileSync(path.join(dir, SIGNATURE), `${sign(null, Buffer.from(manifest), input.signKey).toString('base64')}\n`);
  const tarball = `${dir}.tar.gz`;
  await tar.create({ gzip: true, file: tarball, cwd: path.dirname(dir), portable: true }, [path.basename(dir)]);
  return { dir, tarball };
}

/**
 * What the signature proves: `verified` (it holds for the given public key), `invalid` (it does not, or is missing
 * although a key was given), `unchecked` (the bundle is signed but no key was given), `unsigned` (checksums only).
 */
export type SignatureState = 'verified' | 'invalid' | 'unchecked' | 'unsigned';

export interface Verification {
  ok: boolean;
  problems: string[];
  signature: SignatureState;
  info?: BundleInfo;
  /** The verdict conformance.json states. */
  verdict?: { result: string; summary: string };
}

/**
 * bundle.json against conformance.json: what both state must agree (a forger who edits one and regenerates the
 * checksums must edit both consistently, and a signature stops even that).
 */
function crossCheck(info: BundleInfo, report: ConformanceReport): string[] {
  const problems: string[] = [];
  const same = (what: string, inInfo: unknown, inReport: unknown): void => {
    if (JSON.stringify(inInfo ?? null) !== JSON.stringify(inReport ?? null)) {
      problems.push(`${BUNDLE_INFO} and conformance.json disagree on ${what}: ${JSON.stringify(inInfo ?? null)} vs ${JSON.stringify(inReport ?? null)}`);
    }
  };
  same('the target', info.target, report.target?.url);
  same('the kit name', info.kit?.name, report.kit?.name);
  same('the kit version', info.kit?.version, report.kit?.version);
  same('the contract file', info.spec?.file, report.spec?.file);
  same("the contract's digest", info.spec?.sha256, report.spec?.sha256);
  same('the seed', info.seed, report.run?.seed);
  same('the verdict', info.verdict?.result, report.verdict?.result);
  same("the verdict's summary", info.verdict?.summary, report.verdict?.summary);
  same('the exit status', info.verdict?.exitStatus, report.verdict?.exitStatus);
  if (info.verdict?.exitCode !== undefined) same('the exit code', info.verdict.exitCode, report.verdict?.exitCode);
  return problems;
}

/**
 * Re-checks a bundle (its folder or its .tar.gz): every file against SHA256SUMS, nothing unlisted, bundle.json
 * against conformance.json, and with `verifyKey` the manifest's signature.
 */
export async function verifyBundle(target: string, verifyKey?: KeyObject): Promise<Verification> {
  let dir = path.resolve(target);
  let scratch: string | undefined;
  const problems: string[] = [];
  const failed = (p: string[]): Verification => ({ ok: false, problems: p, signature: verifyKey ? 'invalid' : 'unsigned' });
  try {
    if (!existsSync(dir)) return failed([`${target}: no such bundle`]);
    if (statSync(dir).isFile()) {
      scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-verify-'));
      try {
        await tar.extract({ file: dir, cwd: scratch, strict: true });
      } catch (err) {
        return failed([`${target}: not a readable .tar.gz (${(err as Error).message})`]);
      }
      const top = readdirSync(scratch);
      if (top.length !== 1 || !statSync(path.join(scratch, top[0]!)).isDirectory()) return failed([`${target}: the archive must hold one bundle folder`]);
      dir = path.join(scratch, top[0]!);
    }
    const manifestFile = path.join(dir, MANIFEST);
    if (!existsSync(manifestFile)) return failed([`${MANIFEST} is missing`]);
    const manifest = readFileSync(manifestFile);
    const listed = new Map<string, string>();
    for (const line of manifest.toString('utf8').split('\n').filter(Boolean)) {
      const m = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
      if (!m) problems.push(`${MANIFEST}: a line is not "<sha256>  <file>": ${line.slice(0, 100)}`);
      else listed.set(m[2]!, m[1]!);
    }
    for (const [name, digest] of listed) {
      const file = path.join(dir, name);
      if (path.basename(name) !== name || !existsSync(file)) problems.push(`${name}: listed in ${MANIFEST} but missing`);
      else if (sha256(readFileSync(file)) !== digest) problems.push(`${name}: its SHA-256 does not match ${MANIFEST} (the file was changed)`);
    }
    for (const name of readdirSync(dir)) if (name !== MANIFEST && name !== SIGNATURE && !listed.has(name)) problems.push(`${name}: in the bundle but not in ${MANIFEST}`);
    for (const required of [...REPORT_FILES, 'profile.json', BUNDLE_INFO]) if (!listed.has(required)) problems.push(`${required}: missing from ${MANIFEST}`);
    let info: BundleInfo | undefined;
    let verdict: Verification['verdict'];
    try {
      info = JSON.parse(readFileSync(path.join(dir, BUNDLE_INFO), 'utf8')) as BundleInfo;
      const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
      verdict = { result: report.verdict.result, summary: report.verdict.summary };
      problems.push(...crossCheck(info, report));
    } catch (err) {
      problems.push(`the bundle's JSON cannot be read: ${(err as Error).message}`);
    }
    // The signature: over the manifest's bytes exactly as written.
    const sigFile = path.join(dir, SIGNATURE);
    const signed = existsSync(sigFile);
    if (!signed && info?.signature) problems.push(`${BUNDLE_INFO} says the bundle is signed, but ${SIGNATURE} is missing`);
    let signature: SignatureState = signed ? 'unchecked' : 'unsigned';
    if (verifyKey) {
      signature = 'invalid';
      if (!signed) problems.push(`the bundle is not signed (no ${SIGNATURE}), and a signature was required (--verify-key)`);
      else {
        let holds = false;
        try {
          holds = verify(null, manifest, verifyKey, Buffer.from(readFileSync(sigFile, 'utf8').trim(), 'base64'));
        } catch {
          holds = false;
        }
        if (!holds) problems.push(`${SIGNATURE}: the signature of ${MANIFEST} does not hold for the given public key (the bundle was changed, or signed by another key)`);
        else if (info?.signature && info.signature.publicKeySha256 !== publicKeySha256(verifyKey)) problems.push(`${BUNDLE_INFO} names another signing key than the one given`);
        else signature = 'verified';
      }
    }
    return { ok: problems.length === 0, problems, signature, ...(info ? { info } : {}), ...(verdict ? { verdict } : {}) };
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** What the signature state means, in one sentence. */
const SIGNATURE_LINES: Record<SignatureState, string> = {
  verified: `signature: VERIFIED (ed25519, over ${MANIFEST}) with the given public key: the files are the ones its holder certified`,
  invalid: 'signature: NOT VERIFIED with the given public key',
  unchecked: `signature: the bundle is signed, but the signature was NOT CHECKED (no --verify-key): give the certifier's public key to check it`,
  unsigned: `signature: none. The bundle is checksummed but UNSIGNED: ${MANIFEST} proves only that its files agree with each other (anyone can regenerate it), not who made them`,
};

/** What `verify` prints. */
export function formatVerification(target: string, v: Verification): string {
  const lines = [v.ok ? `${target}: the manifest holds (${MANIFEST} covers every file; ${BUNDLE_INFO} agrees with conformance.json)` : `${target}: NOT VERIFIED`];
  for (const p of v.problems) lines.push(`  - ${p}`);
  if (v.verdict) lines.push(`verdict: ${v.verdict.result.toUpperCase()} — ${v.verdict.summary}`);
  lines.push(SIGNATURE_LINES[v.signature]);
  if (v.info) lines.push(`kit ${v.info.kit.name} ${v.info.kit.version}${v.info.kit.commit ? ` (${v.info.kit.commit.slice(0, 12)})` : ''}; catalog ${v.info.catalogSha256.slice(0, 12)}; seed ${v.info.seed ?? '(none)'}; target ${v.info.target ?? '(none)'}`, `command: ${v.info.command}`);
  return `${lines.join('\n')}\n`;
}
