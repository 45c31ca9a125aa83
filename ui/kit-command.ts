// How the UI starts the kit's own commands: `chatconform run` and `chatconform client` in a child process, exactly as a
// user would type them (the same entry, the same plan, the same runner), never a second runner in this process. The
// installed kit runs its compiled entry with plain node; a checkout runs its TypeScript entry through tsx's loader,
// named by its absolute URL so the child finds it from any working directory.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../run/config.ts';

const EXT = path.extname(fileURLToPath(import.meta.url));

/** The command line (program and arguments) of `chatconform ...args`. */
export function kitCommand(args: readonly string[]): [string, string[]] {
  const entry = path.join(repoRoot, 'cli', `main${EXT}`);
  const loader = EXT === '.ts' ? ['--import', import.meta.resolve('tsx')] : [];
  return [process.execPath, [...loader, entry, ...args]];
}
