// The four reference adapters of examples/clients/ under every scenario of `chatconform client` (slow tier: one
// whole client run each). Each must pass every scenario but the findings about the libraries themselves, listed
// below; the table it prints, scenario x adapter with the reason of anything but a pass, is the compatibility
// matrix of docs/client-conformance.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { chatconformCommand } from './support/cli-process.ts';

const ADAPTERS = ['openai', 'ai-sdk', 'langchain', 'fetch'];
/**
 * What a library does itself, not its adapter: the AI SDK's openai-compatible provider rejects a usage-only chunk
 * without `choices` ("Type validation failed") and fails the whole stream; the contract leaves that chunk's shape
 * open, so it is a warning (exit 0).
 */
const FINDINGS = ['stream-usage-bare x ai-sdk: warn'];

interface Row {
  id: string;
  status: string;
  reason?: string;
}

function runAdapter(name: string, dir: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const [command, argv] = chatconformCommand(['client', '--report-dir', dir, '--', 'node', `examples/clients/${name}.mjs`]);
    const child = spawn(command, argv, { cwd: repoRoot, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

test('every reference adapter passes every scenario', async () => {
  test.setTimeout(600_000);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'chatconform-adapters-'));
  try {
    const table = new Map<string, Map<string, Row>>();
    const codes: Record<string, number | null> = {};
    for (const name of ADAPTERS) {
      const dir = path.join(scratch, name);
      codes[name] = await runAdapter(name, dir);
      const report = JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as { scenarios: Row[] };
      for (const row of report.scenarios) {
        if (!table.has(row.id)) table.set(row.id, new Map());
        table.get(row.id)!.set(name, row);
      }
    }
    const lines = [`  ${'scenario'.padEnd(22)} ${ADAPTERS.map((a) => a.padEnd(10)).join(' ')}`];
    const reasons: string[] = [];
    for (const [id, cells] of table) {
      lines.push(`  ${id.padEnd(22)} ${ADAPTERS.map((a) => (cells.get(a)?.status ?? '-').padEnd(10)).join(' ')}`);
      for (const a of ADAPTERS) if (cells.get(a)?.reason) reasons.push(`  ${id} x ${a}: ${cells.get(a)!.status}: ${cells.get(a)!.reason}`);
    }
    console.log(['', ...lines, ...reasons, ''].join('\n'));
    expect(codes).toEqual(Object.fromEntries(ADAPTERS.map((a) => [a, 0])));
    const notPass = [...table].flatMap(([id, cells]) => ADAPTERS.filter((a) => cells.get(a)?.status !== 'pass').map((a) => `${id} x ${a}: ${cells.get(a)?.status ?? 'missing'}`));
    expect(notPass).toEqual(FINDINGS);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
