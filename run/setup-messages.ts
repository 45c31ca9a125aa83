// The setup mistakes `chatconform run` names before any test, in one table: each message's one line (made from
// what was found), its exit code, its cause and its fix. The checks throw setupError(id, ...); docs/troubleshooting.md
// is written from this table by scripts/troubleshooting.ts (`npm run docs:troubleshooting`), and a test fails when the
// page is stale, so the page and the lines cannot drift apart.
import { matrixProblem } from './model-matrix.ts';

export interface SetupMessage<P> {
  /** 2: the command line is wrong; 3: the run cannot be done as asked (a file, the target, the key). */
  exit: 2 | 3;
  /** The heading of its section in docs/troubleshooting.md. */
  title: string;
  cause: string;
  fix: string;
  /** The one line the kit prints, from what it found; a target that cannot be reached has `what` and `hint` instead. */
  line?: (p: P) => string;
  /** The target cannot be reached: what went wrong, in a few words (a wait for the target names it while it waits). */
  what?: (p: P) => string;
  /** ... and what to do, after it on the line. */
  hint?: (p: P) => string;
  /** What the page shows it with. */
  example: P;
}

/** Whatever the run was asked (and with): the piece of each line that names the target. */
interface Target {
  baseUrl: string;
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
const STILL_STARTING = 'for a server still starting, add --wait-for-target 60';
const ROOT = 'give the API\'s root as --base-url (the kit adds /v1 to every path)';

/** The prefix of every line about a target that cannot be reached (the report's verdict names it). */
export const UNREACHABLE_PREFIX = 'the target cannot be reached: ';
const NOT_THIS_API = 'the target answers, but not as this API: ';
const NOT_FOUND = 'the target answers 404 to both ';
const NO_KEY = 'no key: ';
const KEY_REFUSED = "the run's key ";

/**
 * The line about the target or its key in an error of the run (a global setup that stopped on it), from its start;
 * undefined when the error is none of them. A report's verdict is headed by it.
 */
export function targetProblemIn(error: string): string | undefined {
  const at = Math.min(...[UNREACHABLE_PREFIX, NOT_THIS_API, NOT_FOUND, NO_KEY, KEY_REFUSED].map((start) => error.indexOf(start)).filter((i) => i >= 0));
  return Number.isFinite(at) ? error.slice(at) : undefined;
}

const define = <P>(m: SetupMessage<P>): SetupMessage<P> => m;

export const SETUP_MESSAGES = {
  baseUrlEndsInV1: define<Target & { without: string; status: number }>({
    exit: 2,
    title: 'The base URL ends in /v1',
    cause: 'The openai SDK takes a base URL with /v1 in it; the kit adds /v1 to every path itself, so every request would be 404.',
    fix: 'Drop the /v1: `--base-url https://api.example.com`.',
    line: (p) => `--base-url ${p.baseUrl} ends in /v1, and ${p.baseUrl}/v1/models answers 404 while ${p.without}/v1/models answers ${p.status}: the kit adds /v1 itself, so drop it (--base-url ${p.without})`,
    example: { baseUrl: 'https://api.example.com/v1', without: 'https://api.example.com', status: 200 },
  }),
  modelsMatchNone: define<{ selection: string[]; listed: number }>({
    exit: 2,
    title: 'A --models selection matches no model',
    cause: "The per-model matrix's ids and globs match none of the ids the target's catalog lists (`*` stays within one `/` segment).",
    fix: 'List the ids with `curl -H "Authorization: Bearer $CONFORMANCE_API_KEY" BASE/v1/models` and name some of them, or a glob such as `acme/**`.',
    line: (p) => `${matrixProblem([], p.selection)} (the catalog lists ${plural(p.listed, 'model')})`,
    example: { selection: ['openai/*'], listed: 11 },
  }),
  modelNotListed: define<{ missing: string[]; listed: string[] }>({
    exit: 2,
    title: 'A --model the catalog does not list',
    cause: 'The run is pinned to a model id the target\'s catalog (GET /v1/models) does not list: every test would be skipped for want of a model.',
    fix: 'Pin an id the catalog lists, or leave --model out: the kit picks the models each test needs from the catalog.',
    line: (p) => {
      const shown = p.listed.slice(0, 5).join(', ');
      const rest = p.listed.length > 5 ? ` and ${p.listed.length - 5} more` : '';
      return `--model ${p.missing.join(', ')}: the target's catalog (GET /v1/models) lists no such model; it lists ${plural(p.listed.length, 'model')}${p.listed.length > 0 ? ` (${shown}${rest})` : ''}: pin one of them, or leave --model out and the kit picks`;
    },
    example: { missing: ['gpt-4o'], listed: ['acme/chat-large', 'acme/chat-small', 'mini-chat', 'reason-pro', 'vision-lite', 'cache-pro', 'busy-chat'] },
  }),
  reportDirUnwritable: define<{ dir: string; reason: string }>({
    exit: 3,
    title: 'The report folder cannot be written',
    cause: 'The folder the four reports go to (--report-dir, default ./reports) is not writable by this user: in a container, the image\'s user is not the owner of the mounted folder.',
    fix: 'Give a folder this user can write (`--report-dir`); in a container, run as your own user: `docker run --user "$(id -u):$(id -g)" -v "$PWD/reports:/reports" ...`.',
    line: (p) => `the report folder ${p.dir} cannot be written (${p.reason}): give one this user can write with --report-dir; in a container, run as your own user (--user "$(id -u):$(id -g)")`,
    example: { dir: '/reports', reason: 'EACCES: permission denied' },
  }),
  keyMissing: define<{ what: string; status: number; code?: string }>({
    exit: 3,
    title: 'No key',
    cause: 'The run has no key (no CONFORMANCE_API_KEY, no --api-key, no apiKey in the profile) and the target refuses requests without one: every test would be charged to the server.',
    fix: 'Set the key: `export CONFORMANCE_API_KEY=...` (in CI, the secret; an unset secret is an empty variable), or `apiKeyEnv: MY_KEY` in chatconform.config.yaml.',
    line: (p) => `${NO_KEY}${p.what} answered ${p.status}${p.code ? ` (${p.code})` : ''} without one, so every test would fail on it: set CONFORMANCE_API_KEY (or --api-key, or apiKeyEnv in the config file)`,
    example: { what: 'GET https://api.example.com/v1/models', status: 401, code: 'missing_api_key' },
  }),
  keyRefused: define<{ key: string; what: string; status: number; code?: string }>({
    exit: 3,
    title: 'The key is refused',
    cause: 'Every request of discovery (the catalog, the first completions) got 401 or 403 with the run\'s key: the key is wrong, revoked, or for another deployment; the kit would charge the refusals to the server.',
    fix: 'Check the key the run header names (its source and last 4 characters) against the target\'s: `curl -H "Authorization: Bearer $CONFORMANCE_API_KEY" BASE/v1/models`.',
    line: (p) => `${KEY_REFUSED}${p.key} is refused: ${p.what} answered ${p.status}${p.code ? ` (${p.code})` : ''}, so every test would fail on it: check that it is a valid key of this target`,
    example: { key: '$CONFORMANCE_API_KEY (...cdef)', what: 'GET https://api.example.com/v1/models', status: 401, code: 'invalid_api_key' },
  }),
  connectionRefused: define<Target & { host: string }>({
    exit: 3,
    title: 'Connection refused',
    cause: 'Nothing listens at the base URL\'s host and port: the server is not started (yet), or the port is another.',
    fix: 'Start the server, or fix the port; a server a CI job starts in the background: `--wait-for-target 60`.',
    what: (p) => `connection refused at ${p.host}`,
    hint: (p) => `is the server running at ${p.baseUrl}? ${STILL_STARTING}`,
    example: { baseUrl: 'http://127.0.0.1:8000', host: '127.0.0.1:8000' },
  }),
  hostUnknown: define<Target & { hostname: string }>({
    exit: 3,
    title: 'The host name does not resolve',
    cause: 'DNS knows no such host: a typo, or a name that only resolves inside another network.',
    fix: 'Check the host of --base-url (and the network the run is in).',
    what: (p) => `the host name ${p.hostname} does not resolve (DNS)`,
    hint: (p) => 'check the host of --base-url',
    example: { baseUrl: 'https://api.exmaple.com', hostname: 'api.exmaple.com' },
  }),
  tlsFailed: define<Target & { host: string; error: string }>({
    exit: 3,
    title: 'TLS failed',
    cause: 'The TLS handshake failed: https:// to a plain HTTP port, an expired certificate, or a private certificate authority.',
    fix: 'Use http:// for a plain server; for a private CA, give its certificate in NODE_EXTRA_CA_CERTS.',
    what: (p) => `TLS failed with ${p.host}: ${p.error}`,
    hint: (p) => 'check https:// against http://, and the certificate (NODE_EXTRA_CA_CERTS for a private CA)',
    example: { baseUrl: 'https://127.0.0.1:8000', host: '127.0.0.1:8000', error: 'wrong version number' },
  }),
  noAnswer: define<Target & { host: string; seconds: number }>({
    exit: 3,
    title: 'No answer',
    cause: 'The host accepted the connection (or dropped the packets) and never answered GET /v1/models.',
    fix: 'Check that the server is up and the URL is its API\'s; a server still starting: `--wait-for-target 60`.',
    what: (p) => `no answer from ${p.host} within ${p.seconds} s`,
    hint: (p) => `is the server up at ${p.baseUrl}? ${STILL_STARTING}`,
    example: { baseUrl: 'http://10.0.0.7:8000', host: '10.0.0.7:8000', seconds: 10 },
  }),
  connectionClosed: define<Target & { host: string }>({
    exit: 3,
    title: 'The connection closed without an answer',
    cause: 'The host closed the connection before answering: a server crashing, a proxy refusing, or a server still starting.',
    fix: 'Look at the server\'s log; a server still starting: `--wait-for-target 60`.',
    what: (p) => `${p.host} closed the connection without an answer`,
    hint: (p) => `is ${p.baseUrl} an HTTP server of this API? ${STILL_STARTING}`,
    example: { baseUrl: 'http://127.0.0.1:8000', host: '127.0.0.1:8000' },
  }),
  notHttp: define<Target & { host: string; error: string }>({
    exit: 3,
    title: 'Not HTTP/1.1',
    cause: 'The host answered something that is not HTTP/1.1: a TLS port asked in plain http://, or another protocol.',
    fix: 'Check the scheme (https:// for a TLS port) and the port.',
    what: (p) => `${p.host} does not answer in HTTP/1.1: ${p.error}`,
    hint: (p) => 'check the scheme (https:// for a TLS port) and the port',
    example: { baseUrl: 'http://127.0.0.1:8443', host: '127.0.0.1:8443', error: 'Parse Error: Expected HTTP/' },
  }),
  unreachable: define<Target & { host: string; error: string }>({
    exit: 3,
    title: 'The target cannot be reached',
    cause: 'The request failed before any answer, for a reason of the network.',
    fix: 'Check the base URL and the network; the error names what failed.',
    what: (p) => `${p.host} cannot be reached: ${p.error}`,
    example: { baseUrl: 'http://127.0.0.1:8000', host: '127.0.0.1:8000', error: 'EHOSTUNREACH' },
  }),
  htmlPage: define<Target & { status: number }>({
    exit: 3,
    title: 'An HTML page instead of the API',
    cause: 'The base URL answers with a web page (a site, a login page, a gateway\'s error page), not with this API.',
    fix: 'Give the API\'s root: the URL whose /v1/models lists the models (the kit adds /v1).',
    what: (p) => `${p.baseUrl}/v1/models answers HTTP ${p.status} with an HTML page`,
    line: (p) => `${NOT_THIS_API}${p.baseUrl}/v1/models answers HTTP ${p.status} with an HTML page: ${ROOT}`,
    example: { baseUrl: 'https://www.example.com', status: 200 },
  }),
  notFound: define<Target>({
    exit: 3,
    title: '404 everywhere',
    cause: 'Both GET /v1/models and POST /v1/chat/completions answer 404: the base URL is not the root of this API (a wrong path prefix, another service).',
    fix: 'Give the API\'s root (with its path prefix if it has one, without /v1): the URL whose /v1/models lists the models.',
    line: (p) => `${NOT_FOUND}${p.baseUrl}/v1/models and ${p.baseUrl}/v1/chat/completions: no API of this contract is there; ${ROOT}`,
    example: { baseUrl: 'https://api.example.com/llm' },
  }),
} as const;

export type SetupMessageId = keyof typeof SETUP_MESSAGES;
type ParamsOf<K extends SetupMessageId> = (typeof SETUP_MESSAGES)[K] extends SetupMessage<infer P> ? P : never;

/** A setup mistake found before any test: one line, and the exit code of its kind (2 usage, 3 the run cannot be done). */
export class SetupError extends Error {
  constructor(
    readonly id: SetupMessageId,
    message: string,
    readonly exitCode: 2 | 3,
    /** What went wrong in a few words (a target that cannot be reached), else the message. */
    readonly what: string = message,
  ) {
    super(message);
    this.name = 'SetupError';
    // The caller's to fix, not the kit's fault: printed alone, without a stack or a code frame.
    this.stack = message;
  }
}

/** The one line of a message for what was found. */
function lineOf<P>(m: SetupMessage<P>, p: P): string {
  if (m.line) return m.line(p);
  return `${UNREACHABLE_PREFIX}${m.what!(p)}${m.hint ? `: ${m.hint(p)}` : ''}`;
}

export function setupError<K extends SetupMessageId>(id: K, p: ParamsOf<K>): SetupError {
  const m = SETUP_MESSAGES[id] as unknown as SetupMessage<ParamsOf<K>>;
  return new SetupError(id, lineOf(m, p), m.exit, m.what?.(p));
}

/** docs/troubleshooting.md, whole: each message with an example line, its exit code, its cause and its fix. */
export function troubleshootingPage(): string {
  const out = [
    '# Troubleshooting: the setup messages',
    '',
    '<!-- Written by scripts/troubleshooting.ts from run/setup-messages.ts (npm run docs:troubleshooting); do not edit. -->',
    '',
    '`chatconform run` asks the target `GET /v1/models` once before any test, and checks what it was given. A setup',
    'mistake ends the run there, within seconds, with one line on stderr that names the cause and the fix: these lines,',
    'each with its exit code (2: the command line is wrong; 3: the run cannot be done as asked). No report is written.',
    '',
  ];
  for (const m of Object.values(SETUP_MESSAGES) as SetupMessage<unknown>[]) {
    out.push(`## ${m.title}`, '', '```text', `error: ${lineOf(m, m.example)}`, '```', '', `Exit code ${m.exit}. **Cause:** ${m.cause}`, '', `**Fix:** ${m.fix}`, '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
