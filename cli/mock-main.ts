// The mock's own executable, for what runs the mock alone and compiled apart from the rest of the kit (the bench,
// bench/tsconfig.json; the fuzzer). It is the one `chatconform mock` command (cli/mock.ts), nothing more, started
// as `chatconform mock` is: without a young-generation cap it runs itself again with one (cli/mock-relaunch.ts).
import { needsRelaunch, relaunch } from './mock-relaunch.ts';

if (needsRelaunch()) {
  process.exitCode = await relaunch();
} else {
  const { mockCommand } = await import('./mock.ts');
  const { oneLine, UsageError } = await import('./usage.ts');
  try {
    await mockCommand()
      .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
      .parseAsync(process.argv.slice(2), { from: 'user' });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`error: ${oneLine(err.message)}\n`);
    process.exit(2);
  }
}
