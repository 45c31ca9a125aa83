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
import { closeSync, constants as fsConstants, copyFileSync, createReadStream, existsSync, lstatSync, mkdirSync, opendirSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import * as tar from 'tar';
import type { Profile } from '../run/profile.ts';
import { DEFAULT_BUDGET } from '../run/profile.ts';
import { redact } from '../spec/redact.ts';
import { readBoundedBytes } from '../spec/file-reader.ts';
import { REPORT_FILES } from './write.ts';
import { renderHtml } from './html.ts';
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
  /** `exitStatus`: only in bundles of version-1 reports (the 0.2 kit's), compared with their report's. */
  verdict: { result: string; summary: string; exitCode?: number; exitStatus?: string };
  /** Set when the bundle is signed: the algorithm and the SHA-256 of the signer's public key (SPKI DER). */
  signature?: { algorithm: 'ed25519'; file: string; publicKeySha256: string };
}

/** A PEM key file is a few hundred bytes. */
const KEY_FILE = { maxBytes: 64 * 1024, timeoutMs: 10_000 };

/** An ed25519 private key from a PEM file (`--sign-key`); throws a one-line reason otherwise. */
export function loadSigningKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    // The kit's one reader: a regular file of a key's size, never a FIFO or a device.
    key = createPrivateKey(readBoundedBytes(file, 'the key', KEY_FILE));
  } catch (err) {
    throw new Error(`${file}: not a readable PEM private key (${(err as Error).message.split('\n')[0]})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file}: an ${key.asymmetricKeyType ?? 'unknown'} key; a bundle is signed with an ed25519 key`);
  return key;
}

/**
 * An ed25519 public key from a PEM file (`--verify-key`). A private key is refused: Node would take its public half
 * without a word, but a certifier's private key has no business on a verifier's machine, and one given by mistake
 * should be said so (its content is never echoed).
 */
export function loadVerifyKey(file: string): KeyObject {
  let pem: Buffer;
  try {
    pem = readBoundedBytes(file, 'the key', KEY_FILE);
  } catch (err) {
    throw new Error(`${file}: not a readable PEM public key (${(err as Error).message.split('\n')[0]})`);
  }
  let isPrivate = false;
  try {
    createPrivateKey(pem);
    isPrivate = true;
  } catch {
    // Not a private key: read it as the public key it should be.
  }
  if (isPrivate) throw new Error(`${file} is a private key; give the certifier's public key (openssl pkey -in ${path.basename(file)} -pubout -out public.pem), and keep the private one away from verifiers`);
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
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
  // A signed bundle's page says so, and by which key: the reader of the HTML alone sees whose verdict it is.
  if (input.signKey) writeFileSync(path.join(dir, 'conformance.html'), renderHtml(input.report, { signedBy: publicKeySha256(input.signKey) }));
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
    verdict: { result: r.verdict.result, summary: r.verdict.summary, exitCode: r.verdict.exitCode },
    ...(input.signKey ? { signature: { algorithm: 'ed25519' as const, file: SIGNATURE, publicKeySha256: publicKeySha256(input.signKey) } } : {}),
  };
  writeFileSync(path.join(dir, BUNDLE_INFO), `${JSON.stringify(info, null, 2)}\n`);
  const names = readdirSync(dir).filter((f) => f !== MANIFEST).sort();
  // A bundle verify would refuse is not written (BUNDLE_FILE_LIMITS: what verify reads of each file).
  for (const f of names) {
    const size = statSync(path.join(dir, f)).size;
    const limit = BUNDLE_FILE_LIMITS.get(f) ?? 0;
    if (size > limit) throw new Error(`${f}: ${size} bytes; a bundle's ${f} holds at most ${limit}, or chatconform verify refuses it`);
  }
  const manifest = names.map((f) => `${sha256(readFileSync(path.join(dir, f)))}  ${f}\n`).join('');
  writeFileSync(path.join(dir, MANIFEST), manifest);
  // The manifest names every file's digest, so signing it signs them all.
  if (input.signKey) writeFileSync(path.join(dir, SIGNATURE), `${sign(null, Buffer.from(manifest), input.signKey).toString('base64')}\n`);
  const tarball = `${dir}.tar.gz`;
  await tar.create({ gzip: true, file: tarball, cwd: path.dirname(dir), portable: true }, [path.basename(dir)]);
  return { dir, tarball };
}

