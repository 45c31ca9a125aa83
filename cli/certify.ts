// `chatconform run --certify`: refuses a run that would certify less than the whole suite and reads the signing key
// before anything runs (a certification must not run for an hour and then fail to sign); once the run is judged,
// writes the bundle (report/bundle.ts) with the command as given, the key never.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { certifyProblems, kitCommit, loadSigningKey, writeBundle } from '../report/bundle.ts';
import type { ConformanceReport } from '../report/json.ts';
import { ENV } from '../run/config.ts';
import { isPublicHeader, parseHeaderLine } from '../run/extra-headers.ts';
import type { RunPlan } from '../run/plan.ts';
import { loadProfile } from '../run/profile.ts';
import { describeSelection, type Selection } from '../run/selection.ts';
import { attributeOf, longFlagOf, SETTINGS, type Setting } from '../run/settings.ts';
import { REDACTION_MASK } from '../spec/redact.ts';
import { runSecrets } from '../run/run-secrets.ts';
import { KIT_ROOT } from './kit-files.ts';
import { ConfigError, UsageError } from './usage.ts';

/** The flags of `chatconform run` by their commander attribute (cli/run.ts). */
export type CertifyFlags = { grep?: string; certify?: boolean; bundleDir?: string; [attribute: string]: string | number | boolean | string[] | undefined };

export interface Certification {
  signKey?: ReturnType<typeof loadSigningKey>;
  profilePath: string;
}

/** Checks a --certify run before it starts; undefined without --certify. */
export function prepareCertification(plan: RunPlan, sel: Selection | undefined, flags: CertifyFlags): Certification | undefined {
  if (flags.signKey !== undefined && !flags.certify) throw new UsageError('--sign-key signs a certification bundle: give --certify too');
  if (!flags.certify) return undefined;
  // The profile given (the embedded mock's own does not certify anything), and the plan's fuzz runs (the profile's budget, else the default).
  const profilePath = plan.given.includes('profile') ? plan.settings.profile : undefined;
  const problems = certifyProblems({
    ...(sel ? { selection: describeSelection(sel) } : flags.grep !== undefined ? { selection: `--grep ${flags.grep}` } : {}),
    ...(profilePath ? { profilePath } : {}),
    profile: profilePath ? loadProfile(profilePath) : {},
    fuzzRuns: plan.settings.fuzzRuns ?? 25,
  });
  if (problems.length > 0) throw new UsageError(`--certify: ${problems.join('; ')}`);
  const keyFile = plan.settings.signKey;
  if (!keyFile) return { profilePath: profilePath! };
  try {
    return { profilePath: profilePath!, signKey: loadSigningKey(keyFile) };
  } catch (err) {
    throw new ConfigError(`--sign-key: ${(err as Error).message}`);
  }
}

/** Writes the bundle of a judged certification run and says where. */
export async function writeCertification(c: Certification, report: ConformanceReport, reportDir: string, apiKey: string | undefined, flags: CertifyFlags): Promise<void> {
  const commit = kitCommit(KIT_ROOT);
  const { dir, tarball } = await writeBundle({
    reportDir,
    bundleDir: path.resolve(flags.bundleDir ?? 'chatconform-bundle'),
    report,
    profile: loadProfile(c.profilePath),
    // One redaction per run: the run's key and every other secret the run knows (headers, profiles, the reference).
    secrets: [...new Set([apiKey ?? '', ...runSecrets(undefined, process.env)])].filter((s) => s.length >= 4),
    command: commandLine(flags),
    catalogText: readFileSync(path.join(KIT_ROOT, 'spec/requirements/requirements.json'), 'utf8'),
    ...(commit ? { commit } : {}),
    ...(c.signKey ? { signKey: c.signKey } : {}),
  });
  process.stdout.write(`certification bundle: ${dir} and ${tarball} (${c.signKey ? 'signed; chatconform verify --verify-key PUBLIC.pem checks it' : 'checksummed, unsigned (--sign-key signs it); chatconform verify checks it'})\n`);
}

/** A header as the bundle's command records it: its value masked unless declared public (as in every output). */
function maskedHeaderLine(line: string, publicNames: readonly string[]): string {
  const [name, value] = parseHeaderLine(line);
  return `${name}: ${isPublicHeader(name, publicNames) ? value : REDACTION_MASK}`;
}

/** The command as given, for the bundle: every flag, the key never (it comes from the environment). */
export function commandLine(flags: CertifyFlags): string {
  const parts = ['chatconform', 'run'];
  for (const s of SETTINGS as readonly Setting[]) {
    const value = flags[attributeOf(s)];
    if (value === undefined || value === false) continue;
    // The long name: a flag with a short alias (`-H, --header`) is recorded by its long one.
    const name = longFlagOf(s);
    if (s.name === 'apiKey') parts.push(name, `"$${ENV.apiKey}"`);
    else if (s.kind === 'headers') for (const line of value as string[]) parts.push(name, JSON.stringify(maskedHeaderLine(line, (flags.publicHeader as string[] | undefined) ?? [])));
    else if (value === true) parts.push(name);
    else parts.push(name, JSON.stringify(Array.isArray(value) ? value.join(',') : String(value)));
  }
  if (flags.grep !== undefined) parts.push('--grep', JSON.stringify(flags.grep));
  if (flags.certify) parts.push('--certify');
  if (flags.bundleDir) parts.push('--bundle-dir', JSON.stringify(flags.bundleDir));
  return parts.join(' ');
}
