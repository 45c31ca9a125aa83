// A "must be accepted" judgement is a judgement of the status: its finding is status-only, so a 500 (or a 413) to a
// request the contract says is accepted is carded by its status, never as "error answers are not a JSON error
// object" (report/causes.ts files a status-only finding by its status). Every acceptance in the suite goes through
// a status judgement (judgeAcceptedStatus, judgeAccepted, judgeStreamAccepted, or Checker.status itself).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { judgeAccepted, judgeAcceptedStatus, judgeStreamAccepted } from '../../judge/acceptance.ts';
import { scratch } from '../support/check-scratch.ts';
import { repoRoot } from '../../run/config.ts';

const PLAIN_500 = { 'content-type': 'text/plain' };

test('a 500 in plain text to an accepted request: every acceptance judgement records a status-only finding', () => {
  const { check, respond } = scratch(['TOOL-004', 'REQ-018', 'RSN-002']);
  judgeAcceptedStatus(check, 'TOOL-004', respond(500, 'Internal Server Error', PLAIN_500), 'a tool of type "function" with a function object');
  judgeAccepted(check, 'REQ-018', respond(500, 'Internal Server Error', PLAIN_500), 'm', 'content parts in a system message');
  judgeStreamAccepted(check, 'RSN-002', respond(500, 'Internal Server Error', PLAIN_500), 'm', 'include_reasoning true');
  const findings = check.records.filter((r) => r.status === 'fail');
  expect(findings.map((r) => r.id)).toEqual(['TOOL-004', 'REQ-018', 'RSN-002']);
  for (const r of findings) {
    expect(r.statusOnly, `${r.id}: ${r.message}`).toBe(true);
    expect(r.message).toMatch(/expected status 200; received HTTP 500/);
  }
});

test('the suite judges no acceptance with a bare check.that on the status (it would not be status-only)', () => {
  const root = path.join(repoRoot, 'suites');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.spec.ts'));
  const bare: string[] = [];
  for (const f of files) {
    readFileSync(path.join(root, f), 'utf8').split('\n').forEach((line, i) => {
      if (/\b(check|cc)\.that\(/.test(line) && /\.status === 200\b/.test(line) && /accepted/.test(line)) bare.push(`suites/${f}:${i + 1}`);
    });
  }
  expect(bare).toEqual([]);
});
