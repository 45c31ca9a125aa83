// The proxy's memory of a long run (proxy/traffic.ts): the first MAX_OUTCOMES exchanges are kept one entry each;
// past them every judgement is counted in per requirement, status and party, so the report still says how many
// exchanges honoured and broke each rule, and the proxy holds no more after 3,000 exchanges than after 1,000.
import { expect, test } from '@playwright/test';
import { MAX_OUTCOMES, Traffic } from '../../proxy/traffic.ts';
import type { CapturedExchange } from '../../proxy/forward.ts';
import { validateReport } from '../../report/json.ts';

const LIST = Buffer.from(JSON.stringify({ object: 'list', data: [{ id: 'm', name: 'M', min_tier: 'free', supports_images: false, supports_caching: false, supports_reasoning: false, supports_global_endpoint: true, is_featured: false }] }));

function catalogRead(seq: number, body: Buffer = LIST): CapturedExchange {
  return {
    seq,
    method: 'GET',
    path: '/v1/models',
    requestHeaders: { authorization: 'Bearer sk-client-secret-0123' },
    requestBody: Buffer.alloc(0),
    requestBytes: 0,
    status: 200,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: body,
    responseBytes: body.length,
    complete: true,
    startedAt: 0,
    durationMs: 1,
  };
}

test('past the first exchanges, judgements are counted, not kept one by one; the report counts every exchange', () => {
  const traffic = new Traffic('http://127.0.0.1:9', 10_000_000);
  const broken = Buffer.from(LIST.toString().replace('"name":"M"', '"name":null'));
  for (let i = 1; i <= 3 * MAX_OUTCOMES; i++) traffic.take(catalogRead(i, i % 3 === 0 ? broken : LIST));
  expect(traffic.outcomes).toHaveLength(MAX_OUTCOMES);
  const report = traffic.report(1000, '/tmp/unused');
  expect(validateReport(report)).toEqual([]);
  const nulls = report.requirements.find((r) => r.id === 'CAT-027')!;
  expect(nulls.status).toBe('fail');
  expect(nulls.records.fail).toBe(MAX_OUTCOMES);
  expect(nulls.records.pass).toBe(2 * MAX_OUTCOMES);
  expect(report.verdict.result).toBe('fail');
  expect(report.verdict.mustFailed).toEqual(['CAT-027']);
  // Evidence names its party and never carries the client's key.
  expect(nulls.evidence[0]!.party).toBe('server');
  expect(JSON.stringify(report)).not.toContain('sk-client-secret-0123');
});
