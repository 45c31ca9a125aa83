// The kit as a user installs it, for the tests that run the `chatconform` command: `npm pack` (prepack builds dist/
// and writes npm-shrinkwrap.json), then the tarball installed with `npm ci` into an empty project in the OS temp dir
// (scripts/consumer-project.ts: pinned by the shipped shrinkwrap, as a registry install is), which has no path to
// this repository or its node_modules. Only the npm registry is reached (and npm's cache first).
//
// Once per test run: CHATCONFORM_KIT=installed makes the config's global setup (installed-kit-setup.ts) install it
// before any test, and every command of support/cli-process.ts then runs the installed `chatconform` instead of
// cli/main.ts. A test that needs the installed kit whatever the switch (packaging, parity) calls sharedInstalledKit():
// the first caller of the run packs and installs, under a lock, and the others (other workers) wait for it.
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../../run/config.ts';
import { writeConsumerProject } from '../../../scripts/consumer-project.ts';
import { runProcess } from './cli-process.ts';

/** `installed`: the CLI-spawning tests run the installed package; anything else (unset): the sources. */
export const KIT_ENV = 'CHATCONFORM_KIT';
/** The project the installed kit lives in: set by the global setup, or given to reuse an install across runs. */
export const KIT_PROJECT_ENV = 'CHATCONFORM_KIT_PROJECT';
/** The run's own folder for the kit it installs (made and removed by the global setup). */
export const KIT_RUN_DIR_ENV = 'CHATCONFORM_KIT_RUN_DIR';

export type KitMode = 'sources' | 'installed';

export function kitMode(env: NodeJS.ProcessEnv = process.env): KitMode {
  return env[KIT_ENV] === 'installed' ? 'installed' : 'sources';
}

export interface InstalledKit {
  /** The empty project the kit was installed into. */
  project: string;
  /** node_modules/chatconform, resolved. */
  root: string;
  /** The script of its package.json "bin" (cli/chatconform.mjs, which runs dist/cli/main.js): what npm's shim runs. */
  main: string;
  /** node_modules/.bin/chatconform: the shim npm made, as a user's shell finds it. */
  bin: string;
  version: string;
  /** What `npm pack` put in the tarball, when this run packed it. */
  packedFiles?: string[];
  tarball?: string;
}

/** The environment of a user's shell: none of this run's Playwright, npm-script, Node or target variables. */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(TEST_|PW_|PLAYWRIGHT_|CONFORMANCE_|CHATCONFORM_|npm_|NODE_PATH$|NODE_OPTIONS$|INIT_CWD$)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, CI: '1', FORCE_COLOR: '0', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', ...extra };
}

/** The installed kit of an existing project (one this module installed, or one given by CHATCONFORM_KIT_PROJECT). */
export function installedKitAt(project: string): InstalledKit {
  const link = path.join(project, 'node_modules/chatconform');
  if (!existsSync(path.join(link, 'package.json'))) throw new Error(`${project}: chatconform is not installed there (node_modules/chatconform/package.json is missing)`);
  const root = realpathSync(link);
  const { version, bin } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
  const packFile = path.join(project, '..', 'pack.json');
  const packed = existsSync(packFile) ? (JSON.parse(readFileSync(packFile, 'utf8')) as { filename: string; files: { path: string }[] }[])[0] : undefined;
  return {
    project,
    root,
    main: path.join(root, bin.chatconform!),
    bin: path.join(project, 'node_modules/.bin/chatconform'),
    version,
    ...(packed ? { packedFiles: packed.files.map((f) => f.path), tarball: path.join(project, '..', packed.filename) } : {}),
  };
}

/**
 * Packs this checkout into `work` and installs the tarball into `work`/project with `npm ci` (the runtime
 * dependencies only, as a user gets them). Prints what each step took.
 */