/**
 * What the signature proves: `verified` (it holds for the given public key and the files match the manifest it
 * signs), `manifest-only` (it holds over the manifest, but the bundle's files do not match that manifest), `invalid`
 * (it does not hold, or is missing although a key was given), `unchecked` (the bundle is signed but no key was
 * given), `unsigned` (checksums only).
 */
export type SignatureState = 'verified' | 'manifest-only' | 'invalid' | 'unchecked' | 'unsigned';

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
  if (info.verdict?.exitStatus !== undefined) same('the exit status', info.verdict.exitStatus, (report.verdict as { exitStatus?: string } | undefined)?.exitStatus);
  if (info.verdict?.exitCode !== undefined) same('the exit code', info.verdict.exitCode, report.verdict?.exitCode);
  return problems;
}

const MB = 1024 * 1024;

/**
 * The files a bundle holds, each with the most bytes `verify` reads of it: it reads no other file, follows no link,
 * and refuses a larger file before reading it (a hostile bundle once had verify unpack gigabytes). The reports are
 * far below their bound (a full run's conformance.json is a few MB); writeBundle refuses to write past one.
 */
export const BUNDLE_FILE_LIMITS: ReadonlyMap<string, number> = new Map([
  ...REPORT_FILES.map((f) => [f, f === 'badge.svg' ? 1 * MB : 64 * MB] as const),
  ['profile.json', 4 * MB],
  [BUNDLE_INFO, 1 * MB],
  [MANIFEST, 64 * 1024],
  [SIGNATURE, 4 * 1024],
]);
/** The entries verify looks at, in a folder or an archive: the bundle's files, its folder, room to name a few extras. */
export const BUNDLE_MAX_ENTRIES = 32;
/** Bytes an archive may unpack to: every file at its bound, plus the tar headers and padding of BUNDLE_MAX_ENTRIES. */
const ARCHIVE_LIMIT = [...BUNDLE_FILE_LIMITS.values()].reduce((a, b) => a + b, 0) + BUNDLE_MAX_ENTRIES * 3 * 512 + 20 * 1024;
/** The files verify keeps in memory (it parses or compares them); of the others it keeps only the digest. */
const KEPT = new Set<string>([MANIFEST, SIGNATURE, BUNDLE_INFO, 'conformance.json']);

/** What verify read of a bundle: each known file's digest (and content, when kept), the names it did not read. */
interface Contents {
  files: Map<string, { sha256: string; bytes?: Buffer }>;
  /** Names that are not a bundle's files: never read. */
  unknown: string[];
  /** Why the bundle cannot be checked further (a file over its bound, a link, a broken archive). */
  problems: string[];
}

/** Digests one file as its bytes arrive, keeping them when KEPT; `add` returns false past the file's bound. */
class FileReader {
  private readonly hash = createHash('sha256');
  private readonly parts: Buffer[] | undefined;
  private bytes = 0;
  constructor(
    readonly name: string,
    private readonly limit: number,
  ) {
    this.parts = KEPT.has(name) ? [] : undefined;
  }
  add(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return false;
    this.hash.update(chunk);
    this.parts?.push(chunk);
    return true;
  }
  done(into: Contents): void {
    into.files.set(this.name, { sha256: this.hash.digest('hex'), ...(this.parts ? { bytes: Buffer.concat(this.parts) } : {}) });
  }
}

const tooLarge = (name: string, size: number | string, limit: number) => `${name}: ${size} bytes; a bundle's ${name} holds at most ${limit} (not read)`;
const notRegular = (name: string, what: string) => `${name}: ${what}; a bundle holds only regular files (not followed, not read)`;

