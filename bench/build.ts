// Compiles the mock, the bare server and the in-process profile to bench/.out/ (plain JavaScript, never tsx) with
// the files they read at run time beside them (fixtures/mock, spec/schemas). Used by bench/mock.ts; run alone
// (`npm run bench:build`) before profiling the compiled code (bench/README.md).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = path.join(ROOT, 'bench/.out');

export function buildBench(): void {
  rmSync(OUT, { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'bench/tsconfig.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) throw new Error('tsc -p bench/tsconfig.json failed');
  mkdirSync(path.join(OUT, 'fixtures'), { recursive: true });
  cpSync(path.join(ROOT, 'fixtures/mock'), path.join(OUT, 'fixtures/mock'), { recursive: true });
  cpSync(path.join(ROOT, 'spec/schemas'), path.join(OUT, 'spec/schemas'), { recursive: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) buildBench();
