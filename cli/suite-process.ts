// The suite as Playwright's CLI in a child process (`chatconform run`), and the one exit code of an interrupt: 3,
// whenever it comes. Before the suite starts, Ctrl-C ends the command at once; while it runs, the runner gets the
// signal itself (same process group), stops its workers and still writes the reports of what ran, whose verdict
// (exit 3, interrupted) is the command's.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONFORMANCE_CONFIG, playwrightCli } from './kit-files.ts';
import { EXIT } from './usage.ts';

/** What ends the command at an interrupt before the suite starts: `release()` when the suite starts, `before(fn)` to clean up. */
export interface Interrupts {
  release: () => void;
  /** Runs `fn` (removing the run's scratch folder, say) before the command exits on an interrupt. */
  before: (fn: () => void) => void;
}

/** Until `release()`, SIGINT and SIGTERM end the command with exit 3 and one line. */
export function interruptsEndTheCommand(): Interrupts {
  const cleanups: (() => void)[] = [];
  const stop = (signal: NodeJS.Signals) => {
    for (const fn of cleanups) fn();
    process.stderr.write(`chatconform: interrupted (${signal}) before the suite started; nothing was judged\n`);
    process.exit(EXIT.config);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
    before: (fn) => void cleanups.push(fn),
  };
}

/** Runs the suite with `args` (filters) in `env` (the run's: its plan's path and the credentials); resolves when it ended. */
export async function runSuite(args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  // Playwright's own output folder holds nothing the reports need: a temp folder, never the caller's tree or node_modules.
  const output = mkdtempSync(path.join(os.tmpdir(), 'chatconform-playwright-'));
  try {
    await spawnPlaywright(['test', '-c', CONFORMANCE_CONFIG, '--output', output, ...args], env);
  } finally {
    rmSync(output, { recursive: true, force: true });
  }
}

function spawnPlaywright(args: string[], env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [playwrightCli(), ...args], { env, stdio: 'inherit' });
    // Ctrl-C reaches the runner by itself (same process group): it stops its workers and still writes the reports of
    // what ran; this process only waits for it (a second SIGINT would make the runner quit without its reports). A
    // SIGTERM sent to this process alone is passed on.
    const wait = () => undefined;
    const forward = () => child.kill('SIGTERM');
    process.on('SIGINT', wait);
    process.on('SIGTERM', forward);
    child.on('error', reject);
    child.on('close', (code) => {
      process.off('SIGINT', wait);
      process.off('SIGTERM', forward);
      resolve(code);
    });
  });
}
