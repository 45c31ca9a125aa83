// Root causes, not cascades (report/root-causes.ts), on hand-made outcomes: one deviation is shown once
// with the tests it touched, ranked by impact, linked to what it left unjudged, and carried into the reports.
import { expect, test } from '@playwright/test';
import type { CheckRecord } from '../../judge/checker.ts';
import type { Exchange } from '../../judge/exchange.ts';
import { renderHtml } from '../../report/html.ts';
import { aggregate, type TestOutcome } from '../../report/results.ts';
import { impactOf, normaliseMessage, rootCauses } from '../../report/root-causes.ts';
import { buildReport } from '../../report/json.ts';
import { sampleInfo, sampleReport } from '../support/reports.ts';

const EXCHANGE: Exchange = {
  method: 'POST',
  path: '/v1/chat/completions',
  url: 'http://127.0.0.1:9/v1/chat/completions',
  requestHeaders: { 'content-type': 'application/json' },
  requestBody: '{"model":"m","stream":true}',
  requestBytes: 27,
  status: 200,
  responseHeaders: { 'content-type': 'text/event-stream' },
  responseBody: 'data: {"choices":[{"delta":{},"finish_reason":null}]}\n\n',
  responseBytes: 60,
  durationMs: 3,
  curl: `curl -sS -N -X POST 'http://127.0.0.1:9/v1/chat/completions' -H "Authorization: Bearer $CONFORMANCE_API_KEY" --data-binary '{"model":"m","stream":true}'`,
};

let line = 0;
function outcome(declared: string[], checks: CheckRecord[], exchanges: Exchange[] = [EXCHANGE]): TestOutcome {
  line++;
  return {
    title: `test ${line}`,
    file: 'suites/x.spec.ts',
    line,
    status: checks.some((c) => c.status === 'fail') ? 'failed' : 'passed',
    declared,
    durationMs: 1,
    evidence: { checks, exchanges },
  };
}

test('a message is grouped with its numbers and indices normalised; requirement IDs and names like v1 are kept', () => {
  expect(normaliseMessage('chunk 3: /choices/0/finish_reason must not be null')).toBe('chunk N: /choices/N/finish_reason must not be null');
  expect(normaliseMessage('chunk 12: /choices/1/finish_reason must not be null')).toBe('chunk N: /choices/N/finish_reason must not be null');
  expect(normaliseMessage('completion_tokens 9.5 exceeds the cap 3 (see CAT-027) on /v1/chat/completions')).toBe('completion_tokens N exceeds the cap N (see CAT-027) on /v1/chat/completions');
  expect(normaliseMessage('id chatcmpl-8f3a9c2e1b7d4f60aa differs from chatcmpl-0c1d2e3f4a5b6c7d8e')).toBe('id ID differs from ID');
  expect(normaliseMessage('first line:\nsecond line')).toBe('first line: second line');
});

