// The engine's events reporter: with the plan's `events` file (`--events FILE`; `chatconform ui` gives it), each
// finished test is appended to that file as the case the conformance reporter folds (its outcome and evidence, the
// model it judged), redacted with the run's secrets; the watcher folds them with report/'s fold as they come. It judges
// nothing itself: the evidence is the checks' own, and the verdict stays the conformance reporter's.
import type { FullResult, Reporter, Suite, TestCase } from '@playwright/test/reporter';
import { REQUIREMENT_ANNOTATION } from '../../judge/checker.ts';
import { appendEvent } from '../../run/events.ts';
import { currentPlan } from '../../run/plan.ts';
import { runSecrets } from '../../run/run-secrets.ts';
import { referencePair, runTargets } from '../../run/targets.ts';
import { redactDeep } from '../../spec/redact.ts';
import { outcomeOf } from '../reporter.ts';
import { modelOfTest } from './models.ts';
import { slotOf } from './targets.ts';

export default class EventsReporter implements Reporter {
  private readonly file = currentPlan()?.settings.events;
  private secrets: string[] = [];
  /** The target whose cases are sent: the run's own beside its reference, else the one target. */
  private self = 0;

  onBegin(_config: unknown, suite: Suite): void {
    if (!this.file) return;
    this.secrets = runSecrets();
    const targets = runTargets();
    this.self = (targets && referencePair(targets)?.self) ?? 0;
    const tests = suite.allTests().filter((t) => this.ours(t));
    const declared = new Set<string>();
    for (const t of tests) for (const a of t.annotations) if (a.type === REQUIREMENT_ANNOTATION && a.description) declared.add(a.description);
    appendEvent(this.file, { type: 'begin', at: Date.now(), total: tests.length, declared: [...declared] });
  }

  onTestEnd(test: TestCase): void {
    if (!this.file || !this.ours(test)) return;
    const model = modelOfTest(test);
    const recorded = { ...outcomeOf(test), ...(model !== undefined ? { model } : {}) };
    appendEvent(this.file, { type: 'case', at: Date.now(), case: redactDeep(recorded, this.secrets) as unknown as Record<string, unknown> });
  }

  onEnd(result: FullResult): void {
    if (this.file) appendEvent(this.file, { type: 'end', at: Date.now(), status: result.status });
  }

  private ours(test: TestCase): boolean {
    return slotOf(test).target === this.self || slotOf(test).target < 0;
  }

  printsToStdio(): boolean {
    return false;
  }
}
