// The kit's own progress line while a run goes (Playwright's list and line reporters printed each test's title with
// its tags, hundreds of characters, and ended on "98 passed" just above "FAIL — 4 MUST requirements failed"):
//
//   chatconform  412/1203 tests · 187 requirements judged: PASS 180 FAIL 2 WARN 5 · SKIP 31 · 34s · failed CAT-004, AUTH-001
//
// tests done of total, the requirements judged so far by the kit's marks (FAIL: a MUST failed; WARN: a SHOULD or MAY
// did), those only skipped so far, the time, and the MUST failures' IDs; never over LINE_MAX characters. On a terminal
// it is one line rewritten in place; in CI or a log (no TTY, or CI set) a line every EVERY_TESTS tests or EVERY_MS,
// whichever comes first. The verdict follows from the conformance reporter (suites/reporter.ts). It counts the
// records of each test as it ends (suites/reporter/evidence.ts, the one reader); the verdict may still differ (a
// baseline, trials): the line says what was found so far, the summary what it means.
import type { FullConfig, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import type { CheckRecord } from '../../judge/checker.ts';
import { primaryOf } from '../../spec/requirements/index.ts';
import { targetRequirements } from '../../report/results.ts';
import { evidenceOf } from './evidence.ts';

/** The longest line printed. */
export const LINE_MAX = 119;
/** In CI: a line every this many tests… */
export const EVERY_TESTS = 50;
/** …or this often, whichever comes first (a test that hangs still moves the clock). */
export const EVERY_MS = 10_000;
/** On a terminal: the line is rewritten at most this often. */
const TTY_EVERY_MS = 100;

type Mark = 'PASS' | 'FAIL' | 'WARN' | 'SKIP';
const RANK: Record<Mark, number> = { SKIP: 0, PASS: 1, WARN: 2, FAIL: 3 };

export interface Paint {
  red(s: string): string;
  yellow(s: string): string;
  green(s: string): string;
  dim(s: string): string;
}
const plain: Paint = { red: (s) => s, yellow: (s) => s, green: (s) => s, dim: (s) => s };
const ansi: Paint = {
  red: (s) => `\u001b[31m${s}\u001b[39m`,
  yellow: (s) => `\u001b[33m${s}\u001b[39m`,
  green: (s) => `\u001b[32m${s}\u001b[39m`,
  dim: (s) => `\u001b[2m${s}\u001b[22m`,
};

/** What the run found so far: tests done, and each requirement's worst mark. Plain data, no Playwright. */
export class ProgressTally {
  done = 0;
  private readonly marks = new Map<string, Mark>();
  /** MUST failures in the order they were found. */
  private readonly failed: string[] = [];
  private readonly scope = new Map(targetRequirements().map((r) => [r.id, r]));

  constructor(readonly total: number) {}

  /** One test's records, as it ended. */
  add(records: readonly CheckRecord[]): void {
    this.done++;
    for (const r of records) {
      const req = this.scope.get(primaryOf(r.id));
      if (!req || req.kind !== 'requirement') continue;
      const mark: Mark = r.status === 'fail' ? (req.level === 'MUST' ? 'FAIL' : 'WARN') : r.status === 'warn' ? 'WARN' : r.status === 'pass' ? 'PASS' : 'SKIP';
      const was = this.marks.get(req.id);
      if (was !== undefined && RANK[was] >= RANK[mark]) continue;
      this.marks.set(req.id, mark);
      if (mark === 'FAIL') this.failed.push(req.id);
    }
  }

  count(mark: Mark): number {
    let n = 0;
    for (const m of this.marks.values()) if (m === mark) n++;
    return n;
  }

  /** The MUST requirements failed so far. */
  mustFailed(): readonly string[] {
    return this.failed;
  }

  /** The line, at most LINE_MAX characters of text (the colours aside). */
  line(elapsedMs: number, paint: Paint = plain): string {
    const width = String(this.total).length;
    const [pass, fail, warn, skip] = (['PASS', 'FAIL', 'WARN', 'SKIP'] as const).map((m) => this.count(m));
    const judged = pass! + fail! + warn!;
    const head = `chatconform ${String(this.done).padStart(width)}/${this.total} tests · ${judged} requirements judged: `;
    const marks: [string, (s: string) => string][] = [
      [`PASS ${pass}`, paint.green],
      [`FAIL ${fail}`, fail! > 0 ? paint.red : (s) => s],
      [`WARN ${warn}`, warn! > 0 ? paint.yellow : (s) => s],
    ];
    const tail = ` · SKIP ${skip} · ${elapsed(elapsedMs)}`;
    const text = `${head}${marks.map(([t]) => t).join(' ')}${tail}`;
    let out = `${head}${marks.map(([t, p]) => p(t)).join(' ')}${paint.dim(tail)}`;
    // The IDs that failed, as many as fit ("failed CAT-004, AUTH-001 +3").
    const ids = this.failed;
    for (let k = ids.length; ids.length > 0 && k >= 0; k--) {
      const part = `failed ${ids.slice(0, k).join(', ')}${k < ids.length ? `${k > 0 ? ' ' : ''}+${ids.length - k}` : ''}`;
      if (text.length + 3 + part.length > LINE_MAX) continue;
      out += ` · ${paint.red(part)}`;
      break;
    }
    return out;
  }
}

/** "34s", "2m05s". */
export function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** Where the line goes and how: rewritten in place on a terminal, appended in CI and logs. */
export interface ProgressOut {
  write(text: string): void;
  tty: boolean;
  paint: Paint;
}

function stdoutOut(env: NodeJS.ProcessEnv = process.env): ProgressOut {
  const tty = process.stdout.isTTY === true && !env.CI;
  const colour = env.FORCE_COLOR ? env.FORCE_COLOR !== '0' : tty && !env.NO_COLOR;
  return { write: (t) => process.stdout.write(t), tty, paint: colour ? ansi : plain };
}

/** The progress line of a run (the config's reporter in place of Playwright's list or line). */
export default class ProgressReporter implements Reporter {
  private tally = new ProgressTally(0);
  private readonly started = Date.now();
  private printedAt = 0;
  private printedDone = 0;
  private timer: NodeJS.Timeout | undefined;

  private readonly out: ProgressOut;

  /** Playwright hands a reporter its options (none here, and configDir); a test hands it where to write. */
  constructor(options: { out?: ProgressOut } = {}) {
    this.out = options.out ?? stdoutOut();
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    this.tally = new ProgressTally(suite.allTests().length);
    this.print(true);
    // In CI, a line every EVERY_MS even when no test ends (a slow target): the log shows the run is alive.
    if (!this.out.tty) {
      this.timer = setInterval(() => {
        if (Date.now() - this.printedAt >= EVERY_MS) this.print(true);
      }, 1000);
      this.timer.unref();
    }
  }

  onTestEnd(_test: TestCase, result: TestResult): void {
    const before = this.tally.mustFailed().length;
    this.tally.add(evidenceOf(result)?.checks ?? []);
    // A new MUST failure is shown at once on a terminal; in CI at the next line.
    this.print(this.tally.mustFailed().length > before && this.out.tty);
  }

  onEnd(): void {
    if (this.timer) clearInterval(this.timer);
    // The last count stays on the screen above the verdict.
    this.out.write(this.out.tty ? `\r\u001b[2K${this.tally.line(Date.now() - this.started, this.out.paint)}\n` : `${this.tally.line(Date.now() - this.started, this.out.paint)}\n`);
  }

  private print(force: boolean): void {
    const now = Date.now();
    if (this.out.tty) {
      if (!force && now - this.printedAt < TTY_EVERY_MS) return;
      this.out.write(`\r\u001b[2K${this.tally.line(now - this.started, this.out.paint)}`);
    } else {
      if (!force && this.tally.done - this.printedDone < EVERY_TESTS && now - this.printedAt < EVERY_MS) return;
      this.out.write(`${this.tally.line(now - this.started, this.out.paint)}\n`);
    }
    this.printedAt = now;
    this.printedDone = this.tally.done;
  }

  printsToStdio(): boolean {
    return true;
  }
}
