// The one reader of a test's evidence (the `chatconform-evidence` attachment: its check records and exchanges), for
// the reporters of a run: the progress line counts its records as each test ends, the conformance reporter folds
// them. Both read the same result one after the other (Playwright hands each test's end to every reporter in turn),
// so the last parse is kept: each attachment is read and parsed once.
import { readFileSync } from 'node:fs';
import type { TestResult } from '@playwright/test/reporter';
import { EVIDENCE_ATTACHMENT, type CheckRecord } from '../../judge/checker.ts';
import type { Exchange } from '../../judge/exchange.ts';
import type { Evidence } from '../../report/compact.ts';

let last: { result: TestResult; evidence: Evidence | undefined } | undefined;

function parse(result: TestResult): Evidence | undefined {
  const attachment = result.attachments.find((a) => a.name === EVIDENCE_ATTACHMENT);
  if (!attachment) return undefined;
  try {
    const text = attachment.body ? attachment.body.toString('utf8') : attachment.path ? readFileSync(attachment.path, 'utf8') : undefined;
    if (text === undefined) return undefined;
    const data = JSON.parse(text) as { checks?: CheckRecord[]; exchanges?: Exchange[] };
    return { checks: Array.isArray(data.checks) ? data.checks : [], exchanges: Array.isArray(data.exchanges) ? data.exchanges : [] };
  } catch {
    return undefined;
  }
}

/** The evidence a test's result attached, or undefined (the test never reached its teardown, or it is unreadable). */
export function evidenceOf(result: TestResult | undefined): Evidence | undefined {
  if (!result) return undefined;
  if (last?.result !== result) last = { result, evidence: parse(result) };
  return last.evidence;
}
