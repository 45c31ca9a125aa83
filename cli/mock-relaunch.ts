// The served commands' young generation (`chatconform mock`, `chatconform proxy`), capped at 8 MB semi-spaces so
// their RSS stays small under load: V8's default lets them grow to 16 MB each (the mock: about 190 MB at 10
// connections instead of under 100 MB, bench/README.md; the proxy, whose judging worker is a second heap: a
// soak's peak 353 MB instead of under 300 MB, bench/README.md). V8 reads the cap only when it starts
// (v8.setFlagsFromString of it afterwards is ignored: measured), so a served command started without it runs
// itself again in a node started with it, and waits for that one.
import { spawn } from 'node:child_process';
import os from 'node:os';

export const MOCK_SEMI_SPACE_FLAG = '--max-semi-space-size=8';

/** Set in the relaunched process: it must not relaunch again, and it stops when its launcher goes. */
const RELAUNCHED = 'CHATCONFORM_MOCK_RELAUNCHED';

/** Whether this process should run the mock again with the cap: not when some cap was given (on the command line or in NODE_OPTIONS), nor in the relaunched one. */
export function needsRelaunch(): boolean {
  if (process.env[RELAUNCHED] === '1') return false;
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return !given.some((a) => a.startsWith('--max-semi-space-size'));
}

/** The commands that serve until stopped, and run with the cap. */
export const SERVED_COMMANDS: readonly string[] = ['mock', 'proxy'];

/** Runs this same command in a node started with the cap; resolves with its exit code. Signals are passed on. */
export function relaunch(command = 'mock'): Promise<number> {
  const child = spawn(process.execPath, [MOCK_SEMI_SPACE_FLAG, ...process.execArgv, ...process.argv.slice(1)], {
    // The IPC channel only tells the served command when its launcher is gone (see followLauncher).
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [RELAUNCHED]: '1' },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => {
    child.once('error', (err) => {
      process.stderr.write(`error: cannot start the ${command}: ${err.message}\n`);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
  });
}

/** In the relaunched command: stop when the launcher is gone (killed with SIGKILL, it could not pass a signal on). */
export function followLauncher(): void {
  if (process.env[RELAUNCHED] !== '1' || process.channel === undefined) return;
  delete process.env[RELAUNCHED];
  process.channel.unref();
  process.once('disconnect', () => process.exit(1));
}
