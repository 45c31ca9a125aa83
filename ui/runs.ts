// The runs the page starts: each one `chatconform run` (or `chatconform client`) in a child process, as a user would
// type it (ui/kit-command.ts), its reports in <report dir>/ui/<id>/ as usual, its engine's events (--events) in a file of this
// server's scratch folder (run/events.ts) folded live (ui/live.ts). The key travels the way the CLI takes it: in the
// child's environment (CONFORMANCE_API_KEY), never on its command line, in a file or in anything this server prints;
// it lives in this process only while the child starts. Stop is Ctrl-C to the run's process group: the runner stops
// its workers and still writes the reports of what it judged.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ENV, normaliseBaseUrl } from '../run/config.ts';
import { EventsReader } from '../run/events.ts';
import { headersOfText, headerSecrets } from '../run/extra-headers.ts';
import { REFERENCE_ENV } from '../run/reference.ts';
import { redact } from '../spec/redact.ts';
import { History } from './history.ts';
import { kitCommand } from './kit-command.ts';
import { LiveRun, type LiveDelta } from './live.ts';

/** A request the page got wrong: answered 400 with this message. */
export class RequestError extends Error {}
/** A run is going: answered 409. */
export class BusyError extends Error {}

/** How the key reaches the run: none, an environment variable of this server's (by name), or typed in the page. */
export type KeyInput = { from: 'none' } | { from: 'env'; name: string } | { from: 'typed'; value: string };

export interface TargetInput {
  /** Empty: the embedded reference mock. */
  baseUrl?: string;
  profile?: string;
  key?: KeyInput;
  /** `Name: value` lines (their values are secrets of the run, as -H's are). */
  headers?: string;
  waitForTarget?: number;
}

export interface SelectionInput {
  requirements?: string[];
  sections?: string[];
  levels?: string[];
  models?: string;
  trials?: number;
  reference?: string;
}

export interface ServerRunRequest {
  target?: TargetInput;
  selection?: SelectionInput;
  /** Rerun the tests where something failed in this run of the history (its key): `--rerun` of its report. */
  rerunFailedOf?: string;
}

export interface ClientRunRequest {
  command: string;
  scenarios?: string[];
  timeoutMs?: number;
}

/** A run as the page sees it. */
export interface RunRecord {
  id: string;
  kind: 'server' | 'client';
  /** The history key of its report folder (its rerun/ folder once a rerun wrote there). */
  key: string;
  /** The command it runs, as typed (the key is never on it). */
  command: string;
  state: 'running' | 'ended';
  stopping?: boolean;
  startedAt: number;
  endedAt?: number;
  exitCode?: number | null;
  /** The run's report verdict, once written. */
  verdict?: string;
  /** Why there is no report: the command's own refusal (its last lines on stderr), or how it ended. */
  refusal?: string;
}

interface Active {
  record: RunRecord;
  child: ChildProcess;
  reader: EventsReader;
  live: LiveRun;
  /** What is masked in the run's output: its key and header values, dropped when the run ends. */
  secrets: string[];
  output: string;
  timers: NodeJS.Timeout[];
}

const MAX_OUTPUT = 200_000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const SECTION = /^[1-9](\.\d+)?$/;
const REQUIREMENT = /^[A-Z]+-\d{3}$/;
const LEVEL = /^(MUST|SHOULD|MAY)$/i;