test('one deviation in many tests and chunks is one root cause with every test it touched; another message is another cause', () => {
  const outcomes = [
    outcome(['RESP-001'], [{ id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 0: /choices/0/finish_reason must not be null' }, { id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 1: /choices/0/finish_reason must not be null' }]),
    outcome(['RESP-001'], [{ id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 7: /choices/0/finish_reason must not be null' }]),
    outcome(['RESP-001'], [{ id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 2: /usage must not be null' }]),
    outcome(['RESP-001'], [{ id: 'RESP-001', status: 'pass', exchange: 0 }]),
  ];
  const causes = rootCauses(outcomes);
  expect(causes).toHaveLength(2);
  expect(causes[0]).toMatchObject({
    rank: 1,
    id: 'RESP-001',
    status: 'fail',
    tier: 'core',
    message: 'chunk 0: /choices/0/finish_reason must not be null',
    pattern: 'chunk N: /choices/N/finish_reason must not be null',
    occurrences: 3,
    blocked: [],
  });
  expect(causes[0]!.tests.map((t) => t.title)).toEqual(['test 1', 'test 2']);
  expect(causes[0]!.exchange).toMatchObject({ method: 'POST', status: 200, curl: EXCHANGE.curl });
  expect(causes[1]).toMatchObject({ rank: 2, pattern: 'chunk N: /usage must not be null', occurrences: 1 });
});

test('impact: MUST before SHOULD; the core before auth, errors and limits, before the extensions (by area, wherever stated)', () => {
  expect(impactOf({ id: 'CHAT-004', section: '4.3' })).toEqual({ tier: 'core', order: 0 });
  expect(impactOf({ id: 'CAT-005', section: '2.10' }).tier).toBe('core');
  expect(impactOf({ id: 'STREAM-004', section: '6' }).tier).toBe('core');
  expect(impactOf({ id: 'AUTH-001', section: '5' }).tier).toBe('auth-errors-limits');
  expect(impactOf({ id: 'ERR-001', section: '7' }).tier).toBe('auth-errors-limits');
  expect(impactOf({ id: 'LIMIT-001', section: '8' }).tier).toBe('auth-errors-limits');
  // Search rules stated in 4.3 or 7 are still the search extension.
  expect(impactOf({ id: 'SEARCH-041', section: '4.3' }).tier).toBe('extension');
  expect(impactOf({ id: 'SEARCH-045', section: '7' }).tier).toBe('extension');
  for (const id of ['TOOL-006', 'ROUTE-008', 'RSN-006', 'IMG-006']) expect(impactOf({ id, section: '2.3' }).tier).toBe('extension');

  const fail = (id: string, message = 'broken'): CheckRecord => ({ id, status: 'fail', exchange: 0, message });
  // Declared in an order that is not the impact order; the extension failure touches the most tests.
  const outcomes = [
    outcome(['SEARCH-023'], [fail('SEARCH-023')]),
    outcome(['SEARCH-023'], [fail('SEARCH-023')]),
    outcome(['SEARCH-023'], [fail('SEARCH-023')]),
    outcome(['CAT-038'], [{ id: 'CAT-038', status: 'warn', exchange: 0, message: 'not found percent-encoded' }]),
    outcome(['ERR-001'], [fail('ERR-001')]),
    outcome(['AUTH-001'], [fail('AUTH-001')]),
    outcome(['STREAM-004'], [fail('STREAM-004')]),
    outcome(['CHAT-004'], [fail('CHAT-004')]),
  ];
  expect(rootCauses(outcomes).map((c) => `${c.rank} ${c.id} ${c.status} ${c.tier}`)).toEqual([
    '1 CHAT-004 fail core',
    '2 STREAM-004 fail core',
    '3 AUTH-001 fail auth-errors-limits',
    '4 ERR-001 fail auth-errors-limits',
    '5 SEARCH-023 fail extension',
    '6 CAT-038 warn core',
  ]);
});

test('skip and error records whose cause names a failed requirement link to its root cause, on the same exchange first', () => {
  const outcomes = [
    outcome(
      ['RESP-001', 'RESP-011', 'STREAM-003', 'STREAM-016'],
      [
        { id: 'RESP-001', status: 'fail', exchange: 0, message: 'chunk 0: /choices/0/finish_reason must not be null' },
        { id: 'RESP-001', status: 'fail', exchange: 1, message: 'chunk 0: /usage must not be null' },
        { id: 'RESP-011', status: 'skip', exchange: 0, message: 'no finish_reason to judge', cause: { id: 'RESP-001', exchange: 0, message: 'finish_reason is null' } },
        { id: 'STREAM-016', status: 'error', exchange: 1, message: 'no usage to judge', cause: { id: 'RESP-001', exchange: 1, message: 'usage is null' } },
        { id: 'STREAM-003', status: 'skip', message: 'no stream', cause: { exchange: 0, message: 'the kit sent no stream request' } },
      ],
      [EXCHANGE, { ...EXCHANGE, responseBody: 'data: {"usage":null}\n\n' }],
    ),
  ];
  const causes = rootCauses(outcomes);
  expect(causes.map((c) => [c.pattern, c.blocked])).toEqual([
    ['chunk N: /choices/N/finish_reason must not be null', ['RESP-011']],
    ['chunk N: /usage must not be null', ['STREAM-016']],
  ]);
  // The unjudged requirement says which failure it waited on.
  const r = aggregate(outcomes).find((x) => x.id === 'RESP-011')!;
  expect(r).toMatchObject({ status: 'skip', reason: 'finish_reason is null (root cause: RESP-001 failed)' });
});

test('nothing failed or warned: no root cause; only observations and passes: none either', () => {
  expect(rootCauses([])).toEqual([]);
  expect(rootCauses([outcome(['CAT-001', 'OBS-003'], [{ id: 'CAT-001', status: 'pass' }, { id: 'OBS-003', status: 'observed', observed: ['free'] }])])).toEqual([]);
});

test('conformance.json and the HTML lead with the root causes: ranked, with their tests, what they blocked, and a curl', () => {
  const report = sampleReport();
  expect(report.rootCauses.map((c) => `${c.rank} ${c.id}`)).toEqual(['1 REQ-010', '2 RESP-001', '3 CAT-027', '4 CAT-038']);
  expect(report.rootCauses[1]).toMatchObject({ occurrences: 3, blocked: ['RESP-011'] });
  expect(report.rootCauses[1]!.tests).toHaveLength(2);
  const html = renderHtml(report);
  const rc = html.indexOf('<section id="root-causes">');
  expect(rc).toBeGreaterThan(0);
  // Before the run's facts and the matrix.
  expect(rc).toBeLessThan(html.indexOf('<section id="run">'));
  expect(rc).toBeLessThan(html.indexOf('<section id="matrix">'));
  expect(html).toContain('<h2>Root causes, by impact (4)</h2>');
  const second = html.slice(html.indexOf('id="rc-2"'), html.indexOf('id="rc-3"'));
  expect(second).toContain('href="#req-RESP-001"');
  expect(second).toContain('3 occurrences in 2 tests');
  expect(second).toMatch(/Left unjudged because of it \(1\): <a href="#req-RESP-011"/);
  expect(second).toContain(`<pre class="curl-text">curl -sS -N -X POST &#39;http://127.0.0.1:9/v1/chat/completions&#39;`);
  const none = buildReport({ info: sampleInfo(), results: aggregate([]), outcomes: [], startedAt: new Date(), durationMs: 1, playwrightStatus: 'passed', errors: [] });
  expect(renderHtml(none)).toContain('No requirement failed or warned.');
});
