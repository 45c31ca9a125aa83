// Every command of README.md and docs/ works where the user is: each line of their shell code blocks runs, from an
// install (an empty project with the packed kit, support/installed-kit.ts) and from a clone (a copy of this working
// tree, with no dist/, its node_modules linked), through `sh -c` as a reader types it, in the order of the pages, in
// one folder per place (a line may read what an earlier one wrote, as a reader's would).
//
// What a line names that a reader would have is made here: the server of its URL is the mock (started by this test),
// its port a free one, its profile, key pair, baseline and own client are files written before it runs. Each line is
// taken by exactly one entry of WAYS: how it runs here, the exit code it gives, or why it does not run here (the test
// tiers themselves, docker: container.spec.ts builds and runs the image). A line no entry takes fails the test: a
// new command in the docs gets its way to run here. The docs are read, never edited.
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { startMockServer, type RunningMockServer } from '../../mock/server.ts';
import { MOCK_KEYS } from '../../mock/keys-and-models.ts';
import { writeConsumerProject } from '../../scripts/consumer-project.ts';
import { runProcess, startProcess } from './support/cli-process.ts';
import { sharedInstalledKit, userEnv } from './support/installed-kit.ts';

// The two places at once, one worker each (called before any test: Playwright applies it to the tests after it).
test.describe.configure({ mode: 'parallel' });

type Where = 'clone' | 'install';

/** One place the commands run: its folder, the mock standing for every server the docs name, the shipped adapters. */
interface Place {
  where: Where;
  dir: string;
  mockUrl: string;
  /** The reference adapters the kit ships (examples/clients/), relative to `dir`. */
  examples: string;
  /** Variables of the place's shell beyond the key. */
  env?: Record<string, string>;
}

interface Way {
  /** The lines (their command, comments dropped) this entry takes. */
  line: RegExp;
  /** Not run here, and why. */
  skip?: string;
  /** Run from one place only, and why. */
  only?: { where: Where; why: string };
  /** The line serves until stopped: it passes once it prints where it listens, and after `use` (then it is stopped). */
  serves?: { use?: (url: string, place: Place) => Promise<void> };
  /** Its exit code, when not 0, and why. */
  code?: { code: number; why: string };
  /** Variables set for this line beyond the key (NARROW), and why. */
  env?: { vars: Record<string, string>; why: string };
  /** Files a reader would have before this line. */
  before?: (place: Place) => void;
  /** The line as run here, when more than the common replacements (REPLACE) change it, and why. */
  rewrite?: { to: (line: string, place: Place) => string; why: string };
}

/** A reader's own client, standing for `node my-client.mjs`: the fetch adapter the kit ships (no SDK, every scenario passes). */
function writeMyClient(place: Place): void {
  writeFileSync(path.join(place.dir, 'my-client.mjs'), `await import(${JSON.stringify(pathToFileURL(path.join(place.dir, place.examples, 'fetch.mjs')).href)});\n`);
}

