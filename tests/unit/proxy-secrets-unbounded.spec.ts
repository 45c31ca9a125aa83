// Key masking in the proxy never runs out (issue 31): it once remembered at most 1,000 keys, so after 1,000
// throwaway `api-key` values a real key echoed by the upstream reached the recording, the violation lines and the
// report. Masking now remembers no values across exchanges (each exchange masks its own keys, and every output
// masks credentials by place and shape), so the 1,001st key is masked like the first.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { Traffic } from '../../proxy/traffic.ts';
import type { CapturedExchange } from '../../proxy/forward.ts';

function exchange(seq: number, key: string, answer: unknown, status: number): CapturedExchange {
  const body = Buffer.from(JSON.stringify(answer));
  return {
    seq,
    method: 'GET',
    path: '/v1/models',
    requestHeaders: { 'api-key': key },
    requestBody: Buffer.alloc(0),
    requestBytes: 0,
    status,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: body,
    responseBytes: body.length,
    complete: true,
    startedAt: 0,
    durationMs: 1,
  };
}

test('after 1,000 throwaway keys, a real key echoed by the upstream is still masked everywhere', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-secrets-'));
  try {
    const traffic = new Traffic('http://127.0.0.1:9', 10_000_000, path.join(dir, 'rec'));
    const empty = { object: 'list', data: [] };
    for (let i = 1; i <= 1001; i++) traffic.take(exchange(i, `throwaway-${i}`, empty, 200));
    // Not shaped like any known key format: only knowing it as this exchange's key can mask it. The answer is a
    // malformed error body (a breach), so the exchange also yields a violation line.
    const real = 'prod-tenant-key-7f3a9c';
    const lines = traffic.take(exchange(1002, real, { error: { message: `the key ${real} has no access` } }, 401)).map((v) => v.line);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain(real);
    const files = readdirSync(path.join(dir, 'rec')).sort();
    expect(files).toHaveLength(1002);
    const last = readFileSync(path.join(dir, 'rec', files.at(-1)!), 'utf8');
    expect(last).toContain('has no access');
    expect(last).not.toContain(real);
    const written = traffic.writeReport(path.join(dir, 'reports')).files;
    for (const f of written) expect(readFileSync(f, 'utf8')).not.toContain(real);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