/** A bundle folder: its known files read through a descriptor that never follows a link, each within its bound. */
function readFolder(dir: string, into: Contents): void {
  const folder = opendirSync(dir);
  try {
    let seen = 0;
    for (let entry = folder.readSync(); entry; entry = folder.readSync()) {
      if (++seen > BUNDLE_MAX_ENTRIES) {
        into.problems.push(`${dir}: more than ${BUNDLE_MAX_ENTRIES} entries; a bundle holds ${BUNDLE_FILE_LIMITS.size - 1} or ${BUNDLE_FILE_LIMITS.size} files (the rest not read)`);
        return;
      }
      const name = entry.name;
      const limit = BUNDLE_FILE_LIMITS.get(name);
      if (limit === undefined) {
        into.unknown.push(name);
        continue;
      }
      const file = path.join(dir, name);
      const stat = lstatSync(file);
      if (stat.isSymbolicLink()) into.problems.push(notRegular(name, 'a symbolic link'));
      else if (!stat.isFile()) into.problems.push(notRegular(name, 'not a regular file'));
      else if (stat.size > limit) into.problems.push(tooLarge(name, stat.size, limit));
      else readFileWithin(file, new FileReader(name, limit), into);
    }
  } finally {
    folder.closeSync();
  }
}

function readFileWithin(file: string, reader: FileReader, into: Contents): void {
  // O_NOFOLLOW: a file swapped for a link after the lstat above is refused, not followed.
  const fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  try {
    const buf = Buffer.alloc(256 * 1024);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      if (!reader.add(Buffer.from(buf.subarray(0, n)))) {
        into.problems.push(`${reader.name}: grew past ${BUNDLE_FILE_LIMITS.get(reader.name)} bytes while read (not read further)`);
        return;
      }
    }
    reader.done(into);
  } finally {
    closeSync(fd);
  }
}

/**
 * A bundle's .tar.gz, read as a stream: nothing is written to disk. Every entry must be the bundle's one folder or a
 * regular file in it; a known file is digested as it is unpacked, within its bound (a larger one is refused from its
 * header, before a byte of it is unpacked); an unknown one is only named. Unpacking stops past BUNDLE_MAX_ENTRIES
 * entries or ARCHIVE_LIMIT bytes.
 */
