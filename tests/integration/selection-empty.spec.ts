// A selection that takes no test of the suite is the caller's mistake: one line, exit 2, no report, and no target
// contacted. The catalog decides it for a requirement, section or level selection (no listing of the suite); a
// selection with exclusions, and --grep, are decided by Playwright's listing.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { chatconformCommand, runProcess } from './support/cli-process.ts';
import { closedPort } from '../support/listen.ts';

const MESSAGE = "no test of the suite checks it (the kit's own mock-only requirements are judged by its own tests)";

test('a selection of the kit\'s own requirements only, or one whose exclusions leave nothing, is refused before any test', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-empty-selection-'));
  try {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONFORMANCE_')));
    // A closed port: a run that went as far as the target would say it cannot be reached.
    const base = ['run', '--base-url', `http://127.0.0.1:${await closedPort()}`, '--report-dir', dir];
    const own = await runProcess(...chatconformCommand([...base, '--requirement', 'CAT-003,STREAM-006']), { env, boundMs: 60_000 });
    expect(own.code, own.output).toBe(2);
    expect(own.stderr.trim()).toBe(`error: requirement CAT-003, STREAM-006: ${MESSAGE}`);
    expect(own.stdout).toBe('');
    const excluded = await runProcess(...chatconformCommand([...base, '--requirement', 'RESP-005', '--exclude-requirement', 'RESP-005']), { env, boundMs: 60_000 });
    expect(excluded.code, excluded.output).toBe(2);
    expect(excluded.stderr.trim()).toBe(`error: requirement RESP-005; excluding RESP-005: ${MESSAGE}`);
    expect(existsSync(path.join(dir, 'conformance.json'))).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
