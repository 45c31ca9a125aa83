// `chatconform mock` (and `npm run mock`): the reference mock on 127.0.0.1 until SIGINT/SIGTERM. Its first line,
// `mock listening on http://127.0.0.1:N`, is what scripts wait for and read the URL from; what it serves follows.
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFECTS, formatDefects, isDefectName, type DefectName } from '../mock/defects.ts';
import net from 'node:net';
import v8 from 'node:v8';
// From the modules themselves, not mock/index.ts: that one also loads msw (mock/handlers.ts), ~15 MB of RSS the
// served mock never uses.
import { defaultCatalog, defaultKeys } from '../mock/core/fixture-data.ts';
import { bannerLines, keysHelp } from './mock-banner.ts';
import type { MockOptions } from '../mock/options.ts';
import { startMockServer } from '../mock/server.ts';
import { fastWriter } from '../mock/transport/fast-writer.ts';
import { followLauncher } from './mock-relaunch.ts';
import { FixtureFileError, loadCatalogFile, loadKeysFile } from '../mock/fixture-files.ts';
import { FaultSpecError, parseFault } from '../mock/harness/faults.ts';
import { checkPrefix } from '../mock/harness/harness.ts';
import { loadScriptFile, ScriptError } from '../mock/harness/script.ts';
import { ALL_VARIANTS, formatVariants, isVariantName, type VariantName } from '../mock/variants.ts';
import { collectList, ConfigError, integerFrom, listenProblem, portNumber, UsageError } from './usage.ts';
import { createReplayService, type ReplayFallback, type ReplayPace } from '../mock/replay/service.ts';
import { RecordingError } from '../mock/replay/recording.ts';
import { closeOnSignal } from './close-on-signal.ts';

interface MockFlags {
  port: number;
  host: string;
  catalog?: string;
  keys?: string;
  defect?: DefectName[];
  variant?: VariantName[];
  slowMs?: number;
  slowEventMs?: number;
  listDefects?: boolean;
  listVariants?: boolean;
  replay?: string;
  fallback: ReplayFallback;
  fault?: string[];
  seed?: number;
  script?: string;
  journalSize?: number;
  journalBodyBytes?: number;
  prefix?: string;
  controlHost?: string[];
  cors?: string | true;
  replayPace?: ReplayPace;
  corsControl?: boolean;
}

/** `--cors` alone: any origin; `--cors ORIGIN`: that one (scheme, host and port, as a browser sends it). */
function corsOrigin(raw: string): string {
  if (raw === '*') return raw;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new InvalidArgumentError('expected an origin such as http://localhost:5173, or *');
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== raw.replace(/\/$/, '')) throw new InvalidArgumentError(`expected an origin such as http://localhost:5173 (scheme, host, port; no path), got "${raw}"`);
  return u.origin;
}

/** A repeatable --fault, checked as it is read (commander reports a bad one: one line, exit 2). */
function faultSpec(raw: string, previous: string[] | undefined): string[] {
  try {
    parseFault(raw);
  } catch (err) {
    if (err instanceof FaultSpecError) throw new InvalidArgumentError(err.message);
    throw err;
  }
  return [...(previous ?? []), raw.trim()];
}

