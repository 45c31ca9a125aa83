// Issue 31, item 3: `chatconform mock --replay DIR` applies the live mock's nesting, size and header rules, and reads
// recordings only from inside their folder. A recording that breaks a rule is refused at load with one line (the
// CLI exits 2, no stack trace, no path or content from outside the folder); a request the replay cannot serve
// gets a section-7 error.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { RECORDING_FILE_LIMIT, RecordingError } from '../../mock/replay/recording.ts';
import { createReplayService } from '../../mock/replay/service.ts';
import { coreRequest } from '../support/harness-calls.ts';
import { CliProcesses } from './support/cli-process.ts';

const cli = new CliProcesses();
let root: string;

/** A recording of GET /v1/models, valid as recorded; `over` changes its response. */
function recording(over: Record<string, unknown> = {}, request: Record<string, unknown> = {}): string {
  return JSON.stringify({
    format: 'chatconform-recording/1',
    recordedAt: '2026-01-01T00:00:00Z',
    request: { method: 'GET', path: '/v1/models', headers: {}, ...request },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: { object: 'list', data: [] }, ...over },
  });
}

/** A fresh recording folder holding `files` (name -> text). */
function folder(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(dir, f), text);
  return dir;
}

const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);

test.beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'replay-hostile-'));
});
test.afterAll(() => {
  cli.stopAll();
  rmSync(root, { recursive: true, force: true });
});

/** Refused at load, in-process and by the CLI: one line, exit 3, no stack trace. */
async function refusedAtLoad(dir: string, message: RegExp, never: string[] = []): Promise<void> {
  expect(() => createReplayService({ dir })).toThrow(RecordingError);
  expect(() => createReplayService({ dir })).toThrow(message);
  const { code, stderr } = await cli.run(['mock', '--port', '0', '--replay', dir]);
  expect(code, stderr).toBe(3);
  expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
  expect(stderr).toMatch(/^error: --replay /);
  expect(stderr).toMatch(message);
  for (const s of never) expect(stderr).not.toContain(s);
}

test('a request nested past the bound gets the live mock\'s 400 nesting_too_deep, not a 500', async () => {
  const dir = folder('plain', { '000001-get-v1-models.json': recording() });
  const replay = createReplayService({ dir });
  const body = `{"model":"m","messages":${deep(5000)}}`;
  const result = await replay.handle(coreRequest('POST', '/v1/chat/completions', { headers: { authorization: 'Bearer sk-any' }, body }));
  expect(result.status).toBe(400);
  expect(result.kind === 'json' ? result.body : undefined).toEqual({ error: { type: 'invalid_request_error', code: 'nesting_too_deep', message: expect.stringContaining('64 levels') } });
});

test('a recording nested past the bound is refused at load with one line', async () => {
  test.setTimeout(60_000);
  // Written as text: the test's own JSON.stringify would overflow on it.
  const text = recording({}, { method: 'POST', path: '/v1/chat/completions', body: 'DEEP' }).replace('"DEEP"', deep(5000));
  const dir = folder('deep', { '000001-post-v1-chat-completions.json': text });
  await refusedAtLoad(dir, /000001-post-v1-chat-completions\.json: a body nests objects and arrays more than 64 levels deep/);
});

test('recordings are read only from inside their folder; a link out is refused without naming its target', async () => {
  test.setTimeout(60_000);
  const outside = path.join(root, 'outside-secret-place');
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP-SECRET-CONTENT');
  writeFileSync(path.join(outside, 'valid.json'), recording());
  for (const target of ['secret.txt', 'valid.json']) {
    const dir = folder(`link-${target}`, {});
    symlinkSync(path.join(outside, target), path.join(dir, '000001-get-v1-models.json'));
    await refusedAtLoad(dir, /000001-get-v1-models\.json: a link leading out of .*; recordings are read only from inside their folder/, ['outside-secret-place', 'TOP-SECRET-CONTENT']);
  }
  // A link to another recording of the same folder is read.
  const dir = folder('link-inside', { '000001-get-v1-models.json': recording() });
  symlinkSync(path.join(dir, '000001-get-v1-models.json'), path.join(dir, '000002-get-v1-models.json'));
  expect(createReplayService({ dir }).recordings).toBe(2);
});

test('a header the server cannot send, and a line break inside an event, are refused at load', async () => {
  test.setTimeout(60_000);
  const crlf = folder('crlf', { '000001-get-v1-models.json': recording({ headers: { 'content-type': 'application/json', 'x-note': 'a\r\nset-cookie: evil=1' } }) });
  await refusedAtLoad(crlf, /response header "x-note" cannot be sent \(ERR_INVALID_CHAR\)/, ['evil=1']);
  const badName = folder('bad-name', { '000001-get-v1-models.json': recording({ headers: { 'x bad': 'v' } }) });
  await refusedAtLoad(badName, /response header "x bad" cannot be sent/);
  const cr = folder('cr-event', {
    '000001-post-v1-chat-completions.json': recording({ headers: { 'content-type': 'text/event-stream' }, body: undefined, events: [{ data: '{"a":1}\r\rdata: {"injected":true}' }, { data: '[DONE]' }] }, { method: 'POST', path: '/v1/chat/completions', body: { model: 'm', messages: [] } }),
  });
  await refusedAtLoad(cr, /response\.events\[0\]\.data holds a carriage return/);
  const name = folder('lf-name', {
    '000001-post-v1-chat-completions.json': recording({ headers: { 'content-type': 'text/event-stream' }, body: undefined, events: [{ event: 'x\ndata: injected', data: '1' }] }, { method: 'POST', path: '/v1/chat/completions', body: { model: 'm', messages: [] } }),
  });
  await refusedAtLoad(name, /response\.events\[0\]\.event holds a line break/);
});

test('a recording file past the size bound is refused before it is read', async () => {
  test.setTimeout(60_000);
  const dir = folder('huge', { '000001-get-v1-models.json': '' });
  // Sparse: the size is what the bound reads, no data is written.
  truncateSync(path.join(dir, '000001-get-v1-models.json'), RECORDING_FILE_LIMIT + 1);
  await refusedAtLoad(dir, /000001-get-v1-models\.json: larger than 38\.1 MiB, the most the kit reads of it: refused/);
});