async function readArchive(file: string, target: string, into: Contents): Promise<void> {
  const parser = new tar.Parser({ strict: true });
  let failure: string | undefined;
  const fail = (problem: string): void => {
    failure ??= problem;
  };
  let top: string | undefined;
  let entries = 0;
  const seen = new Set<string>();
  parser.on('error', (err: Error) => fail(`${target}: not a readable .tar.gz (${err.message})`));
  parser.on('entry', (entry: tar.ReadEntry) => {
    const reader = entryReader(entry);
    if (!reader) {
      entry.resume();
      return;
    }
    entry.on('data', (chunk: Buffer) => {
      if (!failure && !reader.add(chunk)) fail(tooLarge(reader.name, `more than ${BUNDLE_FILE_LIMITS.get(reader.name)}`, BUNDLE_FILE_LIMITS.get(reader.name)!));
    });
    entry.on('end', () => {
      if (!failure) reader.done(into);
    });
  });
  /** The reader of an entry that is one of the bundle's files; undefined (the entry skipped) for any other. */
  const entryReader = (entry: tar.ReadEntry): FileReader | undefined => {
    if (failure) return undefined;
    if (++entries > BUNDLE_MAX_ENTRIES) return void fail(`${target}: more than ${BUNDLE_MAX_ENTRIES} entries; a bundle holds ${BUNDLE_FILE_LIMITS.size - 1} or ${BUNDLE_FILE_LIMITS.size} files (the rest not read)`);
    const parts = entry.path.replace(/^(\.\/)+/, '').replace(/\/+$/, '').split('/');
    const oneFolder = parts.length <= 2 && parts.every((p) => p !== '' && p !== '.' && p !== '..') && (top === undefined || parts[0] === top);
    if (!oneFolder || (parts.length === 1 && entry.type !== 'Directory')) return void fail(`${target}: the archive must hold one bundle folder`);
    top = parts[0];
    if (parts.length === 1) return undefined;
    const name = parts[1]!;
    if (seen.has(name)) return void fail(`${name}: twice in the archive`);
    seen.add(name);
    const limit = BUNDLE_FILE_LIMITS.get(name);
    if (limit === undefined) {
      into.unknown.push(name);
      return undefined;
    }
    if (entry.type === 'SymbolicLink' || entry.type === 'Link') return void fail(notRegular(name, `a ${entry.type === 'Link' ? 'hard' : 'symbolic'} link`));
    if (entry.type !== 'File' && entry.type !== 'OldFile' && entry.type !== 'ContiguousFile') return void fail(notRegular(name, `a ${entry.type} entry`));
    if (entry.size > limit) return void fail(tooLarge(name, entry.size, limit));
    return new FileReader(name, limit);
  };
  // The end of the archive (its two zero blocks): what follows is not read.
  let eof = false;
  parser.on('eof', () => (eof = true));
  const source = createReadStream(file);
  const gunzip = createGunzip();
  source.on('error', (err) => gunzip.destroy(err));
  source.pipe(gunzip);
  let unpacked = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      unpacked += chunk.length;
      if (unpacked > ARCHIVE_LIMIT) fail(`${target}: unpacks to more than ${ARCHIVE_LIMIT} bytes; a bundle's files hold at most that much (the rest not read)`);
      if (failure || eof) break;
      if (!parser.write(chunk)) await new Promise((resolve) => parser.once('drain', resolve));
    }
    if (!failure) {
      const finished = new Promise((resolve) => {
        parser.once('end', resolve);
        parser.once('error', resolve);
      });
      parser.end();
      await finished;
    }
  } catch (err) {
    fail(`${target}: not a readable .tar.gz (${(err as Error).message})`);
  } finally {
    source.destroy();
    gunzip.destroy();
  }
  if (failure) into.problems.push(failure);
  else if (top === undefined) into.problems.push(`${target}: the archive must hold one bundle folder`);
}

/** The fields bundle.json holds, each with its type: verify prints and compares them. Optional ones end in "?". */
const INFO_FIELDS: ReadonlyArray<[string, 'string' | 'number' | 'object']> = [
  ['kit', 'object'],
  ['kit.name', 'string'],
  ['kit.version', 'string'],
  ['kit.commit?', 'string'],
  ['spec', 'object'],
  ['spec.file', 'string'],
  ['spec.sha256?', 'string'],
  ['catalogSha256', 'string'],
  ['seed?', 'number'],
  ['command', 'string'],
  ['createdAt', 'string'],
  ['target?', 'string'],
  ['verdict', 'object'],
  ['verdict.result', 'string'],
  ['verdict.summary', 'string'],
  ['verdict.exitStatus?', 'string'],
  ['verdict.exitCode?', 'number'],
  ['signature?', 'object'],
  ['signature.publicKeySha256', 'string'],
];
/** The fields of conformance.json verify prints (the others it compares, and says so when they differ). */
const REPORT_FIELDS: ReadonlyArray<[string, 'string' | 'number' | 'object']> = [
  ['verdict', 'object'],
  ['verdict.result', 'string'],
  ['verdict.summary', 'string'],
];

