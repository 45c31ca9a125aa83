// Issue 51, item 8 (brief point 6): the suite listing never passes through a fixed buffer. A per-model matrix of
// 1,000 models (the cap) with 256-character ids lists some 78,000 tests: `--list`, alone and with a filter, prints
// them all and exits 0. The old listing went through Playwright's JSON reporter on stdout into a 64 MB buffer and
// ended in "internal error: ... JSON at position 67108864", exit 3. Slow tier: each listing takes 30-60 s.
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { MAX_MATRIX_MODELS } from '../../run/model-matrix.ts';
import { listen } from '../support/listen.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';

const IDS = Array.from({ length: MAX_MATRIX_MODELS }, (_, i) => `bulk/${String(i).padStart(4, '0')}-${'x'.repeat(246)}`);

test.describe.configure({ mode: 'parallel' });

for (const flags of [['--list'], ['--list', '--exclude-requirement', 'CAT-001']]) {
  test(`1,000 models with 256-character ids: run --models all ${flags.join(' ')} lists every test, exit 0`, async () => {
    test.setTimeout(400_000);
    const body = JSON.stringify({ object: 'list', data: IDS.map((id) => ({ id, name: id })) });
    const target = await listen(http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)));
    try {
      const env = { ...process.env };
      for (const k of Object.keys(env)) if (k.startsWith('CONFORMANCE_')) delete env[k];
      const r = await runProcess(...chatconformCommand(['run', '--base-url', target.url, '--models', 'all', '--seed', '1', ...flags]), { boundMs: 360_000, env, keepChars: 200_000 });
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(r.stderr).not.toMatch(/internal error|JSON at position/);
      const count = Number(/^(\d+) tests in \d+ file\(s\)$/m.exec(r.stdout)?.[1]);
      // Every model's tests: each model-dependent test once per model.
      expect(count).toBeGreaterThan(MAX_MATRIX_MODELS * 10);
      expect(r.stdout).toContain(IDS.at(-1));
    } finally {
      await target.close();
    }
  });
}
