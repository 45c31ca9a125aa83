// Defect modes: tools (2.3, 2.4, 4.3 rule 3, 7 rule 2). Each breaks the requirement it names, as real servers do.
import { defect } from '../mode.ts';
import { choicesOf } from '../support.ts';

/** Python's repr of a decoded JSON value: single quotes, True/False/None. */
function pythonRepr(v: unknown): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(pythonRepr).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `'${k}': ${pythonRepr(x)}`).join(', ')}}`;
  return String(v);
}

/** The tool calls of a message or a delta (an empty list when there are none). */
function toolCallsOf(m: unknown): Record<string, unknown>[] {
  const calls = (m as { tool_calls?: unknown } | null | undefined)?.tool_calls;
  return Array.isArray(calls) ? (calls.filter((c) => typeof c === 'object' && c !== null) as Record<string, unknown>[]) : [];
}

export const TOOL_DEFECTS = [
  defect({
    name: 'tool-arguments-object',
    breaks: 'RESP-019',
    section: 'tools',
    description: 'in a stream, function.arguments is sent as one JSON object delta instead of JSON-encoded string fragments',
    output: {
      // An object cannot be cut into string pieces: each call's arguments go whole in one delta.
      chunks: (chunks, { completion }) => {
        const sent = new Set<number>();
        const out: Record<string, unknown>[] = [];
        for (const chunk of chunks) {
          const choice = choicesOf(chunk)[0];
          const call = ((choice?.delta as { tool_calls?: { index: number; id?: string; function?: { arguments?: unknown } }[] } | undefined)?.tool_calls ?? [])[0];
          if (!choice || !call || call.id !== undefined || call.function?.arguments === undefined) {
            out.push(chunk);
            continue;
          }
          if (sent.has(call.index)) continue;
          sent.add(call.index);
          const args = JSON.parse(completion.toolCalls[call.index]!.function.arguments) as unknown;
          out.push({ ...chunk, choices: [{ ...choice, delta: { tool_calls: [{ index: call.index, function: { arguments: args } }] } }] });
        }
        return out;
      },
    },
  }),
  defect({
    name: 'tool-arguments-not-json',
    tier: 'extended',
    breaks: 'RESP-020',
    section: 'tools',
    description: 'function.arguments is a Python dict repr ({\'city\': \'Paris\'}) that JSON.parse rejects',
    stages: () => ({
      complete: (next) => (input) => {
        const c = next(input);
        // Usage was counted on the JSON arguments: only what is sent changes.
        c.toolCalls = c.toolCalls.map((t) => ({ ...t, function: { ...t.function, arguments: pythonRepr(JSON.parse(t.function.arguments)) } }));
        return c;
      },
    }),
  }),
  defect({
    name: 'tool-call-undeclared-name',
    tier: 'extended',
    breaks: 'TOOL-006',
    section: 'tools',
    description: 'the model calls a function the request did not declare (the name gets a "_v2" suffix)',
    stages: () => ({
      complete: (next) => (input) => {
        const c = next(input);
        c.toolCalls = c.toolCalls.map((t) => ({ ...t, function: { ...t.function, name: `${t.function.name}_v2` } }));
        return c;
      },
    }),
  }),
  defect({
    name: 'tool-call-id-empty',
    tier: 'extended',
    breaks: 'RESP-015',
    section: 'tools',
    description: 'tool calls carry "id": "" (a gateway translating from a provider that names no call ids writes an empty one)',
    stages: () => ({
      complete: (next) => (input) => {
        const c = next(input);
        c.toolCalls = c.toolCalls.map((t) => ({ ...t, id: '' }));
        return c;
      },
    }),
  }),
  defect({
    name: 'tool-call-type-missing',
    tier: 'extended',
    breaks: 'RESP-017',
    section: 'tools',
    description: 'tool calls carry no "type" (only id and function), in the answer and in the first delta of each streamed call, as a translation from another provider\'s format writes them',
    output: {
      body: (body) => {
        for (const choice of choicesOf(body)) for (const call of toolCallsOf(choice.message)) delete call.type;
        return body;
      },
      chunks: (chunks) => {
        for (const chunk of chunks) for (const choice of choicesOf(chunk)) for (const call of toolCallsOf(choice.delta)) delete call.type;
        return chunks;
      },
    },
  }),
  defect({
    name: 'tools-undeclared-500',
    breaks: 'TOOL-013',
    section: 'tools',
    description: 'tool calls sent without declared tools go upstream and come back as 500 upstream_error',
    stages: () => ({
      error: (next) => (input) =>
        input.code === 'tools_not_declared'
          ? next({ ...input, status: 500, code: 'upstream_error', message: `upstream provider returned an error: ${input.message}` })
          : next(input),
    }),
  }),
  defect({
    name: 'parallel-tool-index-wrong',
    tier: 'extended',
    breaks: 'RESP-020',
    section: 'tools',
    description: 'in a stream of several (parallel) tool calls, every call\'s deltas carry "index": 0, so a client merges them into one call whose arguments are the calls\' JSON run together',
    output: {
      chunks: (chunks, { completion }) => {
        if (completion.toolCalls.length < 2) return chunks;
        for (const chunk of chunks) for (const choice of choicesOf(chunk)) for (const call of toolCallsOf(choice.delta)) call.index = 0;
        return chunks;
      },
    },
  }),
  defect({
    name: 'tool-call-name-outside-function',
    tier: 'extended',
    breaks: 'RESP-018',
    section: 'tools',
    description: 'a returned call carries its function name at the top of the call ("name"), as the legacy function_call shape did, not in "function"',
    output: {
      body: (body) => {
        for (const c of choicesOf(body)) {
          for (const call of toolCallsOf(c.message)) {
            const { name, ...f } = call.function as Record<string, unknown>;
            Object.assign(call, { name, function: f });
          }
        }
        return body;
      },
    },
  }),
  defect({
    name: 'stream-tool-call-id-changes',
    tier: 'extended',
    breaks: 'RESP-031',
    section: 'tools',
    description: 'in a stream, every later delta of a tool call carries an id of its own ("<id>_<n>"), not the first delta\'s (a gateway that mints an id per upstream event)',
    output: {
      chunks: (chunks) => {
        // Per call index: the first delta's id and how many later deltas followed it.
        const seen = new Map<unknown, { id: unknown; n: number }>();
        for (const chunk of chunks) {
          for (const choice of choicesOf(chunk)) {
            for (const call of toolCallsOf(choice.delta)) {
              const first = seen.get(call.index);
              if (first === undefined) seen.set(call.index, { id: call.id, n: 0 });
              else call.id = `${String(first.id)}_${++first.n}`;
            }
          }
        }
        return chunks;
      },
    },
  }),
  defect({
    name: 'parallel-tool-ids-shared',
    tier: 'extended',
    breaks: 'RESP-016',
    section: 'tools',
    description: 'parallel tool calls of one message all carry the first call\'s id (an id minted per response, not per call), so no tool result can answer the second',
    stages: () => ({
      complete: (next) => (input) => {
        const c = next(input);
        const first = c.toolCalls[0]?.id;
        if (first !== undefined) c.toolCalls = c.toolCalls.map((t) => ({ ...t, id: first }));
        return c;
      },
    }),
  }),
  defect({
    name: 'tool-arguments-double-encoded',
    tier: 'extended',
    breaks: 'TOOL-015',
    section: 'tools',
    description: 'function.arguments is JSON-encoded twice: it decodes to a string holding the arguments\' JSON, not to the arguments (a gateway that encodes an already encoded string)',
    stages: () => ({
      complete: (next) => (input) => {
        const c = next(input);
        // Usage was counted on the arguments once encoded: only what is sent changes.
        c.toolCalls = c.toolCalls.map((t) => ({ ...t, function: { ...t.function, arguments: JSON.stringify(t.function.arguments) } }));
        return c;
      },
    }),
  }),
  defect({
    name: 'tool-choice-object-ignored',
    tier: 'extended',
    breaks: 'TOOL-016',
    section: 'tools',
    description: 'a tool_choice object naming one function is accepted and then treated as "auto": the model calls whichever declared function it picks (a gateway that maps only the string values)',
    stages: () => ({
      complete: (next) => (input) => (typeof input.req.tool_choice === 'object' ? next({ ...input, req: { ...input.req, tool_choice: 'auto' } }) : next(input)),
    }),
  }),
] as const;
