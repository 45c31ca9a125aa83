// Issue 19, "done when": generated hostile tool schemas (huge bounds, deep and recursive $ref, anyOf explosions,
// huge enums, long names and patterns) against the mock run as a child process (`chatconform mock --port 0`, cli/main.ts). Each
// gets an answer (within a generous hang bound, never a speed target): 200 with arguments that validate against the schema, or 400 with the
// section 7 envelope. Meanwhile a concurrent GET /v1/models keeps answering, and the child's peak RSS (VmHWM)
// stays under 300 MB.
import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { assertValid } from '../../spec/validator.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../../mock/keys-and-models.ts';
import { MOCK_SEMI_SPACE_FLAG } from '../../cli/mock-relaunch.ts';
import { chatconformCommand, startProcess } from './support/cli-process.ts';
import { testSeed } from '../support/seed.ts';
import { HANG_BOUND_MS } from '../support/hang-bound.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const RUNS = Number(process.env.CHATCONFORM_HOSTILE_RUNS ?? 60);
const SEED = testSeed(20261119, 'hostile tool schemas');
const RSS_BOUND_MB = 300;

type Schema = Record<string, unknown>;

/** Sizes a real schema never asks for, beside ordinary ones. */
const count = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom(300, 5000, 100_000_000, 1e9, 2 ** 53));
const hugeEnum = fc.integer({ min: 10_000, max: 40_000 }).map((n) => Array.from({ length: n }, (_, i) => `member-${i}`));
// Valid patterns only (the test's own validator compiles them; the mock never does): catastrophic backtracking,
// very long, ordinary.
const longPattern = fc.constantFrom('^(a+)+$'.repeat(500), '(x|y|xy)*z'.repeat(2000), '^[A-Z]{3}$');

/** Whether a JSON value holds an object key that names an Object.prototype member. */
function shadowsPrototype(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(shadowsPrototype);
  if (v === null || typeof v !== 'object') return false;
  return Object.entries(v).some(([k, x]) => k in Object.prototype || shadowsPrototype(x));
}

const hostileSchema: fc.Arbitrary<Schema> = fc.letrec<{ node: Schema }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constant('string'), minLength: count, maxLength: fc.option(count, { nil: undefined }) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('string'), pattern: longPattern }),
    fc.record({ type: fc.constantFrom('integer', 'number'), minimum: fc.integer({ min: -1e9, max: 1e9 }), maximum: fc.integer({ min: -1e9, max: 1e9 }), multipleOf: fc.constantFrom(1, 3, 7, 0.5) }, { requiredKeys: ['type'] }),
    fc.record({ enum: hugeEnum }),
    // Not a key that shadows an Object.prototype method (toString, valueOf, ...): the oracle's ajv compares `const`
    // values with a deep equality that calls a value's own toString, and throws on {"toString": false}. The mock
    // itself answers such a const exactly (checked with seed 197354640); the oracle could not tell.
    fc.record({ const: fc.jsonValue({ maxDepth: 3 }).filter((v) => !shadowsPrototype(v)) }),
    fc.record({ type: fc.constant('array'), items: tie('node'), minItems: count, maxItems: fc.option(count, { nil: undefined }), uniqueItems: fc.boolean() }, { requiredKeys: ['type', 'items', 'minItems'] }),
    fc
      .dictionary(fc.stringMatching(/^[a-z]{1,6}$/), tie('node'), { maxKeys: 4 })
      .chain((properties) => fc.record({ type: fc.constant('object'), properties: fc.constant(properties), required: fc.subarray(Object.keys(properties)), additionalProperties: fc.boolean() })),
    // anyOf explosions: wide and nested
    fc.array(tie('node'), { minLength: 1, maxLength: 8 }).map((branches) => ({ anyOf: branches })),
    fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((parts) => ({ allOf: parts })),
  ),
})).node;

/** Recursive $ref, required at every level or optional, around a generated node. */
const recursive: fc.Arbitrary<Schema> = fc.record({ required: fc.boolean(), leaf: hostileSchema, list: fc.boolean() }).map(({ required, leaf, list }) => {
  const self = list ? { type: 'array', items: { $ref: '#/$defs/n' }, minItems: required ? 1 : 0 } : { $ref: '#/$defs/n' };
  return {
    $defs: { n: { type: 'object', properties: { next: self, leaf }, required: required ? ['next'] : [] } },
    $ref: '#/$defs/n',
  };
});

/** Deeply nested (within the body's nesting bound) object schemas. */
const deep: fc.Arbitrary<Schema> = fc.integer({ min: 5, max: 28 }).map((depth) => {
  let s: Schema = { type: 'string' };
  for (let i = 0; i < depth; i++) s = { type: 'object', properties: { d: s }, required: ['d'] };
  return s;
});

const toolName = fc.oneof(fc.stringMatching(/^[a-z_]{1,12}$/), fc.constant('n'.repeat(33_000)), fc.constantFrom('a.b(c', '(x+)+$', '[', '\\'));
/** `parameters` must be an object schema (2.3): wrap non-object nodes in one property. */
const asParameters = (s: Schema): Schema => (s.type === 'object' || '$defs' in s ? s : { type: 'object', properties: { v: s }, required: ['v'] });
const hostileTool = fc.record({ name: toolName, parameters: fc.oneof(hostileSchema, recursive, deep).map(asParameters) });

