// The report defects found certifying third-party servers (issue 17 "Report", issue 18 point 7), on the files
// writeReports really writes: control bytes from a target shown escaped, property-replay curls intact in every
// file, and the "credential reached the writer" alarm raised exactly when a known secret did.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { escapeControls } from '../../report/control-chars.ts';
import { esc } from '../../report/html.ts';
import { writeReports } from '../../report/write.ts';
import type { ConformanceReport } from '../../report/json.ts';
import { xmlEscape } from '../../report/junit.ts';
import { maskKnownSecrets } from '../../report/redaction.ts';
import { renderSummary } from '../../report/terminal.ts';
import { CONTROL_BYTES, REPLAY_CURL, SAMPLE_SECRET, sampleReport } from '../support/reports.ts';

interface Written {
  files: Record<string, string>;
  alarms: string[];
}

function write(report: ConformanceReport, secrets: readonly string[] = [SAMPLE_SECRET]): Written {
  const dir = mkdtempSync(path.join(tmpdir(), 'chatconform-writers-'));
  const alarms: string[] = [];
  const files = writeReports(report, dir, secrets, (name) => alarms.push(name));
  return { files: Object.fromEntries(files.map((f) => [path.basename(f), readFileSync(f, 'utf8')])), alarms };
}

test.describe('control bytes from a target', () => {
  test('escapeControls: C0, DEL, C1 and lone surrogates as \\uXXXX; tab, newlines, text and emoji kept', () => {
    expect(escapeControls('a\u0007b\u0000c\u001b[31md\u007f\u0085')).toBe('a\\u0007b\\u0000c\\u001b[31md\\u007f\\u0085');
    expect(escapeControls('lone \ud800 and \udfff')).toBe('lone \\ud800 and \\udfff');
    expect(escapeControls('tab\tline\ncr\r é 中 😀 \uFFFD')).toBe('tab\tline\ncr\r é 中 😀 \uFFFD');
  });

  test('every file shows them escaped: never raw, never U+FFFD; conformance.json keeps them as JSON escapes', () => {
    const report = sampleReport();
    const { files } = write(report);
    expect(report.requirements.find((r) => r.id === 'RESP-001')!.evidence[0]!.exchange!.responseBody).toContain(CONTROL_BYTES);
    for (const name of ['junit.xml', 'conformance.html']) {
      const text = files[name]!;
      expect(text, name).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/);
      expect(text, name).not.toContain('\uFFFD');
      expect(text, name).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
      expect(text, name).toContain('ding\\u0007 nul\\u0000 \\u001b[31mred\\u001b[0m c1\\u0085 half\\ud800');
    }
    const json = files['conformance.json']!;
    expect(json).toContain('ding\\u0007 nul\\u0000 \\u001b[31mred\\u001b[0m');
    expect(JSON.parse(json).requirements.find((r: { id: string }) => r.id === 'RESP-001').evidence[0].exchange.responseBody).toContain(CONTROL_BYTES);
  });

  test('the terminal never receives a target\'s escape sequence', () => {
    const report = sampleReport();
    const rc = report.rootCauses.find((c) => c.id === 'RESP-001')!;
    rc.message = `${CONTROL_BYTES} ${rc.message}`;
    const text = renderSummary(report, []);
    expect(text).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/);
    expect(text).toContain('ding\\u0007 nul\\u0000 \\u001b[31mred');
  });
});

test.describe('property-replay curls', () => {
  test('intact in conformance.json, junit.xml and conformance.html: the key variable survives escaping and the writers', () => {
    const report = sampleReport();
    const { files, alarms } = write(report);
    const r = report.requirements.find((x) => x.id === 'REQ-010')!;
    expect(r.evidence[0]!.exchange!.curl).toBe(REPLAY_CURL);
    expect(r.reason).toContain(`replay the request: ${REPLAY_CURL}`);
    expect(JSON.parse(files['conformance.json']!).requirements.find((x: { id: string }) => x.id === 'REQ-010').evidence[0].exchange.curl).toBe(REPLAY_CURL);
    // Exactly as escaped for the file: `-H &quot;Authorization: Bearer &quot;$CONFORMANCE_API_KEY`, not ***REDACTED***.
    expect(files['junit.xml']).toContain(`replay: ${xmlEscape(REPLAY_CURL)}`);
    expect(files['junit.xml']).toContain(`replay the request: ${xmlEscape(REPLAY_CURL)}`);
    expect(files['conformance.html']).toContain(`<pre class="curl-text">${esc(REPLAY_CURL)}</pre>`);
    expect(files['conformance.html']).toContain(`replay the request: ${esc(REPLAY_CURL)}`);
    for (const name of ['junit.xml', 'conformance.html']) expect(files[name], name).not.toMatch(/Bearer (&quot;)?\*\*\*REDACTED\*\*\* --data-binary/);
    expect(alarms).toEqual([]);
  });
});

test.describe('the redaction alarm', () => {
  test('silent when nothing leaked: a hostile sample (secrets echoed in bodies, headers, errors) whose report is redacted', () => {
    const { files, alarms } = write(sampleReport(), [SAMPLE_SECRET, 'sk-mock-full-0123456789abcdef']);
    expect(alarms).toEqual([]);
    for (const text of Object.values(files)) expect(text).not.toContain(SAMPLE_SECRET);
  });

  test('fires, and masks, when a known secret really reached a writer: raw, or in the form each writer gives it', () => {
    const secret = 'sk-<Live>&"Quoted"';
    const report = sampleReport();
    // Past the report's own redaction: what a bug in a writer's path would let through.
    report.requirements.find((r) => r.id === 'CAT-027')!.statement = `leaked ${secret}`;
    const { files, alarms } = write(report, [secret]);
    expect(alarms).toEqual(['conformance.json', 'junit.xml', 'conformance.html']);
    for (const text of Object.values(files)) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(esc(secret));
      expect(text).not.toContain(xmlEscape(secret));
      expect(text).not.toContain(JSON.stringify(secret).slice(1, -1));
      // The HTML's search index holds a lower-cased copy.
      expect(text).not.toContain(esc(secret.toLowerCase()));
    }
    expect(files['conformance.html']).toContain('leaked ***REDACTED***');
  });

  test('maskKnownSecrets: leaked exactly when a known secret is present; bearer-looking text that is no secret is left alone', () => {
    expect(maskKnownSecrets('Authorization: Bearer &quot;$CONFORMANCE_API_KEY --data', ['sk-1'])).toEqual({ text: 'Authorization: Bearer &quot;$CONFORMANCE_API_KEY --data', leaked: false });
    expect(maskKnownSecrets('Bearer ***REDACTED*** and Bearer abc', [])).toEqual({ text: 'Bearer ***REDACTED*** and Bearer abc', leaked: false });
    expect(maskKnownSecrets('key sk-1 and sk-1', ['sk-1', ''])).toEqual({ text: 'key ***REDACTED*** and ***REDACTED***', leaked: true });
  });
});