/** What is missing or of the wrong type in `value` among `fields`, one line each, naming the field. */
function fieldProblems(file: string, value: unknown, fields: ReadonlyArray<[string, 'string' | 'number' | 'object']>): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(value)) return [`${file}: not a JSON object`];
  const problems: string[] = [];
  for (const [spec, type] of fields) {
    const optional = spec.endsWith('?');
    const keys = spec.replace(/\?$/, '').split('.');
    const parent = keys.slice(0, -1).reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), value);
    // A field of an absent optional object (signature.publicKeySha256 without a signature) is not required.
    if (!isObject(parent)) continue;
    const v = parent[keys[keys.length - 1]!];
    const field = keys.join('.');
    if (v === undefined) {
      if (!optional) problems.push(`${file}: the field ${field} is missing`);
    } else if (type === 'object' ? !isObject(v) : typeof v !== type) problems.push(`${file}: the field ${field} is not ${type === 'object' ? 'an object' : `a ${type}`}`);
  }
  return problems;
}

/**
 * Re-checks a bundle (its folder or its .tar.gz): every file against SHA256SUMS, nothing unlisted, bundle.json
 * against conformance.json, and with `verifyKey` the manifest's signature. It reads only the files a bundle holds
 * (BUNDLE_FILE_LIMITS), each within its bound, never through a link, and unpacks an archive in memory as a stream.
 */
export async function verifyBundle(target: string, verifyKey?: KeyObject): Promise<Verification> {
  const resolved = path.resolve(target);
  const failed = (p: string[]): Verification => ({ ok: false, problems: p, signature: verifyKey ? 'invalid' : 'unsigned' });
  if (!existsSync(resolved)) return failed([`${target}: no such bundle`]);
  const contents: Contents = { files: new Map(), unknown: [], problems: [] };
  const stat = statSync(resolved);
  if (stat.isFile()) await readArchive(resolved, target, contents);
  else if (stat.isDirectory()) readFolder(resolved, contents);
  else return failed([`${target}: neither a bundle folder nor a .tar.gz (not read)`]);
  if (contents.problems.length > 0) return failed(contents.problems);
  const problems: string[] = [];
  const { files } = contents;
  const manifest = files.get(MANIFEST)?.bytes;
  if (!manifest) return failed([`${MANIFEST} is missing`]);
  const listed = new Map<string, string>();
  for (const line of manifest.toString('utf8').split('\n').filter(Boolean)) {
    const m = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (!m) problems.push(`${MANIFEST}: a line is not "<sha256>  <file>": ${line.slice(0, 100)}`);
    else listed.set(m[2]!, m[1]!);
  }
  for (const [name, digest] of listed) {
    if (!BUNDLE_FILE_LIMITS.has(name) || name === MANIFEST || name === SIGNATURE) problems.push(`${name.slice(0, 100)}: listed in ${MANIFEST}, but not a file a bundle holds (not read)`);
    else if (!files.has(name)) problems.push(`${name}: listed in ${MANIFEST} but missing`);
    else if (files.get(name)!.sha256 !== digest) problems.push(`${name}: its SHA-256 does not match ${MANIFEST} (the file was changed)`);
  }
  for (const name of [...files.keys(), ...contents.unknown]) if (name !== MANIFEST && name !== SIGNATURE && !listed.has(name)) problems.push(`${name.slice(0, 100)}: in the bundle but not in ${MANIFEST}`);
  for (const required of [...REPORT_FILES, 'profile.json', BUNDLE_INFO]) if (!listed.has(required)) problems.push(`${required}: missing from ${MANIFEST}`);
  let info: BundleInfo | undefined;
  let verdict: Verification['verdict'];
  try {
    const infoValue: unknown = JSON.parse(files.get(BUNDLE_INFO)?.bytes?.toString('utf8') ?? 'null');
    const reportValue: unknown = JSON.parse(files.get('conformance.json')?.bytes?.toString('utf8') ?? 'null');
    // Named fields, not a stack trace: a bundle.json without kit.version is NOT VERIFIED, saying so.
    const infoProblems = files.has(BUNDLE_INFO) ? fieldProblems(BUNDLE_INFO, infoValue, INFO_FIELDS) : [];
    const reportProblems = files.has('conformance.json') ? fieldProblems('conformance.json', reportValue, REPORT_FIELDS) : [];
    problems.push(...infoProblems, ...reportProblems);
    if (infoProblems.length === 0 && infoValue !== null) info = infoValue as BundleInfo;
    const report = reportProblems.length === 0 && reportValue !== null ? (reportValue as ConformanceReport) : undefined;
    if (report) verdict = { result: report.verdict.result, summary: report.verdict.summary };
    if (info && report) problems.push(...crossCheck(info, report));
  } catch (err) {
    problems.push(`the bundle's JSON cannot be read: ${(err as Error).message}`);
  }
  // The signature: over the manifest's bytes exactly as written.
  const sig = files.get(SIGNATURE)?.bytes;
  const signed = sig !== undefined;
  if (!signed && info?.signature) problems.push(`${BUNDLE_INFO} says the bundle is signed, but ${SIGNATURE} is missing`);
  let signature: SignatureState = signed ? 'unchecked' : 'unsigned';
  if (verifyKey) {
    signature = 'invalid';
    if (!signed) problems.push(`the bundle is not signed (no ${SIGNATURE}), and a signature was required (--verify-key)`);
    else {
      let holds = false;
      try {
        holds = verify(null, manifest, verifyKey, Buffer.from(sig.toString('utf8').trim(), 'base64'));
      } catch {
        holds = false;
      }
      if (!holds) problems.push(`${SIGNATURE}: the signature of ${MANIFEST} does not hold for the given public key (the bundle was changed, or signed by another key)`);
      else if (info?.signature && info.signature.publicKeySha256 !== publicKeySha256(verifyKey)) problems.push(`${BUNDLE_INFO} names another signing key than the one given`);
      else signature = 'verified';
    }
  }
  // A signature over a manifest the files no longer match says nothing of the files.
  if (signature === 'verified' && problems.length > 0) signature = 'manifest-only';
  return { ok: problems.length === 0, problems, signature, ...(info ? { info } : {}), ...(verdict ? { verdict } : {}) };
}

