// An answer's content given as text parts (2.9: "string or array"; 2.5) is read as its text wherever the judge reads
// content: citation offsets count the joined text (SEARCH-027), generated text counts as generated (RESP-022).
import { expect, test } from '@playwright/test';
import { contentText } from '../../judge/content-text.ts';
import { citationsWithinText, completionTokensCountOutput } from '../../judge/checks/completion.ts';
import { returnedText } from '../../suites/lib/requests/tools.ts';

const parts = [{ type: 'text', text: 'Paris is the capital' }, { type: 'image_url', image_url: { url: 'x' } }, { type: 'text', text: ' of France.' }];
const body = (content: unknown, extra: Record<string, unknown> = {}, usage: Record<string, unknown> = { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 }) => ({
  id: 'c', object: 'chat.completion', created: 1, model: 'm', usage,
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, ...extra } }],
});
const citation = (start: number, end: number) => ({ type: 'url_citation', url_citation: { url: 'https://example.com', title: 't', start_index: start, end_index: end } });

test('contentText: a string as it is, text parts joined, anything else undefined', () => {
  expect(contentText('hello')).toBe('hello');
  expect(contentText(parts)).toBe('Paris is the capital of France.');
  expect(contentText([])).toBe('');
  expect(contentText(null)).toBeUndefined();
  expect(contentText(undefined)).toBeUndefined();
  expect(contentText(7)).toBeUndefined();
});

test('SEARCH-027: citation spans over an answer in text parts fit the joined text; one past it still fails', () => {
  const fits = citationsWithinText.assess({ body: body(parts, { annotations: [citation(0, 5), citation(21, 31)] }), model: 'm', what: 'completion' });
  expect(fits).toEqual([]);
  const past = citationsWithinText.assess({ body: body(parts, { annotations: [citation(0, 40)] }), model: 'm', what: 'completion' });
  expect(Array.isArray(past) && past.length).toBe(1);
});

test('RESP-022: text given as parts is generated text (its case is judged, not lost)', () => {
  const found = completionTokensCountOutput.assess({ body: body(parts), model: 'm', what: 'completion' });
  expect(Array.isArray(found) && found[0]).toMatch(/completion_tokens is 0/);
});

test("the suite reads a parts answer's text back (the assistant turn it resends)", () => {
  expect(returnedText(body(parts))).toBe('Paris is the capital of France.');
});
