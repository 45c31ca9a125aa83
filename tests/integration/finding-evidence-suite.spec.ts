// Evidence is what was judged (issue 29, item 2), at the suite's call sites: each suite area runs against the mock
// in a defect mode of its own. Every finding of the defect's requirement must carry an exchange on which the mock
// deviated (its answer shows the defect: the request the test sends beside it, a control, the first or the last of
// several, does not), and every other failing (or warning) finding an exchange whose request is one it is about
// (a search finding a search request, a stream finding a streamed request, a catalog finding a catalog read). A call
// site that named the wrong response, or `null` where one exchange deviated, fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { DefectName } from '../../mock/defects.ts';
import { startMockServer } from '../../mock/server.ts';
import { cleanup, MOCK_PROFILE, runTargets } from './support/suite-runner.ts';

interface SentRequest {
  method: string;
  url: string;
  requestBody?: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

const eventStream = (x: SentRequest) => /text\/event-stream/i.test(x.responseHeaders['content-type'] ?? '');
const requestedModel = (x: SentRequest) => bodyOf(x).model;
/** The function names a request declared, and those its answer called (in a body or in stream deltas). */
const declaredNames = (x: SentRequest) => (Array.isArray(bodyOf(x).tools) ? (bodyOf(x).tools as unknown[]) : []).map((t) => (isObject(t) && isObject(t.function) ? t.function.name : undefined));
const calledNames = (x: SentRequest) => [...x.responseBody.matchAll(/"name":"([^"]*)"/g)].map((m) => m[1]);

/** One defect per suite area, the area's spec file, and how an answer shows the defect. */
const AREAS: readonly { file: string; defect: DefectName; breaks: string; deviated: (x: SentRequest) => boolean }[] = [
  { file: 'suites/auth.spec.ts', defect: 'restricted-key-rerouted', breaks: 'AUTH-008', deviated: (x) => x.status === 200 },
  { file: 'suites/catalog.spec.ts', defect: 'catalog-lists-deactivated', breaks: 'CAT-039', deviated: (x) => x.method === 'GET' && x.responseBody.includes('"legacy-chat-v1"') },
  // The entry read differs from the list: its finding is on the entry read, never on a list read after it.
  { file: 'suites/catalog.spec.ts', defect: 'catalog-get-differs', breaks: 'CAT-037', deviated: (x) => x.method === 'GET' && /\/v1\/models\/./.test(new URL(x.url).pathname) },
  { file: 'suites/images.spec.ts', defect: 'image-to-non-image-answered', breaks: 'IMG-006', deviated: (x) => x.status === 200 },
  { file: 'suites/reasoning.spec.ts', defect: 'effort-accepted', breaks: 'RSN-006', deviated: (x) => x.status === 200 },
  { file: 'suites/routing.spec.ts', defect: 'routing-substitute-model', breaks: 'ROUTE-008', deviated: (x) => x.status === 200 && !x.responseBody.includes(`"model":${JSON.stringify(requestedModel(x))}`) },
  { file: 'suites/streaming.spec.ts', defect: 'stream-error-as-200', breaks: 'ERR-005', deviated: (x) => x.status === 200 && eventStream(x) },
  { file: 'suites/tools.spec.ts', defect: 'tool-call-undeclared-name', breaks: 'TOOL-006', deviated: (x) => calledNames(x).some((n) => !declaredNames(x).includes(n)) },
  { file: 'suites/web-search.spec.ts', defect: 'search-refusal-streamed', breaks: 'SEARCH-043', deviated: (x) => eventStream(x) },
];
interface Item {
  status: string;
  test: string;
  message?: string;
  exchange?: SentRequest;
}
interface Result {
  id: string;
  evidence: Item[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const bodyOf = (x: SentRequest): Json => {
  try {
    const v: unknown = JSON.parse(x.requestBody ?? '');
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
};
const messagesOf = (b: Json): Json[] => (Array.isArray(b.messages) ? b.messages.filter(isObject) : []);
const chat = (x: SentRequest) => x.method === 'POST' && new URL(x.url).pathname.endsWith('/chat/completions');
const searching = (b: Json) => 'web_search_options' in b || (Array.isArray(b.tools) && b.tools.some((t) => isObject(t) && t.type === 'web_search'));

/**
 * What a finding under `id` is about, as a test on the request it carries: undefined when any request may be
 * (a rule of every answer, a key's rule whose credential the report masks).
 */
function aboutRequest(id: string): ((x: SentRequest) => boolean) | undefined {
  if (id === 'STREAM-001') return (x) => chat(x) && bodyOf(x).stream !== true;
  if (/^(?:STREAM|ERR-005$|ERR-010$)/.test(id)) return (x) => chat(x) && bodyOf(x).stream === true;
  if (id.startsWith('SEARCH-')) return (x) => chat(x) && searching(bodyOf(x));
  if (id.startsWith('TOOL-')) return (x) => chat(x) && (Array.isArray(bodyOf(x).tools) || messagesOf(bodyOf(x)).some((m) => 'tool_calls' in m || m.role === 'tool'));
  if (id.startsWith('RSN-')) return (x) => chat(x) && ('reasoning' in bodyOf(x) || 'include_reasoning' in bodyOf(x));
  if (id.startsWith('IMG-')) return (x) => chat(x) && messagesOf(bodyOf(x)).some((m) => Array.isArray(m.content));
  if (id.startsWith('ROUTE-')) return (x) => chat(x) && isObject(bodyOf(x).provider);
  if (['CAT-039', 'CAT-002', 'CAT-030', 'CAT-034', 'CAT-036', 'CAT-037'].includes(id)) return (x) => x.method === 'GET' && new URL(x.url).pathname.includes('/models');
  return undefined;
}

/** The failing findings whose evidence is a request of another kind, described. */
function misattributed(results: readonly Result[]): string[] {
  const wrong: string[] = [];
  for (const r of results) {
    const about = aboutRequest(r.id);
    if (!about) continue;
    for (const e of r.evidence) {
      if ((e.status === 'fail' || e.status === 'warn') && e.exchange && !about(e.exchange)) {
        wrong.push(`${r.id} ${e.status} in "${e.test}": carries ${e.exchange.method} ${e.exchange.url} ${(e.exchange.requestBody ?? '').slice(0, 160)}`);
      }
    }
  }
  return wrong;
}

test('every suite area, against the mock in a defect of its own: each failing finding carries a request it is about', async () => {
  test.setTimeout(900_000);
  // Every area a target of one run: its own mock in its defect, its own spec file.
  const mocks = await Promise.all(AREAS.map((area) => startMockServer({ port: 0, defect: area.defect })));
  let outcomes;
  try {
    const run = await runTargets(
      AREAS.map((area, i) => ({ name: `${area.defect}`, baseUrl: mocks[i]!.url, profile: MOCK_PROFILE, files: [area.file] })),
      { fuzzRuns: 3, workers: 2, boundMs: 600_000, label: 'evidence-areas' },
    );
    try {
      outcomes = AREAS.map((area) => {
        const report = JSON.parse(readFileSync(path.join(run.reportDirOf(area.defect), 'conformance.json'), 'utf8')) as { requirements: Result[] };
        const own = report.requirements.find((r) => r.id === area.breaks)?.evidence.filter((e) => e.status === 'fail' || e.status === 'warn') ?? [];
        const notDeviating = own.filter((e) => !e.exchange || !area.deviated(e.exchange)).map((e) => `"${e.test}": ${e.exchange ? `${e.exchange.method} ${e.exchange.url} ${(e.exchange.requestBody ?? '').slice(0, 120)} -> HTTP ${e.exchange.status}` : 'no exchange'}`);
        return { area, wrong: misattributed(report.requirements), notDeviating, own: own.length };
      });
    } finally {
      cleanup(run);
    }
  } finally {
    await Promise.all(mocks.map((m) => m.close()));
  }
  for (const o of outcomes) {
    // The defect was caught, and each of its findings carries an exchange on which the mock deviated.
    expect(o.own, `${o.area.defect}: ${o.area.breaks} has no failing finding`).toBeGreaterThan(0);
    expect(o.notDeviating, `${o.area.defect}: ${o.area.breaks}'s findings that carry no deviating exchange`).toEqual([]);
  }
  expect(Object.fromEntries(outcomes.filter((o) => o.wrong.length > 0).map((o) => [o.area.defect, o.wrong.slice(0, 5)]))).toEqual({});
});
