// What a large or hostile catalog does to `run --models all`: more models than a run judges one by one, or an id of
// a megabyte, ends the run before any test with one line (exit 3), never an internal error, a stack trace or a
// spawn that fails on the size of its environment; the run says it is reading the catalog while it prepares.
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { MAX_MATRIX_MODELS } from '../../run/model-matrix.ts';
import { chatconformCommand, runProcess } from './support/cli-process.ts';
import { listen } from '../support/listen.ts';

/** A target whose catalog lists these ids, and nothing else of the API. */
async function catalogOf(ids: readonly string[]) {
  const body = JSON.stringify({ object: 'list', data: ids.map((id) => ({ id, name: id })) });
  return listen(http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body)));
}

async function runModelsAll(url: string) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CONFORMANCE_')) delete env[k];
  return runProcess(...chatconformCommand(['run', '--base-url', url, '--models', 'all', '--seed', '1']), { boundMs: 120_000, env });
}

for (const [what, ids, line] of [
  [`${MAX_MATRIX_MODELS + 1} models`, Array.from({ length: MAX_MATRIX_MODELS + 1 }, (_, i) => `bulk/m-${i}`), `--models chose ${MAX_MATRIX_MODELS + 1} models; a run judges at most ${MAX_MATRIX_MODELS}`],
  ['a model id of a megabyte', ['acme/small', `acme/${'x'.repeat(1024 * 1024)}`], '--models: a chosen model id is 1048581 characters long'],
] as const) {
  test(`a catalog of ${what}: one line, exit 3, before any test`, async () => {
    test.setTimeout(180_000);
    const target = await catalogOf(ids);
    try {
      const r = await runModelsAll(target.url);
      expect(r.code, r.stderr.slice(-2000)).toBe(3);
      expect(r.stderr).toContain('chatconform: reading the catalog to choose the models of --models all');
      expect(r.stderr).toContain(line);
      expect(r.stderr, 'no stack trace').not.toMatch(/^\s+at /m);
      expect(r.stderr).not.toMatch(/E2BIG|internal error/);
      expect(r.stdout).not.toContain('Running ');
    } finally {
      await target.close();
    }
  });
}