export async function packAndInstall(work: string): Promise<InstalledKit> {
  mkdirSync(work, { recursive: true });
  let t = Date.now();
  const pack = await runProcess('npm', ['pack', '--pack-destination', work, '--json'], { cwd: repoRoot, env: userEnv(), boundMs: 300_000, keepChars: 2_000_000 });
  if (pack.code !== 0) throw new Error(`npm pack failed (exit ${pack.code ?? pack.signal}):\n${pack.stderr.slice(-3000)}`);
  // prepack's own lines come first on stdout; the JSON array is the rest.
  const json = pack.stdout.slice(pack.stdout.search(/^\[/m));
  writeFileSync(path.join(work, 'pack.json'), json);
  const packed = JSON.parse(json) as { filename: string }[];
  const tarball = path.join(work, packed[0]!.filename);
  const packS = (Date.now() - t) / 1000;
  t = Date.now();
  const project = path.join(work, 'project');
  rmSync(project, { recursive: true, force: true });
  writeConsumerProject(project, tarball);
  const install = await runProcess('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: project, env: userEnv(), boundMs: 300_000, keepChars: 200_000 });
  if (install.code !== 0) throw new Error(`npm ci of the packed kit failed (exit ${install.code ?? install.signal}):\n${install.stderr.slice(-3000)}`);
  console.log(`[installed kit] npm pack ${packS.toFixed(0)} s, npm ci ${((Date.now() - t) / 1000).toFixed(0)} s: ${project}`);
  return installedKitAt(project);
}

/** The installed kit of this run, when the global setup installed one (or CHATCONFORM_KIT_PROJECT names one). */
export function installedKitOfRun(env: NodeJS.ProcessEnv = process.env): InstalledKit | undefined {
  const project = env[KIT_PROJECT_ENV];
  return project ? installedKitAt(project) : undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid in a lock, once its holder wrote it. */
function holderOf(lock: string): number | undefined {
  try {
    return Number(readFileSync(path.join(lock, 'pid'), 'utf8')) || undefined;
  } catch {
    return undefined;
  }
}

let shared: Promise<InstalledKit> | undefined;

/**
 * The run's installed kit: the global setup's (or CHATCONFORM_KIT_PROJECT's), else packed and installed once in the
 * run's folder. Workers share it through the folder: the first takes the lock (a directory, made atomically) and
 * installs; the others wait for its result, or for its failure, which they report as theirs.
 */
export function sharedInstalledKit(): Promise<InstalledKit> {
  shared ??= (async () => {
    const given = installedKitOfRun();
    if (given) return given;
    const runDir = process.env[KIT_RUN_DIR_ENV];
    if (!runDir) throw new Error(`${KIT_RUN_DIR_ENV} is not set: run the tests with -c playwright.config.ts (its global setup makes the run's folder)`);
    const work = path.join(runDir, 'kit');
    const lock = path.join(runDir, 'kit.lock');
    const done = path.join(runDir, 'kit.done');
    const failed = path.join(runDir, 'kit.failed');
    for (const started = Date.now(); Date.now() - started < 900_000; ) {
      if (existsSync(done)) return installedKitAt(readFileSync(done, 'utf8'));
      if (existsSync(failed)) throw new Error(`the run's installed kit could not be made: ${readFileSync(failed, 'utf8')}`);
      try {
        mkdirSync(lock);
      } catch {
        // Another worker installs. One that died on the way leaves its lock: the next waiter takes it over.
        const holder = holderOf(lock);
        if (holder !== undefined && !alive(holder)) rmSync(lock, { recursive: true, force: true });
        await sleep(500);
        continue;
      }
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      try {
        const kit = await packAndInstall(work);
        writeFileSync(done, kit.project);
        return kit;
      } catch (err) {
        writeFileSync(failed, err instanceof Error ? err.message : String(err));
        throw err;
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
    throw new Error(`the run's installed kit: still not installed by another worker after 15 min (${lock})`);
  })();
  return shared;
}