function prefixPath(raw: string): string {
  try {
    return checkPrefix(raw);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

function address(raw: string): string {
  if (net.isIP(raw) === 0 && raw !== 'localhost') throw new InvalidArgumentError('expected an IP address (127.0.0.1, 0.0.0.0, ::1) or localhost');
  return raw;
}

/** Only this machine can reach the mock (127.0.0.0/8, ::1, localhost); any other address gets a warning. */
export const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

function fallback(raw: string): ReplayFallback {
  if (raw !== 'error' && raw !== 'generate') throw new InvalidArgumentError('expected error or generate');
  return raw;
}

function delayMs(raw: string): number {
  const n = integerFrom(0)(raw);
  if (n > 600_000) throw new InvalidArgumentError('expected an integer from 0 to 600000');
  return n;
}

export function mockCommand(): Command {
  return new Command('mock')
    .description('serve the reference mock on 127.0.0.1, or the address --host names (until interrupted)')
    .option('-p, --port <n>', 'port; 0 picks a free one', portNumber, 8787)
    .option(
      '--host <addr>',
      'the address to listen on; another than loopback serves other hosts, the control API (/_chatconform: faults, scripts, the journal, no key) included: a warning is printed. The control API answers only requests addressed to localhost, an IP address or a --control-host name, never a cross-origin browser request, and JSON bodies only',
      address,
      '127.0.0.1',
    )
    .option('--control-host <name>', 'a host name (no port) the control API also answers, e.g. mock for a container reached as http://mock:8787; repeatable, or a,b', collectList((n) => (/^[A-Za-z0-9.-]+$/.test(n) ? undefined : `expected a host name, got "${n}"`)))
    .option('--catalog <file>', 'serve this catalog (JSON, spec/schemas/mock-catalog.schema.json) instead of the built-in one')
    .option('--keys <file>', 'accept these keys (JSON, spec/schemas/mock-keys.schema.json) instead of the built-in ones')
    .option('--defect <name>', `break one requirement on purpose (${DEFECTS.length} modes; --list-defects); repeatable, or a,b`, collectList((n) => (isDefectName(n) ? undefined : `unknown defect "${n}"; --list-defects lists them`)))
    .option('--variant <name>', `a legal variant of the contract (${ALL_VARIANTS.length}; --list-variants); repeatable, or a,b`, collectList((n) => (isVariantName(n) ? undefined : `unknown variant "${n}"; --list-variants lists them`)))
    .option('--slow-ms <n>', 'with --variant slow: wait N ms before every answer\'s headers (default 3000)', delayMs)
    .option('--slow-event-ms <n>', 'with --variant slow: wait N ms before every stream event (default 100)', delayMs)
    .option('--replay <dir>', 'serve the exchanges chatconform proxy --record wrote to <dir> (docs/traffic.md)')
    .option('--fallback <mode>', 'with --replay, what an unrecorded request gets: error (a 404 naming what is missing) or generate (the generated mock answers)', fallback, 'error')
    .addOption(new Option('--replay-pace <pace>', 'with --replay, how a recorded stream goes out: fast (as the client reads) or recorded (the gaps between its events as they were recorded, each at most 30 s)').choices(['fast', 'recorded']))
    .option('--fault <spec>', 'a runtime fault on every request, or @P of them, or @N/M: 429:retry-after=1@0.2, fail-after=3@1/5, framing=crlf,bytewise, delay=50ms, status=503, reset-after=3, stall=30s, malformed-json (mock/README.md, "Runtime faults"); repeatable', faultSpec)
    .option('--seed <n>', 'the seed of probabilistic faults (default 0)', integerFrom(0))
    .option('--script <file>', 'scripted answers (JSON or YAML, spec/schemas/mock-script.schema.json)')
    .option('--journal-size <n>', 'requests the journal holds (GET /_chatconform/journal), oldest dropped first; 0 records none (default 1000)', integerFrom(0))
    .option('--journal-body-bytes <n>', 'bytes of each request body the journal keeps (default 16384)', integerFrom(0))
    .option('--prefix <path>', 'serve the /v1 routes only under this mount prefix (/api: http://127.0.0.1:8787/api/v1/models)', prefixPath)
    .option('--cors [origin]', 'answer browser clients: preflights (204 with the allowed methods and headers) and Access-Control-Allow-Origin on every answer, for this origin or any (* or no value); the control API never', corsOrigin)
    .option('--cors-control', 'with --cors ORIGIN: the control API too, so that origin\'s pages may set faults and scripts and read the journal (off by default: no key guards it; refused with any origin)')
    .option('--list-defects', 'list the defect modes and exit')
    .option('--list-variants', 'list the legal variants and exit')
    .addHelpText('after', () => keysHelp(defaultKeys()))
    .action(async (flags: MockFlags) => {
      if (flags.listDefects) {
        console.log(`${DEFECTS.length} defect modes (name, the requirement it breaks, section, what it does):\n${formatDefects()}`);
        return;
      }
      if (flags.listVariants) {
        console.log(`${ALL_VARIANTS.length} legal variants:\n${formatVariants()}`);
        return;
      }
      await serve(flags);
    });
}

/** The fixtures the flags name, read and checked before the mock listens (a bad file is a usage error). */
function fixturesOf(flags: MockFlags): Pick<MockOptions, 'catalog' | 'keys'> {
  try {
    const catalog = flags.catalog ? loadCatalogFile(flags.catalog) : undefined;
    const keys = flags.keys ? loadKeysFile(flags.keys, catalog ?? defaultCatalog()) : undefined;
    return { ...(catalog ? { catalog } : {}), ...(keys ? { keys } : {}) };
  } catch (err) {
    if (err instanceof FixtureFileError) throw new ConfigError(err.message);
    throw err;
  }
}

/** The harness options the flags name; the script file is read and checked before the mock listens. */
function harnessOf(flags: MockFlags): Pick<MockOptions, 'fault' | 'seed' | 'script' | 'journalSize' | 'journalBodyBytes' | 'prefix' | 'controlHosts'> {
  let script: MockOptions['script'];
  try {
    script = flags.script !== undefined ? loadScriptFile(flags.script).document : undefined;
  } catch (err) {
    if (err instanceof ScriptError) throw new ConfigError(err.message);
    throw err;
  }
  return {
    ...(flags.fault?.length ? { fault: flags.fault } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
    ...(script !== undefined ? { script } : {}),
    ...(flags.journalSize !== undefined ? { journalSize: flags.journalSize } : {}),
    ...(flags.journalBodyBytes !== undefined ? { journalBodyBytes: flags.journalBodyBytes } : {}),
    ...(flags.prefix ? { prefix: flags.prefix } : {}),
    ...(flags.controlHost?.length ? { controlHosts: flags.controlHost } : {}),
  };
}

/**
 * V8 settings for this process only (`v8.setFlagsFromString`, before any request is served):
 * - `--no-allocation-site-pretenuring`: V8 otherwise watches where objects are allocated and, once most objects of
 *   a site have survived a young collection, allocates that site's objects directly in the old generation. Under
 *   load a few such decisions are made on a moment when many requests were in flight (the load's start) and are
 *   never taken back, although nearly every request's objects die young; the old generation then fills with
 *   garbage and needs a full collection every ~150 ms. Measured on the bench's chat load: scavenges 0.4 instead
 *   of 1.2-3.6 ms, full collections 3 instead of 7-9 in 5 s, about 20 µs less CPU per request (bench/README.md).
 * - `--heap-growing-percent=20`: the old generation grows by 20% of what a full collection keeps (not by up to
 *   4x): the served mock keeps little between requests (~8 MB), so its heap, and its RSS, stay small.
 * (The young generation's cap, --max-semi-space-size, is fixed when V8 starts: the command runs itself again with
 * it, cli/mock-relaunch.ts.)
 */
export const V8_FLAGS = ['--no-allocation-site-pretenuring', '--heap-growing-percent=20'];

/** Flags that do not fit together: a usage error before anything is read or served. */
function checkCombinations(flags: MockFlags): void {
  if (flags.replay && (flags.defect?.length || flags.variant?.length || flags.fault?.length || flags.script !== undefined)) {
    throw new UsageError('--replay serves recorded answers as they are; --defect, --variant, --fault and --script do not apply to them');
  }
  if (flags.corsControl && flags.cors === undefined) throw new UsageError('--cors-control opens the control API to the --cors origin: give --cors too');
  // The control API takes no key: opened to every origin, any web page the user visits could set faults and read
  // the journal (the requests' bodies). A named origin is one the user chose.
  if (flags.corsControl && (flags.cors === true || flags.cors === '*')) throw new UsageError('--cors-control opens the control API to the --cors origin; with any origin (*) every web page could drive the mock and read its journal: name the origin, e.g. --cors http://localhost:5173');
  if (flags.replayPace !== undefined && !flags.replay) throw new UsageError('--replay-pace paces a replay: give --replay DIR too');
}

async function serve(flags: MockFlags): Promise<void> {
  checkCombinations(flags);
  for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);
  followLauncher();
  const fixtures = fixturesOf(flags);
  const harness = harnessOf(flags);
  if (!isLoopback(flags.host)) {
    process.stderr.write(
      `warning: the mock listens on ${flags.host}, reachable from other hosts; its keys are public fixtures, and its control API (/_chatconform: faults, scripts, the journal of requests) takes no key: any host that reaches it can drive it (it refuses cross-origin browser requests and Host names other than localhost, IP addresses and --control-host)\n`,
    );
  }
  const slow = {
    ...(flags.slowMs !== undefined ? { headersMs: flags.slowMs } : {}),
    ...(flags.slowEventMs !== undefined ? { eventMs: flags.slowEventMs } : {}),
  };
  let replay: ReturnType<typeof createReplayService> | undefined;
  if (flags.replay) {
    try {
      replay = createReplayService({ dir: flags.replay, fallback: flags.fallback, ...(flags.replayPace ? { pace: flags.replayPace } : {}), mock: { ...fixtures, ...harness } });
    } catch (err) {
      if (err instanceof RecordingError) throw new ConfigError(err.message);
      throw err;
    }
  }
  const server = await startMockServer({
    port: flags.port,
    host: flags.host,
    ...(replay ? { service: replay } : {}),
    // the speed the bench measures (bench/README.md); the reference writer sends the same bytes
    writer: fastWriter(),
    ...fixtures,
    ...(flags.defect?.length ? { defect: flags.defect } : {}),
    ...(flags.variant?.length ? { variant: flags.variant } : {}),
    ...(Object.keys(slow).length > 0 ? { slow } : {}),
    ...harness,
    ...(flags.cors !== undefined ? { cors: { origin: flags.cors === true ? '*' : flags.cors, ...(flags.corsControl ? { control: true } : {}) } } : {}),
    ...(flags.corsControl && flags.cors !== undefined ? { controlOrigins: [flags.cors === true ? '*' : flags.cors] } : {}),
  }).catch((err: NodeJS.ErrnoException) => {
    const problem = listenProblem(err, flags.port);
    throw problem ? new ConfigError(problem) : err;
  });
  const modes = [
    ...(replay ? [`replaying ${replay.recordings} exchange(s) from ${flags.replay}, fallback ${flags.fallback}`] : []),
    ...(flags.defect ?? []).map((d) => `defect ${d}`),
    ...(flags.variant ?? []).map((v) => `variant ${v}`),
  ];
  const lines = [`mock listening on ${server.url}${modes.length > 0 ? ` (${modes.join(', ')})` : ''}`];
  // A second line, so scripts reading the first keep working: the base URL a client is given.
  if (harness.prefix) lines.push(`base URL ${server.url}${harness.prefix}/v1`);
  // Then what a first-time user needs next (Prism lists what it serves): keys, models, the commands to point at it.
  // A replay answers as recorded: its keys and models are the recording's.
  if (!replay) {
    lines.push(
      ...bannerLines({
        url: server.url,
        ...(harness.prefix ? { prefix: harness.prefix } : {}),
        catalog: fixtures.catalog ?? defaultCatalog(),
        keys: fixtures.keys ?? defaultKeys(),
        builtinKeys: fixtures.keys === undefined,
        builtinCatalog: fixtures.catalog === undefined,
      }),
    );
  }
  // One write: a reader that waits for the first line has the rest with it.
  console.log(lines.join('\n'));
  closeOnSignal(server);
}
