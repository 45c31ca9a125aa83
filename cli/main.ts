#!/usr/bin/env -S node --max-semi-space-size=8
// The `chatconform` command (cli/chatconform.mjs, package.json "bin", runs it; `npm run mock` and `npm run proxy` in the repository).
// cli/program.ts is the command. The installed binary starts node with the served commands' young-generation cap
// (the shebang: npm's shims on every platform read `env -S`), so `chatconform mock` is one process under 100 MB and
// `chatconform proxy` one that stays under 300 MB. Started another way without the cap (`node dist/cli/main.js
// proxy`), a served command runs itself again with one (cli/mock-relaunch.ts), before the rest of the kit is
// loaded, so the launcher stays small.
import { needsRelaunch, relaunch, SERVED_COMMANDS } from './mock-relaunch.ts';

const command = process.argv[2] ?? '';
if (SERVED_COMMANDS.includes(command) && needsRelaunch()) {
  process.exitCode = await relaunch(command);
} else {
  const { main } = await import('./program.ts');
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      // The kit's own failure, never the caller's input nor the target's verdict: exit 3, one line (the stack only
      // with CHATCONFORM_DEBUG=1).
      const detail = err instanceof Error ? (process.env.CHATCONFORM_DEBUG === '1' ? (err.stack ?? err.message) : err.message) : String(err);
      process.stderr.write(`chatconform: internal error: ${detail.replace(/\s*\n\s*/g, ' ')}\n`);
      process.exitCode = 3;
    },
  );
}
