// A probe that cannot classify, or a forced call not made, is itself a finding under the rule it breaks, and the
// rules that depended on it skip with that finding as their cause (never a silent skip):
// - a search refusal whose code is wrong but whose text is section 7's fixed message is classified by the message
//   (its own test then judges the code); one that names neither refusal is SEARCH-045's finding;
// - tool_choice "required" answered whole without a call is CHAT-001's finding (the widely used shape).
import { createServer, type Server } from 'node:http';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { Target } from '../../run/target.ts';
import { Checker, Skipped } from '../../judge/checker.ts';
import { judgeForcedCallMade } from '../../judge/comparisons.ts';
import { discover, type Discovery } from '../../suites/lib/discovery.ts';
import { skipForSearch, unclassified } from '../../suites/lib/requests/search.ts';
import { unitRunConfig } from '../support/run-config.ts';
import { completion, scratch } from '../support/check-scratch.ts';

const entry = (id: string) => ({ id, name: id, min_tier: 'free', supports_images: false, supports_caching: false, supports_reasoning: false, supports_global_endpoint: true, is_featured: false });
const REFUSALS: Record<string, string> = {
  's-unsupported': 'hosted web search is unavailable for this request',
  's-budget': 'hosted web search on this model requires an output budget of at least 1024 tokens; 64 was requested',
  's-other': 'search is off',
};

/** A target whose search refusals all carry a wrong code: only their texts tell them apart. */
function wrongCodeTarget(): Promise<Server> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET') return res.end(JSON.stringify({ object: 'list', data: Object.keys(REFUSALS).map(entry) }));
      const body = JSON.parse(raw) as { model: string; web_search_options?: unknown };
      if (body.web_search_options !== undefined) {
        res.statusCode = 400;
        return res.end(JSON.stringify({ error: { type: 'invalid_request_error', code: 'bad_request', message: REFUSALS[body.model] } }));
      }
      res.end(JSON.stringify(completion({ content: 'Hello.' }, { model: body.model })));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const scratchDirs: string[] = [];
test.afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

test('search probes with a wrong code: classified by section 7\'s fixed message; one naming neither refusal is unclassified', async () => {
  const server = await wrongCodeTarget();
  try {
    const target = new Target(unitRunConfig({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'sk-unit', folders: scratchDirs }));
    const d = await discover(target, {}, 10);
    const result = Object.fromEntries(d.searchProbes.map((p) => [p.model, p.result]));
    expect(result).toEqual({ 's-unsupported': 'unsupported', 's-budget': 'budget', 's-other': 'other' });
    expect(d.searchProbes.find((p) => p.model === 's-budget')?.minOutputTokens).toBe(1024);
    expect(unclassified(d).map((p) => p.model)).toEqual(['s-other']);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a search test left without a classified model skips with SEARCH-045 as the cause', () => {
  const { check } = scratch(['SEARCH-001', 'SEARCH-002']);
  const d: Discovery = { models: [], searchProbes: [{ model: 's-other', result: 'other', status: 400, code: 'bad_request' }] };
  expect(() => skipForSearch(check, d, 'no probed model is \'capable\'')).toThrow(Skipped);
  for (const id of ['SEARCH-001', 'SEARCH-002']) {
    const r = check.records.find((x) => x.id === id);
    expect(r?.status, id).toBe('skip');
    expect(r?.cause?.id).toBe('SEARCH-045');
    expect(r?.message).toMatch(/s-other HTTP 400 bad_request/);
  }
  // Throttling or the key's access says nothing about search: a plain skip.
  const plain = scratch(['SEARCH-001']);
  expect(() => skipForSearch(plain.check, { models: [], searchProbes: [{ model: 'm', result: 'other', status: 429 }] }, 'no probed model')).toThrow(Skipped);
  expect(plain.check.records.find((x) => x.id === 'SEARCH-001')?.cause).toBeUndefined();
});

test('tool_choice "required" answered whole without a call: a CHAT-001 finding, the returned-call rules skip with it as cause', () => {
  const dependents = ['RESP-015', 'TOOL-006', 'TOOL-015'];
  const { check, respond } = scratch(['CHAT-001', ...dependents]);
  const res = respond(200, completion({ content: 'I would rather not call anything.' }));
  expect(judgeForcedCallMade(check, res, [], false, dependents, 'tool_choice "required"')).toBe(false);
  expect(check.records.find((r) => r.id === 'CHAT-001')?.status).toBe('warn');
  for (const id of dependents) {
    const r = check.records.find((x) => x.id === id);
    expect(r?.status, id).toBe('skip');
    expect(r?.cause?.id, id).toBe('CHAT-001');
  }
  // Cut by the cap: no finding, the rules are not applicable.
  const cut = scratch(['CHAT-001', ...dependents]);
  judgeForcedCallMade(cut.check, cut.respond(200, completion({ content: 'I will' }, {})), [], true, dependents, 'tool_choice "required"');
  expect(cut.check.records.some((r) => r.id === 'CHAT-001')).toBe(false);
  expect(cut.check.records.filter((r) => dependents.includes(r.id)).every((r) => r.status === 'skip' && r.notApplicable)).toBe(true);
  // A call came back: nothing recorded here.
  const made = scratch(['CHAT-001']);
  expect(judgeForcedCallMade(made.check, made.respond(200, completion({ content: '' })), [{ name: 'f' }], false, dependents, 'x')).toBe(true);
  expect(made.check.records).toEqual([]);
});
