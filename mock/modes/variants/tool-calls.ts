// Legal variants of returned tool calls (2.4): near misses of the tool-call defects, each allowed by the contract.
import { variant } from '../mode.ts';
import { choicesOf } from '../support.ts';

/** The tool-call deltas of a chunk. */
const callDeltas = (chunk: Record<string, unknown>): Record<string, unknown>[] =>
  choicesOf(chunk).flatMap((c) => {
    const calls = (c.delta as { tool_calls?: unknown } | undefined)?.tool_calls;
    return Array.isArray(calls) ? (calls as Record<string, unknown>[]) : [];
  });

export const TOOL_CALL_ID_REPEATED_VARIANT = variant({
  name: 'tool-call-id-repeated',
  allows: '2.4 (a call has one id; a later delta may carry it again)',
  description: 'in a stream, every later delta of a tool call repeats the call\'s id (the same one), as servers that write each delta whole do',
  output: {
    chunks: (chunks) => {
      const ids = new Map<unknown, unknown>();
      for (const chunk of chunks) {
        for (const call of callDeltas(chunk)) {
          if (!ids.has(call.index)) ids.set(call.index, call.id);
          else call.id = ids.get(call.index);
        }
      }
      return chunks;
    },
  },
});

export const TOOL_CALL_IDS_SHORT_VARIANT = variant({
  name: 'tool-call-ids-short',
  allows: '2.4 (an id identifies a call within its message; its form is not stated)',
  description: 'tool-call ids are the call\'s position, "call_0", "call_1", ...: distinct within a message, the same in every answer',
  stages: () => ({
    complete: (next) => (input) => {
      const c = next(input);
      c.toolCalls = c.toolCalls.map((t, i) => ({ ...t, id: `call_${i}` }));
      return c;
    },
  }),
});

export const TOOL_ARGUMENTS_SPACED_VARIANT = variant({
  name: 'tool-arguments-spaced',
  allows: '2.4 (arguments is a JSON-encoded string; how it is encoded is not stated)',
  description: 'function.arguments is pretty-printed JSON with non-ASCII characters escaped ("{\\n  \\"city\\": \\"Z\\u00fcrich\\"\\n}"): the same object once decoded',
  stages: () => ({
    complete: (next) => (input) => {
      const c = next(input);
      const spaced = (json: string) => JSON.stringify(JSON.parse(json), null, 2).replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
      // Usage keeps counting the compact arguments: whitespace is not generated text.
      c.toolCalls = c.toolCalls.map((t) => ({ ...t, function: { ...t.function, arguments: spaced(t.function.arguments) } }));
      return c;
    },
  }),
});

/** What a model says before the call it makes. */
const PREFACE = 'Let me look that up.';

export const TOOL_CALL_WITH_TEXT_VARIANT = variant({
  name: 'tool-call-with-text',
  allows: '2.9 (an assistant message carries content and tool_calls together)',
  description: `an answer that calls tools also says a short text first ("${PREFACE}"), streamed as content deltas before the call deltas; the calls are those the request asked for, a forced function included`,
  stages: () => ({
    complete: (next) => (input) => {
      const c = next(input);
      if (c.toolCalls.length === 0) return c;
      c.contentTokens = PREFACE.split(/(?= )/);
      c.content = PREFACE;
      c.tokens.completion += c.contentTokens.length;
      return c;
    },
  }),
});
