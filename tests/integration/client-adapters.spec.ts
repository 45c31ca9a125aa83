// The reference adapters of examples/clients/ under every scenario of `chatconform client`, one whole client run per
// SDK and code path (slow tier): openai-node 6.x and 4.x by create, stream() and runTools(), the AI SDK with its
// openai-compatible and its first-party openai provider, LangChain, fetch, and Python's standard library. The table it
// prints (scenario x adapter, with the reason of anything but a pass) is the matrix of docs/client-conformance.md,
// where each finding is traced to the library's source; the findings are pinned here, so a library upgrade that
// changes one shows.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { chatconformCommand } from './support/cli-process.ts';

/** Each adapter and code path: its column name and the command. */
const ADAPTERS: Record<string, string[]> = {
  'openai6 create': ['node', 'examples/clients/openai.mjs', 'create'],
  'openai6 stream()': ['node', 'examples/clients/openai.mjs', 'stream-helper'],
  'openai6 runTools()': ['node', 'examples/clients/openai.mjs', 'run-tools'],
  'openai4 create': ['node', 'examples/clients/openai.mjs', 'create', 'openai-v4'],
  'openai4 stream()': ['node', 'examples/clients/openai.mjs', 'stream-helper', 'openai-v4'],
  'openai4 runTools()': ['node', 'examples/clients/openai.mjs', 'run-tools', 'openai-v4'],
  'ai-sdk compatible': ['node', 'examples/clients/ai-sdk.mjs', 'compatible'],
  'ai-sdk openai': ['node', 'examples/clients/ai-sdk.mjs', 'openai'],
  langchain: ['node', 'examples/clients/langchain.mjs'],
  fetch: ['node', 'examples/clients/fetch.mjs'],
  python: ['python3', 'examples/clients/stdlib.py'],
};

/**
 * What the libraries do themselves, not their adapters (docs/client-conformance.md cites the source of each):
 * openai-node's SSE reader never dispatches a final event that lacks its blank line (an error event so ended is
 * lost: the truncated text comes back), LangChain and @ai-sdk/openai inherit theirs; the stream() helper and the
 * openai-compatible provider reject a stream without finish_reason, and with the AI SDK's providers a usage chunk
 * without choices (a warning: that chunk's shape is open); @ai-sdk/openai requires a citation's title.
 */
const FINDINGS = [
  'stream-omitted x openai6 stream(): fail',
  'stream-omitted x openai4 stream(): fail',
  'stream-omitted x ai-sdk compatible: fail',
  'stream-usage-bare x openai6 stream(): warn',
  'stream-usage-bare x openai4 stream(): warn',
  'stream-usage-bare x ai-sdk compatible: warn',
  'stream-usage-bare x ai-sdk openai: warn',
  'stream-error-unterminated x openai6 create: fail',
  'stream-error-unterminated x openai6 runTools(): fail',
  'stream-error-unterminated x openai4 create: fail',
  'stream-error-unterminated x openai4 runTools(): fail',
  'stream-error-unterminated x ai-sdk openai: fail',
  'stream-error-unterminated x langchain: fail',
  'search-title-absent x ai-sdk openai: fail',
];

interface Row {
  id: string;
  status: string;
  reason?: string;
}

function runAdapter(argv: string[], dir: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const [command, args] = chatconformCommand(['client', '--report-dir', dir, '--', ...argv]);
    const child = spawn(command, args, { cwd: repoRoot, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

test('the matrix: every SDK and code path under every scenario, each finding the library\'s own', async () => {
  test.setTimeout(900_000);
  const names = Object.keys(ADAPTERS);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-adapters-'));
  try {
    const table = new Map<string, Map<string, Row>>();
    const codes: Record<string, number | null> = {};
    for (const [i, name] of names.entries()) {
      const dir = path.join(scratch, String(i));
      codes[name] = await runAdapter(ADAPTERS[name]!, dir);
      const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as { scenarios: Row[] };
      for (const row of report.scenarios) {
        if (!table.has(row.id)) table.set(row.id, new Map());
        table.get(row.id)!.set(name, row);
      }
    }
    const lines = [`  ${'scenario'.padEnd(26)} ${names.map((a) => a.padEnd(18)).join(' ')}`];
    const reasons: string[] = [];
    for (const [id, cells] of table) {
      lines.push(`  ${id.padEnd(26)} ${names.map((a) => (cells.get(a)?.status ?? '-').padEnd(18)).join(' ')}`);
      for (const a of names) if (cells.get(a)?.reason) reasons.push(`  ${id} x ${a}: ${cells.get(a)!.status}: ${cells.get(a)!.reason}`);
    }
    console.log(['', ...lines, ...reasons, ''].join('\n'));
    const notPass = [...table].flatMap(([id, cells]) => names.filter((a) => cells.get(a)?.status !== 'pass').map((a) => `${id} x ${a}: ${cells.get(a)?.status ?? 'missing'}`));
    expect(notPass.sort()).toEqual([...FINDINGS].sort());
    // A MUST finding is exit 1; python and fetch pass everything.
    const failing = new Set(FINDINGS.filter((f) => f.endsWith(': fail')).map((f) => f.replace(/^.* x (.*): fail$/, '$1')));
    expect(codes).toEqual(Object.fromEntries(names.map((a) => [a, failing.has(a) ? 1 : 0])));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