function text(value: unknown, what: string, max = 2048): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new RequestError(`${what}: expected text`);
  const t = value.trim();
  if (t.length > max) throw new RequestError(`${what}: longer than ${max} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(t)) throw new RequestError(`${what}: holds a control character`);
  return t === '' ? undefined : t;
}

function list(value: unknown, what: string, pattern: RegExp): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > 2000) throw new RequestError(`${what}: expected a list`);
  return value.map((v) => {
    if (typeof v !== 'string' || !pattern.test(v)) throw new RequestError(`${what}: ${JSON.stringify(String(v).slice(0, 40))} is not one`);
    return v;
  });
}

function whole(value: unknown, what: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new RequestError(`${what}: expected a whole number from ${min} to ${max}`);
  return n;
}

function object<T>(value: unknown, what: string): Partial<T> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new RequestError(`${what}: expected an object`);
  return value as Partial<T>;
}

/** A run's id: when it started, and a counter for two in one second. */
function runId(n: number, at = new Date()): string {
  const p = (x: number) => String(x).padStart(2, '0');
  return `${at.getFullYear()}${p(at.getMonth() + 1)}${p(at.getDate())}-${p(at.getHours())}${p(at.getMinutes())}${p(at.getSeconds())}-${n}`;
}

export interface RunsOptions {
  reportDir: string;
  scratchDir: string;
  history: History;
  /** A run started or ended (or is stopping). */
  onChange: (record: RunRecord) => void;
  /** One line for this server's own output. */
  say: (line: string) => void;
  /** The environment the runs inherit (default this process's). */
  env?: NodeJS.ProcessEnv;
}

export class Runs {
  private readonly active = new Map<string, Active>();
  private readonly ended: RunRecord[] = [];
  /** Ended runs' output, for the page's output pane (their secrets were masked as it came). */
  private readonly outputs = new Map<string, string>();
  /** Runs that just ended: their last delta is sent once by the next poll. */
  private readonly endedLive = new Map<string, LiveRun>();
  private count = 0;

  constructor(private readonly opts: RunsOptions) {}

  list(): RunRecord[] {
    return [...[...this.active.values()].map((a) => a.record), ...this.ended].sort((a, b) => b.startedAt - a.startedAt);
  }

  /** The live run whose report folder is `key`, while it runs. */
  liveOf(key: string): LiveRun | undefined {
    for (const a of this.active.values()) if (a.record.key === key) return a.live;
    return undefined;
  }

  record(id: string): RunRecord | undefined {
    return this.list().find((r) => r.id === id);
  }

  /** A run's output (stdout and stderr as they came), its secrets masked. */
  output(id: string): string | undefined {
    const a = this.active.get(id);
    if (a) return a.output;
    return this.outputs.get(id);
  }

  private checkIdle(): void {
    if (this.active.size > 0) throw new BusyError('a run is going: stop it or wait for its end');
  }

  /** `chatconform run` with the target and selection of the page. */
  startServer(req: ServerRunRequest): RunRecord {
    this.checkIdle();
    const t = object<TargetInput>(req.target, 'target');
    const s = object<SelectionInput>(req.selection, 'selection');
    const args: string[] = ['run'];
    const env = this.baseEnv();
    const secrets: string[] = [];
    const baseUrl = text(t.baseUrl, 'base URL');
    if (baseUrl !== undefined) {
      try {
        normaliseBaseUrl(baseUrl);
        if (!/^https?:\/\//i.test(baseUrl)) throw new Error('expected an http:// or https:// URL');
      } catch (err) {
        throw new RequestError(`base URL: ${(err as Error).message.replace(ENV.baseUrl, 'the base URL')}`);
      }
      args.push(`--base-url=${baseUrl}`);
    }
    const profile = text(t.profile, 'profile', 4096);
    if (profile !== undefined) args.push(`--profile=${profile}`);
    const key = t.key ?? { from: 'none' };
    if (key.from === 'typed') {
      const value = text(key.value, 'key', 8192);
      if (value === undefined) throw new RequestError('key: type it, or choose no key');
      env[ENV.apiKey] = value;
      secrets.push(value);
    } else if (key.from === 'env') {
      const name = text(key.name, 'key variable', 128);
      if (name === undefined || !ENV_NAME.test(name)) throw new RequestError('key variable: expected a variable name such as CONFORMANCE_API_KEY');
      const value = (this.opts.env ?? process.env)[name];
      if (!value) throw new RequestError(`key variable: ${name} is not set in the environment chatconform ui was started from`);
      env[ENV.apiKey] = value;
      secrets.push(value);
    } else if (key.from !== 'none') {
      throw new RequestError('key: expected none, env or typed');
    }
    // One header per line: the lines are kept apart through the check for control characters.
    const headers = text(typeof t.headers === 'string' ? t.headers.replace(/\r?\n/g, '\u0001') : t.headers, 'headers', 16_384)?.replace(/\u0001/g, '\n');
    if (headers !== undefined) {
      try {
        secrets.push(...headerSecrets(headersOfText(headers)));
      } catch (err) {
        throw new RequestError(`headers: ${(err as Error).message}`);
      }
      // As CONFORMANCE_HEADERS, never -H: a flag's value shows in the process list.
      env[ENV.headers] = headers;
    }
    const wait = whole(t.waitForTarget, 'wait for target', 0, 3600);
    if (wait !== undefined) args.push(`--wait-for-target=${wait}`);
    const rerunOf = req.rerunFailedOf;
    if (rerunOf !== undefined) {
      const dir = typeof rerunOf === 'string' ? this.opts.history.folderOf(rerunOf) : undefined;
      if (!dir || !existsSync(path.join(dir, 'conformance.json'))) throw new RequestError('rerun: no report of that run in the report folder');
      args.push(`--rerun=${path.join(dir, 'conformance.json')}`);
    } else {
      const requirements = list(s.requirements, 'requirements', REQUIREMENT);
      const sections = list(s.sections, 'sections', SECTION);
      const levels = list(s.levels, 'levels', LEVEL);
      if (requirements.length > 0) args.push(`--requirement=${requirements.join(',')}`);
      if (sections.length > 0) args.push(`--section=${sections.join(',')}`);
      if (levels.length > 0) args.push(`--level=${levels.map((l) => l.toUpperCase()).join(',')}`);
    }
    const models = text(s.models, 'models', 4096);
    if (models !== undefined) args.push(`--models=${models}`);
    const trials = whole(s.trials, 'trials', 1, 100);
    if (trials !== undefined) args.push(`--trials=${trials}`);
    const reference = text(s.reference, 'reference');
    if (reference !== undefined) args.push(`--reference=${reference}`);
    return this.start('server', args, env, secrets, { url: baseUrl, embeddedMock: baseUrl === undefined, ...(trials !== undefined ? { trials: { k: trials, minPassRate: 1 } } : {}) });
  }

  /** `chatconform client --command` with the scenarios of the page. */
  startClient(req: ClientRunRequest): RunRecord {
    this.checkIdle();
    const command = text(req.command, 'client command', 4096);
    if (command === undefined) throw new RequestError('client command: give the command that runs your client, e.g. node my-client.mjs');
    const args = ['client', `--command=${command}`];
    const scenarios = list(req.scenarios, 'scenarios', /^[a-z0-9][a-z0-9-]{0,80}$/);
    if (scenarios.length > 0) args.push(`--scenario=${scenarios.join(',')}`);
    const timeout = whole(req.timeoutMs, 'timeout', 1, 600_000);
    if (timeout !== undefined) args.push(`--timeout-ms=${timeout}`);
    return this.start('client', args, this.baseEnv(), [], { embeddedMock: true, client: true });
  }

  /**
   * This server's environment without its CONFORMANCE_* settings: the page's fields are the run's whole configuration.
   * The reference's key stays (the page has no field for it: --reference takes it from the environment, as the CLI does).
   */
  private baseEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(this.opts.env ?? process.env)) if (!name.startsWith('CONFORMANCE_') || name === REFERENCE_ENV.apiKey) env[name] = value;
    env.FORCE_COLOR = '0';
    return env;
  }

  private start(kind: RunRecord['kind'], args: string[], env: NodeJS.ProcessEnv, secrets: string[], target: { url?: string; embeddedMock: boolean; trials?: { k: number; minPassRate: number }; client?: boolean }): RunRecord {
    const id = runId(++this.count);
    const dir = path.join(this.opts.reportDir, 'ui', id);
    mkdirSync(dir, { recursive: true });
    const events = path.join(this.opts.scratchDir, `${id}.events.jsonl`);
    // The report folder is the page's to choose only through this server's --report-dir: each run its own folder.
    args.splice(1, 0, `--report-dir=${dir}`, `--events=${events}`);
    const startedAt = Date.now();
    const command = `chatconform ${args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')}`;
    const record: RunRecord = { id, kind, key: this.opts.history.keyOf(dir), command: redact(command, secrets), state: 'running', startedAt };
    const [program, programArgs] = kitCommand(args);
    const child = spawn(program, programArgs, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const live = new LiveRun({ startedAt, target: { ...(target.url ? { url: target.url } : {}), embeddedMock: target.embeddedMock }, ...(target.trials ? { trials: target.trials } : {}), ...(target.client ? { client: true } : {}) });
    const active: Active = { record, child, reader: new EventsReader(events), live, secrets, output: '', timers: [] };
    this.active.set(id, active);
    const take = (d: Buffer) => {
      active.output = redact(active.output + d.toString('utf8'), active.secrets);
      if (active.output.length > 2 * MAX_OUTPUT) active.output = active.output.slice(-MAX_OUTPUT);
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    child.once('error', (err) => take(Buffer.from(`chatconform ui: the run did not start: ${err.message}\n`)));
    child.once('close', (code, signal) => this.finish(active, code, signal));
    this.opts.say(`run ${id} started: ${record.command}`);
    this.opts.onChange(record);
    return record;
  }

  private finish(a: Active, code: number | null, signal: NodeJS.Signals | null): void {
    for (const t of a.timers) clearTimeout(t);
    a.live.apply(a.reader.read());
    a.live.end();
    const r = a.record;
    r.state = 'ended';
    r.endedAt = Date.now();
    r.exitCode = code;
    delete r.stopping;
    // A rerun writes its reports to rerun/ of the run's folder.
    const dir = path.join(this.opts.reportDir, 'ui', r.id);
    const found = [dir, path.join(dir, 'rerun')].find((d) => this.opts.history.report(this.opts.history.keyOf(d)) !== undefined);
    if (found) {
      r.key = this.opts.history.keyOf(found);
      r.verdict = this.opts.history.report(r.key)!.verdict.result;
    } else {
      const lines = a.output.trim().split('\n').filter((l) => l.trim() !== '');
      r.refusal = signal ? `ended by ${signal} before it wrote a report` : lines.slice(-3).join('\n') || `exited ${code} without a report`;
    }
    this.outputs.set(r.id, a.output);
    // The key is forgotten with the run.
    a.secrets.length = 0;
    this.active.delete(r.id);
    this.ended.push(r);
    this.endedLive.set(r.id, a.live);
    this.opts.say(`run ${r.id} ended: ${r.verdict ? `${r.verdict.toUpperCase()} (exit ${code}), reports in ${path.join(this.opts.reportDir, r.key)}` : `no report (${r.refusal?.split('\n').at(-1)})`}`);
    this.opts.onChange(r);
  }

  /** Stops a run as Ctrl-C would: the runner stops and writes the reports of what it judged. */
  stop(id: string): RunRecord {
    const a = this.active.get(id);
    if (!a) throw new RequestError('no such run is going');
    if (a.record.stopping) return a.record;
    a.record.stopping = true;
    const signal = (s: NodeJS.Signals) => {
      try {
        process.kill(-a.child.pid!, s);
      } catch {
        // Already gone.
      }
    };
    signal('SIGINT');
    a.timers.push(setTimeout(() => signal('SIGTERM'), 30_000), setTimeout(() => signal('SIGKILL'), 60_000));
    this.opts.onChange(a.record);
    return a.record;
  }

  /**
   * Reads every running run's new events; returns a delta for each run whose view changed (and a last one for a run
   * that just ended). This is the batch: the server calls it on a timer, never once per event.
   */
  poll(): { id: string; delta: LiveDelta }[] {
    const out: { id: string; delta: LiveDelta }[] = [];
    for (const [id, a] of this.active) if (a.live.apply(a.reader.read())) out.push({ id, delta: a.live.delta() });
    for (const [id, live] of this.endedLive) out.push({ id, delta: live.delta() });
    this.endedLive.clear();
    return out;
  }

  /** Stops every run (the server is closing) and waits for them. */
  async closeAll(): Promise<void> {
    const waits = [...this.active.values()].map((a) => new Promise<void>((resolve) => {
      a.child.once('close', () => resolve());
      this.stop(a.record.id);
    }));
    await Promise.all(waits);
  }
}