interface ChildMock {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * The mock as the installed binary starts it: one node process with the young-generation cap (its shebang), so
 * the pid whose RSS is read is the serving process, not a launcher.
 */
async function startChildMock(): Promise<ChildMock> {
  const started = await startProcess(...chatconformCommand(['mock', '--port', '0'], { nodeOptions: [MOCK_SEMI_SPACE_FLAG] }), { cwd: repoRoot });
  return { url: started.url, pid: started.pid, stop: () => started.close() };
}

/**
 * GET /v1/models every 100 ms from a separate process, so the latencies are the mock's and not this process's
 * (which compiles schemas meanwhile). Each line it prints is one answer's latency in ms, or -1 for a non-200.
 */
function startCatalogPoller(url: string): { stop(): Promise<number[]> } {
  const code = `
    let on = true; process.stdin.on('end', () => { on = false; }); process.stdin.resume();
    while (on) {
      const t0 = performance.now();
      try {
        const res = await fetch(process.argv[1] + '/v1/models', { signal: AbortSignal.timeout(5000) });
        await res.arrayBuffer();
        console.log(res.status === 200 ? (performance.now() - t0).toFixed(1) : -1);
      } catch { console.log(-1); }
      await new Promise((r) => setTimeout(r, 100));
    }`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    stop: async () => {
      child.stdin!.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 6000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      return out.split('\n').filter(Boolean).map(Number);
    },
  };
}

/** Peak resident set of a process (Linux VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

test('hostile tool schemas (property): each is answered, 200 with valid arguments or a 400; GET /v1/models keeps answering; peak RSS under 300 MB', async () => {
  test.setTimeout(240_000);
  const mock = await startChildMock();
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  const poller = startCatalogPoller(mock.url);
  const statuses: Record<string, number> = {};
  let slowest = 0;
  try {
    // Warm-up: the first chat request compiles the request schemas (a one-off, outside the bound).
    await (await fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${MOCK_KEYS.full}` }, body: JSON.stringify({ model: MOCK_MODELS.mini, messages: [{ role: 'user', content: 'hi' }] }) })).arrayBuffer();
    console.log(`  seed ${SEED}, ${RUNS} runs (CHATCONFORM_TEST_SEED replays another)`);
    await fc.assert(
      fc.asyncProperty(hostileTool, fc.boolean(), async (tool, stream) => {
        const body = JSON.stringify({ model: MOCK_MODELS.mini, stream, messages: [{ role: 'user', content: `use ${tool.name.slice(0, 20)}` }], tools: [{ type: 'function', function: tool }] });
        const t0 = performance.now();
        const res = await fetch(`${mock.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${MOCK_KEYS.full}`, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(HANG_BOUND_MS),
        });
        const text = await res.text();
        const ms = performance.now() - t0;
        slowest = Math.max(slowest, ms);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        expect(ms, `answered in ${ms.toFixed(0)} ms (a hang bound, not a speed)`).toBeLessThan(HANG_BOUND_MS);
        if (res.status === 400) {
          expect(res.headers.get('content-type')).toContain('application/json');
          assertValid('error', JSON.parse(text));
          return;
        }
        expect(res.status, text.slice(0, 300)).toBe(200);
        // Streamed: the arguments are the concatenation of the deltas; otherwise read from the message.
        let args: string;
        if (stream) {
          args = text
            .split('\n')
            .filter((l) => l.startsWith('data: {'))
            .flatMap((l) => (JSON.parse(l.slice(6)).choices?.[0]?.delta?.tool_calls ?? []) as { function: { arguments: string } }[])
            .map((c) => c.function.arguments)
            .join('');
        } else args = JSON.parse(text).choices[0].message.tool_calls[0].function.arguments as string;
        const value = JSON.parse(args) as unknown;
        const ok = ajv.validate(tool.parameters, value);
        expect(ok, `${args.slice(0, 200)} fails ${JSON.stringify(tool.parameters).slice(0, 300)}: ${ajv.errorsText()}`).toBe(true);
      }),
      {
        numRuns: RUNS,
        seed: SEED,
        endOnFailure: true,
        // Counterexamples hold 33,000-character names and 40,000-member enums: report them cut short.
        reporter: (out) => {
          if (!out.failed) return;
          const example = JSON.stringify(out.counterexample).slice(0, 1500);
          throw new Error(`property failed (seed ${out.seed}, path ${out.counterexamplePath}): ${String(out.errorInstance).slice(0, 1500)}\ncounterexample: ${example}`);
        },
      },
    );
  } finally {
    const catalogLatencies = await poller.stop();
    const peak = peakRssMb(mock.pid);
    await mock.stop();
    // The poller's first request includes its own connection set-up: reported apart.
    const sorted = catalogLatencies.slice(1).sort((a, b) => a - b);
    console.log(`  statuses ${JSON.stringify(statuses)}; slowest answer ${slowest.toFixed(0)} ms`);
    console.log(`  GET /v1/models meanwhile: ${catalogLatencies.length} answers, first ${catalogLatencies[0]?.toFixed(0)} ms, then median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0)} ms, p90 ${sorted[Math.floor(sorted.length * 0.9)]?.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms`);
    console.log(`  peak RSS of the mock process: ${peak.toFixed(0)} MB (bound ${RSS_BOUND_MB} MB)`);
    expect(peak).toBeLessThan(RSS_BOUND_MB);
    expect(catalogLatencies.length, 'GET /v1/models answered during the run').toBeGreaterThan(0);
    expect(catalogLatencies.every((ms) => ms >= 0), 'every GET /v1/models during the run answered 200').toBe(true);
  }
});