/** Sends one request through a proxy, so that it has an exchange to judge and record. */
async function oneRequest(url: string): Promise<void> {
  const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${MOCK_KEYS.full}` } });
  expect(res.status).toBe(200);
}

/** The web runner's page, at the URL it printed (its token in the path). */
async function pageLoads(url: string): Promise<void> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('<title>chatconform ui</title>');
}

/**
 * A whole-suite run narrowed by a documented variable: the line runs as written, over a few tests (the whole suite's
 * own runs are conformance-run.spec.ts's and packaging.spec.ts's); a line that already selects is not narrowed.
 */
const NARROW = { vars: { CONFORMANCE_REQUIREMENTS: 'CAT-031,REQ-005' }, why: 'a whole-suite run costs a minute a place: the command is what is tested here' };

const CLONE_SCRIPT = "a script of the repository's package.json: a clone's command (README: contributors, from a clone)";

export const WAYS: Way[] = [
  // README: contributors.
  { line: /^npm ci && npm run conformance$/, only: { where: 'clone', why: CLONE_SCRIPT }, env: NARROW, rewrite: { to: () => 'npm run conformance', why: "the clone's node_modules is this repository's, installed already (npm ci would replace the link)" } },
  { line: /^npm test$/, skip: 'the tiers of these very tests: run by .ci/run, not from inside them' },
  { line: /^npm run test:(slow|matrix|explore)$/, skip: 'the tiers of these very tests: run by .ci/run, not from inside them' },
  { line: /^CONFORMANCE_BASE_URL=\S+ CONFORMANCE_API_KEY=\S+ npm run conformance$/, only: { where: 'clone', why: CLONE_SCRIPT }, env: NARROW },
  // README: the tool.
  { line: /^npx chatconform run --base-url \S+$/, env: NARROW },
  { line: /^npx chatconform mock --port \d+$/, serves: {} },
  { line: /^npx chatconform ui( --port \d+ --report-dir out\/reports)?$/, serves: { use: pageLoads } },
  { line: /^npx chatconform client --command "node my-client\.mjs"$/, before: writeMyClient },
  { line: /^npx chatconform proxy --upstream \S+ (--port \d+ )?--record recorded\/$/, serves: { use: oneRequest }, before: (p) => rmSync(path.join(p.dir, 'recorded'), { recursive: true, force: true }) },
  { line: /^npx chatconform mock --replay recorded\/( --port \d+)?$/, serves: {} },
  { line: /^npx chatconform run --base-url \S+ --profile mock --section 6$/ },
  { line: /^npx chatconform run --requirement STREAM-004 --list$/ },
  { line: /^npx chatconform run --base-url \S+ --last-failed$/ },
  { line: /^npx chatconform run --base-url \S+ --wait-for-target 60 -H 'X-Tenant: acme'$/, env: NARROW },
  { line: /^npx chatconform mock --cors \S+$/, serves: {} },
  {
    line: /^npx chatconform report compare old\/conformance\.json new\/conformance\.json$/,
    before: (p) => {
      for (const d of ['old', 'new']) {
        mkdirSync(path.join(p.dir, d), { recursive: true });
        copyFileSync(path.join(p.dir, 'reports/conformance.json'), path.join(p.dir, d, 'conformance.json'));
      }
    },
  },
  { line: /^npx chatconform requirements --search sentinel$/ },
  { line: /^npx chatconform openapi > chat-api\.openapi\.json$/ },
  { line: /^npx chatconform init --base-url \S+$/, before: (p) => rmSync(path.join(p.dir, 'chatconform.config.yaml'), { force: true }) },
  { line: /^npx chatconform baseline reports\/conformance\.json -o expected-failures\.yaml$/ },
  { line: /^npx chatconform run --expected-failures expected-failures\.yaml --fail-on warn$/, env: NARROW },
  {
    line: /^npx chatconform run --certify --profile acme\.json --base-url \S+ --sign-key certifier\.pem$/,
    before: (p) => {
      copyFileSync(path.join(repoRoot, 'fixtures/profiles/mock.json'), path.join(p.dir, 'acme.json'));
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      writeFileSync(path.join(p.dir, 'certifier.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
      writeFileSync(path.join(p.dir, 'certifier.pub.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    },
  },
  { line: /^npx chatconform verify chatconform-bundle\.tar\.gz --verify-key certifier\.pub\.pem$/ },
  { line: /^(mkdir -p reports && )?docker (build|run) /, skip: 'the image: tests/integration/container.spec.ts builds it and runs these lines with podman, --user and the mounted reports folder too (slow tier)' },
  // README: shards.
  {
    line: /^chatconform run --base-url URL --seed 42 --shard 1\/3 --report-dir shards\/1$/,
    env: NARROW,
    rewrite: { to: (l, p) => [1, 2, 3].map((i) => replace(l.replace('--shard 1/3', `--shard ${i}/3`).replace('shards/1', `shards/${i}`), p)).join(' && '), why: 'the comment: "likewise 2/3, 3/3"' },
  },
  { line: /^chatconform report merge shards\/1 shards\/2 shards\/3 --report-dir reports$/ },
  // docs/client-conformance.md
  {
    line: /^npx chatconform client --command "node node_modules\/chatconform\/examples\/clients\/openai\.mjs"$/,
    code: { code: 1, why: "openai-node's own finding: its SSE reader drops a final error event that lacks its blank line (STREAM-011; docs/client-conformance.md)" },
    rewrite: { to: (l, p) => (p.where === 'clone' ? l.replace('node_modules/chatconform/', '') : l), why: 'in a clone the adapter is examples/clients/openai.mjs (the comment says so)' },
  },
  { line: /^npx chatconform client -- python my_adapter\.py$/, before: writeMyClient, rewrite: { to: (l) => l.replace('python my_adapter.py', 'node my-client.mjs'), why: "the reader's own adapter, in their language: a Node one stands for it" } },
  { line: /^npx chatconform client --list$/ },
  { line: /^npx chatconform client --scenario stream-crlf,stream-error --command "\.\.\."$/, before: writeMyClient },
  { line: /^npx chatconform client --requirement STREAM-018 --command "\.\.\."$/, before: writeMyClient },
  { line: /^npx chatconform client --jobs 1 --command "\.\.\."$/, before: writeMyClient },
  {
    line: /^npx chatconform client --expected-failures known\.yaml --timeout-ms 10000 --report-dir out\/ --command "\.\.\."$/,
    before: (p) => {
      writeMyClient(p);
      writeFileSync(path.join(p.dir, 'known.yaml'), 'expectedFailures: []\n');
    },
  },
];

/** What every line gets: the servers of the docs are the mock, a port is a free one, a placeholder is filled. */
function replace(line: string, place: Place): string {
  return line
    .replace(/^chatconform /, 'npx chatconform ')
    .replace(/https:\/\/api\.example\.com|http:\/\/127\.0\.0\.1:(8787|8000)|(?<=--base-url )URL\b/g, place.mockUrl)
    .replace(/--port \d+/g, '--port 0')
    // A server on its default port (8787) would meet the other place's: each on a free one.
    .replace(/^(npx chatconform (?:mock|proxy|ui)\b(?:(?!--port).)*)$/, '$1 --port 0')
    .replace(/--command "\.\.\."/, '--command "node my-client.mjs"')
    .replace(/CONFORMANCE_API_KEY=sk-\.\.\./, `CONFORMANCE_API_KEY=${MOCK_KEYS.full}`);
}

interface DocLine {
  page: string;
  lineNo: number;
  /** The command, its comment dropped, continuation lines joined. */
  command: string;
}

/** The command lines of a Markdown text's shell blocks (sh, bash, shell). */
export function shellLines(page: string, markdown: string): DocLine[] {
  const out: DocLine[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, , fence, lang] = open;
    let j = i + 1;
    for (; j < lines.length && !(lines[j]!.trim().startsWith(fence!) && /^(`+|~+)$/.test(lines[j]!.trim())); j++) {
      if (!['sh', 'bash', 'shell'].includes(lang!)) continue;
      const text = lines[j]!.trim();
      if (text === '' || text.startsWith('#')) continue;
      // A comment is two spaces or more, then #.
      out.push({ page, lineNo: j + 1, command: text.replace(/\s{2,}#.*$/, '').trim() });
    }
    i = j;
  }
  return out;
}

function docLines(): DocLine[] {
  const pages = ['README.md', ...readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
  return pages.flatMap((p) => shellLines(p, readFileSync(path.join(repoRoot, p), 'utf8')));
}

const wayOf = (command: string): Way[] => WAYS.filter((w) => w.line.test(command));

test('every command line of README and docs/ has exactly one way to run here, and every way takes a line', () => {
  const lines = docLines();
  expect(lines.length).toBeGreaterThan(30);
  const untaken = lines.filter((l) => wayOf(l.command).length !== 1).map((l) => `${l.page}:${l.lineNo}: ${l.command} (${wayOf(l.command).length} ways)`);
  expect(untaken, 'a command of the docs needs one entry in WAYS (doc-commands.spec.ts)').toEqual([]);
  const unused = WAYS.filter((w) => !lines.some((l) => w.line.test(l.command))).map((w) => String(w.line));
  expect(unused, 'entries of WAYS that no line of the docs takes any more').toEqual([]);
});

test('the reader of shell blocks: comments dropped, other languages left out', () => {
  const md = ['```sh', 'npx chatconform run   # judge it', '# a comment line', '', 'npm test', '```', '```ts', "import x from 'y';", '```', '```', 'Exit codes:', '```'].join('\n');
  expect(shellLines('x.md', md)).toEqual([
    { page: 'x.md', lineNo: 2, command: 'npx chatconform run' },
    { page: 'x.md', lineNo: 5, command: 'npm test' },
  ]);
  const place: Place = { where: 'install', dir: '/p', mockUrl: 'http://127.0.0.1:1234', examples: 'examples/clients' };
  expect(replace('chatconform run --base-url URL --seed 42', place)).toBe('npx chatconform run --base-url http://127.0.0.1:1234 --seed 42');
  expect(replace('npx chatconform mock --cors http://localhost:5173', place)).toBe('npx chatconform mock --cors http://localhost:5173 --port 0');
  expect(replace('npx chatconform proxy --upstream https://api.example.com --port 8788 --record recorded/', place)).toBe('npx chatconform proxy --upstream http://127.0.0.1:1234 --port 0 --record recorded/');
});

/** Runs every line of the docs in `place`, in order; returns one problem per line that did not do what its way says. */
async function runAll(place: Place): Promise<string[]> {
  const env = userEnv({ CONFORMANCE_API_KEY: MOCK_KEYS.full, ...place.env });
  const problems: string[] = [];
  // A page may repeat a command (README's quick starts, then its sections): it ran here once, as written.
  const ran = new Map<string, string>();
  for (const doc of docLines()) {
    const [way] = wayOf(doc.command);
    if (!way || way.skip || (way.only && way.only.where !== place.where)) continue;
    const first = ran.get(doc.command);
    if (first) {
      console.log(`[docs] ${place.where} ${doc.page}:${doc.lineNo} the command of ${first}, run already`);
      continue;
    }
    ran.set(doc.command, `${doc.page}:${doc.lineNo}`);
    way.before?.(place);
    const line = replace(way.rewrite ? way.rewrite.to(doc.command, place) : doc.command, place);
    const what = `${doc.page}:${doc.lineNo}: ${doc.command}${line !== doc.command ? `\n    run as: ${line}` : ''}`;
    const lineEnv = { ...env, ...way.env?.vars };
    const started = Date.now();
    const took = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (way.serves) {
      try {
        const served = await startProcess('sh', ['-c', line], { cwd: place.dir, env: lineEnv, timeoutMs: 120_000 });
        try {
          await way.serves.use?.(served.url, place);
        } finally {
          await served.close();
        }
        console.log(`[docs] ${place.where} ${doc.page}:${doc.lineNo} served, ${took()}`);
      } catch (err) {
        problems.push(`${what}\n    did not serve: ${err instanceof Error ? err.message.slice(0, 1500) : String(err)}`);
      }
      continue;
    }
    const r = await runProcess('sh', ['-c', line], { cwd: place.dir, env: lineEnv, boundMs: 600_000, keepChars: 100_000 });
    const expected = way.code?.code ?? 0;
    console.log(`[docs] ${place.where} ${doc.page}:${doc.lineNo} exit ${r.code ?? r.signal}, ${took()}`);
    if (r.code !== expected) problems.push(`${what}\n    exit ${r.code ?? r.signal} (expected ${expected})\n    ${r.output.slice(-1500).split('\n').join('\n    ')}`);
  }
  return problems;
}

/**
 * Runs the docs in a place made in a temp folder by `make`, with a mock of its own; removes both after. (No file-level
 * afterAll: in parallel mode Playwright then runs the two places one after the other.)
 */
async function inPlace(label: string, make: (work: string) => Promise<Omit<Place, 'mockUrl'>>): Promise<string[]> {
  const work = mkdtempSync(path.join(os.tmpdir(), `chatconform-doc-${label}-`));
  let mock: RunningMockServer | undefined;
  try {
    const place = await make(work);
    mock = await startMockServer({ port: 0 });
    return await runAll({ ...place, mockUrl: mock.url });
  } finally {
    await mock?.close();
    rmSync(work, { recursive: true, force: true });
  }
}

test('from an install: every command of the docs works in a project with the packed kit', async () => {
  test.setTimeout(40 * 60_000);
  const kit = await sharedInstalledKit();
  if (!kit.tarball) throw new Error(`the run's installed kit (${kit.project}) was not packed by this run: unset CHATCONFORM_KIT_PROJECT`);
  const tarball = kit.tarball;
  const problems = await inPlace('install', async (work) => {
    const dir = path.join(work, 'project');
    writeConsumerProject(dir, tarball);
    const install = await runProcess('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, env: userEnv(), boundMs: 300_000 });
    expect(install.code, install.stderr.slice(-3000)).toBe(0);
    return { where: 'install', dir, examples: 'node_modules/chatconform/examples/clients' };
  });
  expect(problems, 'commands of the docs that fail from an install').toEqual([]);
});

test('from a clone: every command of the docs works in a copy of this working tree, unbuilt', async () => {
  test.setTimeout(40 * 60_000);
  const problems = await inPlace('clone', async (work) => {
    const dir = path.join(work, 'chatconform');
    // The files a clone has (tracked, and new ones not ignored): no dist/, no reports.
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter((f) => f !== '' && existsSync(path.join(repoRoot, f)));
    for (const f of files) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      cpSync(path.join(repoRoot, f), path.join(dir, f));
    }
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'));
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
    // npx links a clone's own package into npm's cache, one entry per folder: a cache of the place's own.
    return { where: 'clone', dir, examples: 'examples/clients', env: { npm_config_cache: path.join(work, 'npm-cache') } };
  });
  expect(problems, 'commands of the docs that fail from a clone').toEqual([]);
});
