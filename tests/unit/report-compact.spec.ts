// What the reporter keeps of a case as it ends (report/compact.ts): the exchanges no shown record points at reduced
// to what the fold reads, the repeated strings pooled. The fold of the kept cases is the fold of the whole ones.
import { expect, test } from '@playwright/test';
import { compactEvidence, StringPool } from '../../report/compact.ts';
import { foldReport } from '../../report/fold.ts';
import type { TestOutcome } from '../../report/results.ts';
import { sampleInfo, sampleOutcomes } from '../support/reports.ts';

const facts = () => ({ info: sampleInfo(), startedAt: new Date(0), durationMs: 1, stopReason: 'completed' as const, errors: [] });

test('the report folded from the kept cases is the report folded from the whole ones', () => {
  const whole = sampleOutcomes();
  // A 2xx exchange no shown record points at, with its bodies, beside the sample's.
  whole.push({
    title: 'chat › a passing answer',
    file: 'suites/chat.spec.ts',
    line: 90,
    status: 'judged',
    declared: ['CHAT-004'],
    durationMs: 3,
    evidence: {
      checks: [{ id: 'CHAT-004', status: 'pass', exchange: 0 }],
      exchanges: [{ method: 'POST', path: '/v1/chat/completions', url: 'http://127.0.0.1:9/v1/chat/completions', requestHeaders: { authorization: '***REDACTED***', 'content-type': 'application/json' }, requestBody: '{"model":"m"}', requestBytes: 13, status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: 'x'.repeat(16_384), responseBytes: 16_384, durationMs: 2, curl: 'curl -sS' }],
    },
  });
  const pool = new StringPool();
  const kept: TestOutcome[] = whole.map((t) => (t.evidence ? { ...t, evidence: compactEvidence(t.evidence, pool) } : t));
  expect(foldReport(kept, facts(), {})).toEqual(foldReport(whole, facts(), {}));
  // The passing answer's body is gone; its route, status and credential stay.
  const light = kept.at(-1)!.evidence!.exchanges[0]!;
  expect(light).toMatchObject({ method: 'POST', path: '/v1/chat/completions', status: 200, requestHeaders: { authorization: '***REDACTED***' }, responseBody: '', curl: '' });
  expect(light.requestBody).toBeUndefined();
  // A failure's exchange is kept whole (it is the evidence, with its curl).
  expect(kept[0]!.evidence!.exchanges[0]).toEqual(whole[0]!.evidence!.exchanges[0]);
});

test('the pool keeps one copy of each repeated string', () => {
  const pool = new StringPool();
  const a = JSON.parse('{"id":"RESP-001"}').id as string;
  const b = JSON.parse('{"id":"RESP-001"}').id as string;
  expect(pool.of(a)).toBe(pool.of(b));
  const [x, y] = [{ id: 'CAT-031', status: 'pass' as const, message: 'not judged' }, { id: 'CAT-031', status: 'pass' as const, message: 'not judged' }].map((r) => compactEvidence({ checks: [r], exchanges: [] }, pool).checks[0]!);
  expect(Object.is(x!.message, y!.message)).toBe(true);
});