/** What the signature state means, in one sentence. */
const SIGNATURE_LINES: Record<SignatureState, string> = {
  verified: `signature: VERIFIED (ed25519, over ${MANIFEST}) with the given public key: the files are the ones its holder certified`,
  'manifest-only': `signature: NOT VERIFIED: it holds over ${MANIFEST}, but the bundle's files do not match ${MANIFEST} (see above), so it vouches for nothing here`,
  invalid: 'signature: NOT VERIFIED with the given public key',
  unchecked: `signature: the bundle is signed, but the signature was NOT CHECKED (no --verify-key): give the certifier's public key to check it`,
  unsigned: `signature: none. The bundle is checksummed but UNSIGNED: ${MANIFEST} proves only that its files agree with each other (anyone can regenerate it), not who made them`,
};

/** What `verify` prints. */
export function formatVerification(target: string, v: Verification): string {
  const lines = [v.ok ? `${target}: the manifest holds (${MANIFEST} covers every file; ${BUNDLE_INFO} agrees with conformance.json)` : `${target}: NOT VERIFIED`];
  for (const p of v.problems) lines.push(`  - ${p}`);
  // A verdict is shown only from a bundle that holds: from one that does not, it is whatever was written into it.
  if (v.verdict) lines.push(v.ok ? `verdict: ${v.verdict.result.toUpperCase()} — ${v.verdict.summary}` : 'verdict: not shown: the bundle does not verify, so its conformance.json cannot be trusted');
  lines.push(SIGNATURE_LINES[v.signature]);
  if (v.info) lines.push(`kit ${v.info.kit.name} ${v.info.kit.version}${v.info.kit.commit ? ` (${v.info.kit.commit.slice(0, 12)})` : ''}; catalog ${v.info.catalogSha256.slice(0, 12)}; seed ${v.info.seed ?? '(none)'}; target ${v.info.target ?? '(none)'}`, `command: ${v.info.command}`);
  return `${lines.join('\n')}\n`;
}
