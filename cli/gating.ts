// The commands of CI gating beside `run`: `baseline` writes expected failures from a report, `verify` re-checks a
// certification bundle and prints its verdict, `init` writes a first chatconform.config.yaml from a target.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { ENV } from '../run/config.ts';
import { CONFIG_FILE_NAMES } from '../run/config-file.ts';
import { initConfig } from '../run/init-config.ts';
import { baselineFromResults } from '../report/baseline.ts';
import { formatVerification, loadVerifyKey, verifyBundle } from '../report/bundle.ts';
import { loadReport, ReportFileError } from '../report/load.ts';
import type { Io } from './program.ts';
import { ConfigError, EXIT, UsageError } from './usage.ts';

export function baselineCommand(io: Io): Command {
  return new Command('baseline')
    .description('write a baseline of expected failures (YAML) from a run: every failed or warned requirement, its message as the reason')
    .argument('<report>', 'a conformance.json')
    .option('-o, --output <file>', 'write it to this file (default: print it)')
    .action((file: string, opts: { output?: string }) => {
      let report;
      try {
        report = loadReport(file);
      } catch (err) {
        if (err instanceof ReportFileError) throw new ConfigError(err.message);
        throw err;
      }
      const text = baselineFromResults(report.requirements, report.target.url);
      if (opts.output) {
        writeFileSync(opts.output, text);
        io.err(`wrote ${opts.output}: ${text.split('\n').filter((l) => l.trim().startsWith('- id:')).length} expected failure(s); pass it as --expected-failures\n`);
      } else io.out(text);
    });
}

export function verifyCommand(io: Io, done: (code: number) => void): Command {
  return new Command('verify')
    .description(
      're-check a certification bundle (its folder or .tar.gz): its SHA256SUMS, bundle.json against conformance.json, and with --verify-key the signature; print its verdict (exit 1 when it does not verify)',
    )
    .argument('<bundle>', 'the bundle folder or its .tar.gz')
    .option('--verify-key <file>', "the certifier's ed25519 public key (PEM): the bundle must carry a signature of its SHA256SUMS by it")
    .addHelpText(
      'after',
      `
Without --verify-key, verify says whether the bundle is signed but checks no signature: an unsigned bundle is only
checksummed (anyone can regenerate SHA256SUMS), so only a signature checked against the certifier's public key
shows that a bundle is the one they made (chatconform run --certify --sign-key PRIVATE.pem).
It reads only the files a bundle holds, each within a bound, never through a link, and unpacks a .tar.gz in
memory (nothing on disk): anything else is named and not read.`,
    )
    .action(async (bundle: string, opts: { verifyKey?: string }) => {
      if (!existsSync(bundle)) throw new ConfigError(`${bundle}: no such bundle`);
      let key;
      if (opts.verifyKey !== undefined) {
        try {
          key = loadVerifyKey(opts.verifyKey);
        } catch (err) {
          throw new ConfigError(`--verify-key: ${(err as Error).message}`);
        }
      }
      const v = await verifyBundle(bundle, key);
      (v.ok ? io.out : io.err)(formatVerification(bundle, v));
      done(v.ok ? EXIT.ok : EXIT.mustFailed);
    });
}

export function initCommand(io: Io): Command {
  return new Command('init')
    .description('write chatconform.config.yaml from a target: its base URL and the models its catalog lists, with their capabilities (reads the catalog only: nothing is spent)')
    .requiredOption('--base-url <url>', `the target [${ENV.baseUrl}]`, process.env[ENV.baseUrl])
    .option('--api-key <key>', `a key, when the catalog reflects the caller [${ENV.apiKey}] (never written to the file)`, process.env[ENV.apiKey])
    .option('-o, --output <file>', 'where to write it', CONFIG_FILE_NAMES[1])
    .option('--force', 'overwrite an existing file')
    .action(async (opts: { baseUrl: string; apiKey?: string; output: string; force?: boolean }) => {
      try {
        new URL(opts.baseUrl);
      } catch {
        throw new UsageError(`--base-url: not a URL: ${JSON.stringify(opts.baseUrl)}`);
      }
      if (existsSync(opts.output) && !opts.force) throw new UsageError(`${opts.output} exists; --force overwrites it`);
      let result;
      try {
        result = await initConfig(opts.baseUrl, opts.apiKey);
      } catch (err) {
        throw new ConfigError((err as Error).message);
      }
      writeFileSync(opts.output, result.text);
      io.out(`wrote ${path.resolve(opts.output)}: ${result.models.length} model(s) listed; \`chatconform run\` reads it from this folder and below\n`);
    });
}
