// The kit as its users get it: `npm pack` (once per test run, support/installed-kit.ts), then the tarball installed
// into a fresh project in the OS temp dir, which has no path to this repository or its node_modules, pinned by the
// package's npm-shrinkwrap.json as a registry install is: every package the kit runs on has the version of this
// repository's package-lock.json. There the installed `chatconform` runs the suite against the installed mock, the
// embedded mock runs a section, and a plain ESM script imports chatconform/msw, chatconform/mock and chatconform/spec
// and makes a completion with the openai SDK (the project's own openai and msw, installed beside the kit).
//
// Slow by nature (a build, an install from the registry, a whole suite run): one serial group with a generous
// bound. Every server and run it starts leads its own process group and is stopped by that group's id.
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { CONTRACT } from '../../spec/requirements/index.ts';
import { repoRoot } from '../../run/config.ts';
import { REPORT_FILES } from '../../report/write.ts';
import type { ConformanceReport } from '../../report/json.ts';
import { writeConsumerProject } from '../../scripts/consumer-project.ts';
import type { Lockfile } from '../../scripts/shrinkwrap.ts';
import { runProcess, startProcess, type Ran, type Started } from './support/cli-process.ts';
import { sharedInstalledKit, userEnv } from './support/installed-kit.ts';

const VERSION = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
const LOCK = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as Lockfile;

/** Runs a command to its end in a user's environment, in its own process group, killed as a group past `boundMs`. */
function sh(cmd: string, args: string[], opts: { cwd: string; boundMs: number }): Promise<Ran> {
  return runProcess(cmd, args, { ...opts, env: userEnv() });
}

/** Starts `npx chatconform ARGS` in the project, as a user would, and waits for its listening line. */
function serve(args: string[], ready?: (stdout: string) => string | undefined): Promise<Started> {
  return startProcess('npx', ['chatconform', ...args], { cwd: project, env: userEnv(), ...(ready ? { ready } : {}) });
}

/** npm's own noise (warnings about the machine's npm config) is not the kit's output. */
const withoutNpmWarnings = (text: string) => text.split('\n').filter((l) => !/^npm (warn|notice)/.test(l)).join('\n').trim();

