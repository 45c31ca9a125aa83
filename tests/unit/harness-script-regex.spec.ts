// Issue 31, item 2: a script's `user_matches` meets a client's text, so it must never freeze the mock. Patterns
// have RE2 semantics (matched in time linear in the text); what RE2 cannot match that way is refused when the
// script is loaded, with a message naming the rule. A safe pattern still answers as before.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { compileScript, loadScriptFile, ScriptError, type ScriptDocument } from '../../mock/harness/script.ts';
import { createMockService } from '../../mock/service.ts';
import { chat, send } from '../support/harness-calls.ts';

/** A hang, not a speed: with a backtracking RegExp the request below held the mock for minutes. */
const HANG_BOUND_MS = 10_000;

const rule = (name: string, pattern: string): ScriptDocument => ({ rules: [{ name, match: { user_matches: pattern }, answer: { content: `matched ${name}` } }] });
const said = async (service: ReturnType<typeof createMockService>, text: string): Promise<string> => (await chat(service, { messages: [{ role: 'user', content: text }] })).json.choices[0].message.content;

test('a catastrophic pattern against a hostile message is answered at once, and the control API keeps answering', async () => {
  test.setTimeout(30_000);
  const service = createMockService({ script: rule('nested', '^(a+)+$') });
  const started = performance.now();
  expect(await said(service, `${'a'.repeat(34)}!`)).toMatch(/^Mock answer:/);
  expect(performance.now() - started).toBeLessThan(HANG_BOUND_MS);
  expect((await send(service, 'GET', '/_chatconform/journal')).status).toBe(200);
  // The same pattern still means what it says.
  expect(await said(service, 'a'.repeat(34))).toBe('matched nested');
});

test('safe patterns work as before, JavaScript spellings included', async () => {
  const service = createMockService({
    script: {
      rules: [
        { name: 'ping', match: { user_matches: '^ping\\b' }, answer: { content: 'pong' } },
        { name: 'summer', match: { user_matches: '\\u00e9t\\u00e9|(?<season>winter)' }, answer: { content: 'season' } },
        { name: 'digits', match: { user_matches: '\\d{3}-\\d{4}' }, answer: { content: 'number' } },
      ],
    },
  });
  expect(await said(service, 'ping me')).toBe('pong');
  expect(await said(service, 'pinged')).toMatch(/^Mock answer:/);
  expect(await said(service, 'cet été')).toBe('season');
  expect(await said(service, 'in winter')).toBe('season');
  expect(await said(service, 'call 555-1234 now')).toBe('number');
});

test('patterns that cannot be matched in linear time are refused at load, naming the rule', async () => {
  const refusals: [string, RegExp][] = [
    ['(a)\\1', /invalid escape sequence/],
    ['(?<n>a)\\k<n>', /backreferences/],
    ['a(?=b)', /unsupported Perl syntax/],
    ['(?<!x)y', /invalid named capture/],
    ['[', /missing closing \]/],
  ];
  for (const [pattern, why] of refusals) {
    const load = () => compileScript(rule('echo', pattern), '--script s.json');
    expect(load, pattern).toThrow(ScriptError);
    expect(load, pattern).toThrow(/^--script s\.json: rules\[0\] \(echo\): match\.user_matches is not a regular expression the mock can match in linear time/);
    expect(load, pattern).toThrow(why);
  }
  // From a file, as `chatconform mock --script` loads it.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'script-regex-'));
  try {
    const file = path.join(dir, 's.yaml');
    writeFileSync(file, 'rules:\n  - name: ok\n    answer: { content: x }\n  - name: backref\n    match: { user_matches: "(a+)\\\\1" }\n    answer: { content: y }\n');
    expect(() => loadScriptFile(file)).toThrow(/rules\[1\] \(backref\): match\.user_matches is not a regular expression the mock can match in linear time/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // Through the control API: a 400 with the section-7 envelope, and no script set.
  const service = createMockService();
  const r = await send(service, 'PUT', '/_chatconform/script', { body: rule('look', 'x(?=y)') });
  expect(r.status).toBe(400);
  expect(r.json).toEqual({ error: { type: expect.any(String), code: 'invalid_script', message: expect.stringMatching(/rules\[0\] \(look\): match\.user_matches is not a regular expression/) } });
  expect(service.harness.script()).toBeUndefined();
});