/** name@version of every package under `dir`/node_modules, nested ones included, by their path as a lockfile names it. */
function installedPackages(dir: string, prefix = ''): Map<string, string> {
  const found = new Map<string, string>();
  const modules = path.join(dir, 'node_modules');
  if (!existsSync(modules)) return found;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@') ? readdirSync(path.join(modules, entry)).map((n) => `${entry}/${n}`) : [entry];
    for (const name of names) {
      const manifest = path.join(modules, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const where = `${prefix}node_modules/${name}`;
      found.set(where, (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version);
      for (const [k, v] of installedPackages(path.join(modules, name), `${where}/`)) found.set(k, v);
    }
  }
  return found;
}

let work: string;
let project: string;
let tarball: string;
let packedFiles: string[];
let mock: Started | undefined;

test.describe.configure({ mode: 'serial' });

test.describe('the npm package, installed into a fresh project', () => {
  test.beforeAll(async () => {
    test.setTimeout(600_000);
    // The run's tarball (prepack builds dist/ and writes npm-shrinkwrap.json: what `npm publish` would upload).
    const kit = await sharedInstalledKit();
    if (!kit.tarball || !kit.packedFiles) throw new Error(`the run's installed kit (${kit.project}) was not packed by this run: unset CHATCONFORM_KIT_PROJECT`);
    tarball = kit.tarball;
    packedFiles = kit.packedFiles;
    // A project of its own (this file writes into it), named by a folder called kit on the way: the suite's own
    // files once matched a bare kit/** and were all ignored there.
    work = mkdtempSync(path.join(os.tmpdir(), 'chatconform-pkg-'));
    project = path.join(work, 'kit', 'project');
    writeConsumerProject(project, tarball);
    const install = await sh('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: project, boundMs: 240_000 });
    expect(install.code, `npm ci\n${install.stderr.slice(-3000)}`).toBe(0);
    // The user's own packages beside the kit, resolved as theirs are.
    const more = await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', 'openai', 'msw'], { cwd: project, boundMs: 240_000 });
    expect(more.code, `npm install openai msw\n${more.stderr.slice(-3000)}`).toBe(0);
  });

  test('the package holds the compiled kit, its data files and its pinned dependencies, and none of the sources, tests or tools', () => {
    for (const f of ['package.json', 'npm-shrinkwrap.json', 'cli/chatconform.mjs', 'dist/cli/main.js', 'docs/client-conformance.md', 'docs/testing.md', 'examples/clients/openai.mjs', 'examples/clients/fetch.mjs', 'dist/suites/conformance.config.js', 'dist/spec/requirements/requirements.json', 'dist/spec/requirements/contract.json', 'dist/fixtures/mock/catalog.json', 'dist/fixtures/mock/keys.json', 'dist/fixtures/profiles/mock.json', 'dist/spec/schemas/chat-response.schema.json', 'dist/entries/msw.d.ts', 'dist/entries/testing.d.ts', 'dist/report/html/report.css', 'dist/report/html/report.js', 'dist/ui/static/index.html', 'dist/ui/static/app.css', 'dist/ui/app/main.js']) {
      expect(packedFiles, `the package holds ${f}`).toContain(f);
    }
    expect(packedFiles.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), 'no TypeScript sources').toEqual([]);
    // The bin runs dist/ where no cli/main.ts sits beside it: the package ships no other file of cli/.
    expect(packedFiles.filter((f) => f.startsWith('cli/'))).toEqual(['cli/chatconform.mjs']);
    expect(packedFiles.filter((f) => /^(tests|scripts|bench)\/|dist\/suites\/kit\//.test(f)), "none of the project's own tests or tools").toEqual([]);
    // postpack removed the shrinkwrap from the clone: left there, npm would read it instead of package-lock.json.
    expect(existsSync(path.join(repoRoot, 'npm-shrinkwrap.json'))).toBe(false);
  });

  test("the install holds exactly the versions of package-lock.json: the shrinkwrap is the lockfile's runtime packages, and npm ci followed it", () => {
    const shrinkwrap = JSON.parse(readFileSync(path.join(project, 'node_modules/chatconform/npm-shrinkwrap.json'), 'utf8')) as Lockfile;
    const runtime = Object.entries(LOCK.packages).filter(([where, e]) => where !== '' && !e.dev && !e.devOptional);
    expect(Object.keys(shrinkwrap.packages).filter((w) => w !== '').sort()).toEqual(runtime.map(([w]) => w).sort());
    for (const [where, entry] of runtime) expect(shrinkwrap.packages[where]?.version, where).toBe(entry.version);
    expect(shrinkwrap.packages['']!.devDependencies, 'no dev dependency in the shrinkwrap').toBeUndefined();
    // What npm placed under the kit: every package at the lockfile's version, no dev-only package among them.
    const placed = installedPackages(path.join(project, 'node_modules/chatconform'));
    expect(placed.size).toBeGreaterThan(50);
    const wrong = [...placed].filter(([where, version]) => LOCK.packages[where]?.version !== version || LOCK.packages[where]?.dev).map(([w, v]) => `${w}@${v} (lockfile: ${LOCK.packages[w]?.version ?? 'absent'}${LOCK.packages[w]?.dev ? ', dev only' : ''})`);
    expect(wrong, 'installed packages not as package-lock.json pins them').toEqual([]);
    expect(placed.size, 'every runtime package of the lockfile installed').toBe(runtime.length);
  });

  test.afterAll(() => {
    mock?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('the project resolves the kit and its runner from its own node_modules, nowhere near this repository', () => {
    const installed = realpathSync(path.join(project, 'node_modules/chatconform'));
    expect(installed.startsWith(realpathSync(project))).toBe(true);
    expect(realpathSync(project).startsWith(realpathSync(repoRoot))).toBe(false);
    // The runner the installed CLI spawns is resolved from the kit itself, inside the project.
    const runner = realpathSync(createRequire(path.join(installed, 'package.json')).resolve('@playwright/test/cli'));
    expect(runner.startsWith(realpathSync(project))).toBe(true);
    // The data files sit where the compiled code resolves them from (import.meta.url): mock/core/*.js → ../../fixtures.
    expect(existsSync(path.join(installed, 'dist/mock/core/fixture-data.js'))).toBe(true);
    expect(readdirSync(path.join(installed, 'dist/fixtures/mock')).sort()).toEqual(['catalog.json', 'keys.json']);
  });

  test('chatconform --version prints the package version; an unknown flag is one line and exit 2', async () => {
    const version = await sh('npx', ['chatconform', '--version'], { cwd: project, boundMs: 30_000 });
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(VERSION);
    const bad = await sh('npx', ['chatconform', 'run', '--no-such-flag'], { cwd: project, boundMs: 30_000 });
    expect(bad.code).toBe(2);
    expect(withoutNpmWarnings(bad.stderr)).toBe("error: unknown option '--no-such-flag'");
    expect(bad.stdout).toBe('');
  });

  test('chatconform run --certify against chatconform mock: exit 0, the four reports, the kit version and the catalog digest, a bundle that verifies until a file is changed', async () => {
    test.setTimeout(420_000);
    mock = await serve(['mock', '--port', '0']);
    const url = mock.url;
    const reports = path.join(work, 'reports-against-mock');
    const bundle = path.join(work, 'bundle');
    const run = await sh('npx', ['chatconform', 'run', '--certify', '--bundle-dir', bundle, '--base-url', url, '--profile', 'mock', '--report-dir', reports, '--seed', '20261124'], { cwd: project, boundMs: 400_000 });
    expect(run.code, `chatconform run\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-2000)}`).toBe(0);
    expect(readdirSync(reports).sort()).toEqual([...REPORT_FILES].sort());
    const report = JSON.parse(readFileSync(path.join(reports, 'conformance.json'), 'utf8')) as ConformanceReport;
    expect(report.verdict.result).toBe('pass');
    expect(report.kit).toEqual({ name: 'chatconform', version: VERSION, build: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(report.spec.sha256).toBe(CONTRACT.sha256);
    expect(report.target.url).toBe(url);
    // Test locations read as in the repository (through the shipped source maps), never as paths into node_modules.
    const files = new Set(report.requirements.flatMap((r) => r.tests.map((t) => t.file ?? '(none)')));
    expect([...files].filter((f) => !/^suites\/[\w/.-]+\.spec\.ts$/.test(f))).toEqual([]);
    expect(run.stdout).toContain('chatconform conformance: PASS');
    await mock.close();
    mock = undefined;

    // The certification bundle: it verifies, as a folder and as its archive, and names the kit and the catalog.
    expect(run.stdout).toContain(`certification bundle: ${bundle} and ${bundle}.tar.gz`);
    const verified = await sh('npx', ['chatconform', 'verify', `${bundle}.tar.gz`], { cwd: project, boundMs: 60_000 });
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/the manifest holds/);
    expect(verified.stdout).toMatch(/^verdict: PASS — /m);
    expect(verified.stdout).toMatch(new RegExp(`^kit chatconform ${VERSION.replace(/\./g, '\\.')}`, 'm'));
    const info = JSON.parse(readFileSync(path.join(bundle, 'bundle.json'), 'utf8')) as { command: string; seed: number; catalogSha256: string };
    expect(info).toMatchObject({ seed: 20261124, catalogSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(info.command).toContain('--certify');
    // One changed file: verify fails and names it.
    writeFileSync(path.join(bundle, 'badge.svg'), readFileSync(path.join(bundle, 'badge.svg'), 'utf8').replace('pass', 'PASS'));
    const tampered = await sh('npx', ['chatconform', 'verify', bundle], { cwd: project, boundMs: 60_000 });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain('badge.svg: its SHA-256 does not match SHA256SUMS (the file was changed)');
  });

  test('chatconform proxy in front of chatconform mock: traffic judged, recorded, the reports on SIGTERM; mock --replay serves the recording', async () => {
    test.setTimeout(120_000);
    const upstream = await serve(['mock', '--port', '0']);
    const recorded = path.join(work, 'recorded');
    const reports = path.join(work, 'reports-of-proxy');
    const children: Started[] = [upstream];
    try {
      const proxy = await serve(['proxy', '--upstream', upstream.url, '--port', '0', '--report-dir', reports, '--record', recorded]);
      children.push(proxy);
      const url = proxy.url;
      const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string }[] };
      expect(models.data.length).toBeGreaterThan(0);
      // The group gets the signal (npx and the proxy under it); the proxy writes its reports on the way out.
      proxy.stop('SIGTERM');
      await expect.poll(() => (existsSync(reports) ? readdirSync(reports).sort() : []), { timeout: 30_000 }).toEqual([...REPORT_FILES].sort());
      expect(readdirSync(recorded)).toEqual(['000001-get-v1-models.json']);
      const replay = await serve(['mock', '--port', '0', '--replay', recorded], (out) => /^mock listening on (http:\/\/127\.0\.0\.1:\d+) \(replaying 1 exchange/m.exec(out)?.[1]);
      children.push(replay);
      const replayed = replay.url;
      expect(await (await fetch(`${replayed}/v1/models`)).json()).toEqual(models);
    } finally {
      await Promise.all(children.map((c) => c.close()));
    }
  });

  test('chatconform run with no --base-url starts the embedded mock; reports land in ./reports of the working directory', async () => {
    test.setTimeout(180_000);
    const listed = await sh('npx', ['chatconform', 'run', '--list', '--requirement', 'STREAM-004'], { cwd: project, boundMs: 60_000 });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^streaming\.spec\.ts:\d+ {2}stream true › a streamed completion is an SSE stream/m);
    const run = await sh('npx', ['chatconform', 'run', '--section', '6', '--fuzz-runs', '3'], { cwd: project, boundMs: 170_000 });
    expect(run.code, `chatconform run --section 6\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-2000)}`).toBe(0);
    expect(readdirSync(path.join(project, 'reports')).sort()).toEqual([...REPORT_FILES].sort());
    const report = JSON.parse(readFileSync(path.join(project, 'reports/conformance.json'), 'utf8')) as ConformanceReport;
    expect(report.target.embeddedMock).toBe(true);
    const section6 = report.requirements.filter((r) => r.section === '6' && r.kind === 'requirement' && r.level === 'MUST');
    expect(section6.length).toBeGreaterThan(0);
    expect(section6.filter((r) => r.status !== 'pass').map((r) => `${r.id} ${r.status}`)).toEqual([]);
    // Nothing written inside the installed package.
    const installed = path.join(project, 'node_modules/chatconform');
    expect(readdirSync(installed).sort()).toEqual(['CHANGELOG.md', 'README.md', 'cli', 'dist', 'docs', 'examples', 'node_modules', 'npm-shrinkwrap.json', 'package.json'].filter((f) => existsSync(path.join(installed, f))).sort());
    expect(existsSync(path.join(installed, 'reports')) || existsSync(path.join(installed, 'test-results')) || existsSync(path.join(installed, 'dist/test-results'))).toBe(false);
  });

  test('chatconform ui serves its page from the package and runs a requirement against the embedded mock', async () => {
    test.setTimeout(180_000);
    const reports = path.join(work, 'ui-reports');
    const ui = await serve(['ui', '--port', '0', '--report-dir', reports], (out) => /^ui listening on (http:\/\/\S+)/m.exec(out)?.[1]);
    try {
      expect(await (await fetch(ui.url)).text()).toContain('<script type="module" src="app/main.js"></script>');
      expect((await fetch(`${ui.url}app.css`)).status).toBe(200);
      // Every module the page loads, by following its imports: compiled JavaScript from dist/ui/app/.
      const seen = new Set<string>();
      for (const queue = ['main']; queue.length > 0; ) {
        const name = queue.pop()!;
        if (seen.has(name)) continue;
        seen.add(name);
        const res = await fetch(`${ui.url}app/${name}.js`);
        expect(res.status, name).toBe(200);
        for (const m of (await res.text()).matchAll(/\bfrom\s*["']\.\/([a-z-]+)\.js["']/g)) queue.push(m[1]!);
      }
      expect(seen.size).toBeGreaterThan(5);
      const started = await fetch(`${ui.url}api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ selection: { requirements: ['CAT-031'] } }) });
      expect(started.status).toBe(201);
      type Run = { state: string; verdict?: string; key: string };
      const runs = async () => (await (await fetch(`${ui.url}api/runs`)).json()) as Run[];
      await expect.poll(async () => (await runs())[0]!.state, { timeout: 150_000 }).toBe('ended');
      const [ended] = await runs();
      expect(ended!.verdict).toMatch(/^(partial|pass)$/);
      expect(readdirSync(path.join(reports, ended!.key)).sort()).toEqual([...REPORT_FILES].sort());
    } finally {
      await ui.close();
    }
  });

  test('a script imports chatconform/msw with setupServer and makes a completion with the openai SDK', async () => {
    const script = path.join(project, 'client.mjs');
    writeFileSync(
      script,
      `import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { handlers, MOCK_KEYS, MOCK_MODELS } from 'chatconform/msw';
import { startMockServer } from 'chatconform/mock';
import { validate, CONTRACT } from 'chatconform/spec';
import { startChatconformMock } from 'chatconform/testing';

const server = setupServer(...handlers);
server.listen({ onUnhandledRequest: 'error' });
const client = new OpenAI({ baseURL: 'https://mock.example.test/v1', apiKey: MOCK_KEYS.full });
const completion = await client.chat.completions.create({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hi' }] });
server.close();

const http = await startMockServer({ port: 0 });
const models = await (await fetch(http.url + '/v1/models')).json();
await http.close();

// chatconform/testing: a runtime fault, a scripted answer and the journal, over the control API.
const harness = await startChatconformMock({ fault: '429:retry-after=0@1/2' });
await harness.script.set({ rules: [{ answer: { content: 'Scripted.' } }] });
const retried = await new OpenAI({ baseURL: harness.baseURL, apiKey: harness.apiKey, maxRetries: 1 }).chat.completions.create({ model: MOCK_MODELS.small, messages: [{ role: 'user', content: 'hi' }] });
const tries = (await harness.journal.entries()).map((e) => e.status);
await harness.close();

console.log(JSON.stringify({
  content: completion.choices[0].message.content,
  model: completion.model,
  valid: validate('chat-response', completion).valid,
  models: models.data.length,
  modelListValid: validate('model-list', models).valid,
  digest: CONTRACT.sha256,
  scripted: retried.choices[0].message.content,
  tries,
}));
`,
    );
    const run = await sh(process.execPath, [script], { cwd: project, boundMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { content: string; model: string; valid: boolean; models: number; modelListValid: boolean; digest: string; scripted: string; tries: number[] };
    expect(typeof out.content === 'string' && out.content.length > 0).toBe(true);
    expect(out.valid).toBe(true);
    expect(out.models).toBeGreaterThan(0);
    expect(out.modelListValid).toBe(true);
    expect(out.digest).toBe(CONTRACT.sha256);
    expect(out.scripted).toBe('Scripted.');
    expect(out.tries).toEqual([429, 200]);
    // No warning on plain Node (e.g. an experimental JSON module import).
    expect(run.stderr).toBe('');
  });

  test('the exports are typed: a TypeScript consumer (NodeNext) type-checks against them, and a wrong type is caught', async () => {
    const consumer = (extra: string) => `import { handlers, MOCK_KEYS, MOCK_MODELS } from 'chatconform/msw';
import { startMockServer, createMockService } from 'chatconform/mock';
import { validate, requirements, CONTRACT, openApiDocument, type Requirement } from 'chatconform/spec';
import { startChatconformMock, type ChatconformMock, type RecordedRequest } from 'chatconform/testing';
const harness: ChatconformMock = await startChatconformMock({ fault: ['429@0.5'], script: { rules: [{ match: { turn: 0 }, answer: { content: 'x' } }] } });
const recorded: RecordedRequest[] = await harness.forTest('t1').journal.entries({ limit: 5 });
// @ts-expect-error a script answer's content is a string
await harness.script.set({ rules: [{ answer: { content: 1 } }] });
const key: string = MOCK_KEYS.full;
const model: string = MOCK_MODELS.small;
const first: Requirement | undefined = requirements[0];
const valid: boolean = validate('chat-response', {}).valid;
const server = await startMockServer({ port: 0 });
const url: string = server.url;
// @ts-expect-error not a schema name
validate('no-such-schema', {});
export const all = [key, model, first, valid, url, handlers.length, createMockService, CONTRACT.sha256, openApiDocument, recorded];
${extra}`;
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, noEmit: true, types: [] }, files: ['consumer.ts'] }));
    // The compiler is this repository's; everything it resolves comes from the project's node_modules.
    const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
    writeFileSync(path.join(project, 'consumer.ts'), consumer(''));
    const good = await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, boundMs: 60_000 });
    expect(good.code, good.stdout).toBe(0);
    writeFileSync(path.join(project, 'consumer.ts'), consumer('export const wrong: number = MOCK_KEYS.full;'));
    const bad = await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, boundMs: 60_000 });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/consumer\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  });

  test('chatconform openapi prints an OpenAPI 3.1 document that a maintained validator accepts', async () => {
    const res = await sh('npx', ['chatconform', 'openapi'], { cwd: project, boundMs: 30_000 });
    expect(res.code).toBe(0);
    const doc = JSON.parse(res.stdout) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(['/v1/chat/completions', '/v1/models', '/v1/models/{model_id}']);
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? [], 'OpenAPI 3.1 schema errors').toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });
});
